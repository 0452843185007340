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

}  // namespace efimsim
