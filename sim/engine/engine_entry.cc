#include "sim/engine/engine_entry.h"

namespace efimsim {

std::string ContextRejectReason(int64_t longest, int64_t max_context_tokens) {
  if (max_context_tokens <= 0 || longest <= max_context_tokens) return {};
  return "prompt + max output tokens (" + std::to_string(longest) +
         ") exceeds the model's context (" + std::to_string(max_context_tokens) + ")";
}

}  // namespace efimsim
