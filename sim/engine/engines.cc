#include "sim/engine/engines.h"

#include "sim/engine/sglang/sglang_core.h"
#include "sim/engine/vllm/vllm_v1_core.h"

namespace efimsim {

const Registry<EngineEntry>& Engines() {
  static const Registry<EngineEntry> registry = [] {
    Registry<EngineEntry> r("engine");
    r.Add("vllm_v1", VllmV1Engine());
    r.Add("sglang", SglangEngine());
    return r;
  }();
  return registry;
}

std::string ContextRejectReason(int64_t longest, int64_t max_context_tokens) {
  if (max_context_tokens <= 0 || longest <= max_context_tokens) return {};
  return "prompt + max output tokens (" + std::to_string(longest) +
         ") exceeds the model's context (" + std::to_string(max_context_tokens) + ")";
}

}  // namespace efimsim
