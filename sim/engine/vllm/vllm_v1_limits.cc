#include "sim/engine/vllm/vllm_v1_limits.h"

namespace efimsim {
namespace {
// The limits' key in the engine OptionStore.
const char* const kVllmV1LimitsKey = "vllm_v1.limits";
}  // namespace

const ParamTable<SchedulerLimits>& VllmV1LimitParams() {
  using C = SchedulerLimits;
  static const ParamTable<C> table = {
      {{"max-num-batched-tokens", "tokens",
        "token budget of one engine step (chunked prefill splits longer prompts)", 1},
       &C::max_num_batched_tokens},
      {{"max-num-seqs", "requests", "most requests running at once", 1}, &C::max_num_seqs},
  };
  return table;
}

const SchedulerLimits& VllmV1Limits(const OptionStore& options) {
  return options.Get<SchedulerLimits>(kVllmV1LimitsKey);
}

BoundParamTable<OptionStore> VllmV1LimitOptionTable() {
  // The group of the shared engine rows they sit among in --help.
  return BindParamTable("Engine (vLLM v1)", VllmV1LimitParams(),
                        StoredPart<SchedulerLimits>(kVllmV1LimitsKey),
                        ParamScope{"engine", {"vllm_v1"}});
}

}  // namespace efimsim
