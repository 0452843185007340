#pragma once
// The engines a run can model, by name (--engine). RunExperiment builds
// every replica through this table and never names an engine. A new engine
// is its own folder (its EngineEntry, engine_entry.h) plus one line in
// Engines() (engines.cc) and one library in sim/CMakeLists.txt.

#include "sim/base/registry.h"
#include "sim/engine/engine_entry.h"

namespace efimsim {

// vllm_v1, sglang (in this order).
const Registry<EngineEntry>& Engines();

}  // namespace efimsim
