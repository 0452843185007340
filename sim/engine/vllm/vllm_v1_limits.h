#pragma once
// vLLM v1's scheduler limits (--max-num-batched-tokens, --max-num-seqs),
// owned by the vLLM engine: its struct lives in the run's engine
// OptionStore under "vllm_v1.limits", its rows are scoped to --engine
// vllm_v1, and the registry lists them right after the model and GPU
// (EngineEntry::limit_option_tables), where --help, sweep.csv and the
// engine section have always shown them.

#include "sim/base/bound_params.h"
#include "sim/base/option_store.h"
#include "sim/base/params.h"
#include "sim/engine/vllm/vllm_v1_scheduler.h"

namespace efimsim {

// The rows of SchedulerLimits (vllm_v1_scheduler.h; defaults 2048 and 256,
// the paper's vLLM 0.8-era API server).
const ParamTable<SchedulerLimits>& VllmV1LimitParams();

// The limits in a run's engine OptionStore (defaults when none were set),
// and their table bound there.
const SchedulerLimits& VllmV1Limits(const OptionStore& options);
BoundParamTable<OptionStore> VllmV1LimitOptionTable();

}  // namespace efimsim
