#include "sim/client/completion_trigger.h"

#include "sim/base/errors.h"

namespace efimsim {

const char* CompletionTriggerName(CompletionTrigger trigger) {
  switch (trigger) {
    case CompletionTrigger::kEveryEdit: return "every-edit";
    case CompletionTrigger::kDebounce: return "debounce";
    case CompletionTrigger::kAdaptiveDebounce: return "adaptive-debounce";
    case CompletionTrigger::kSingleInFlight: return "single-in-flight";
  }
  return "unknown";
}

std::vector<std::string> CompletionTriggerNames() {
  return {"every-edit", "debounce", "adaptive-debounce", "single-in-flight"};
}

CompletionTrigger ParseCompletionTrigger(const std::string& name) {
  for (const CompletionTrigger t : {CompletionTrigger::kEveryEdit, CompletionTrigger::kDebounce,
                                    CompletionTrigger::kAdaptiveDebounce,
                                    CompletionTrigger::kSingleInFlight}) {
    if (name == CompletionTriggerName(t)) return t;
  }
  throw UsageError("--trigger: unknown trigger '" + name +
                   "' (choose one of: every-edit, debounce, adaptive-debounce, single-in-flight)");
}

}  // namespace efimsim
