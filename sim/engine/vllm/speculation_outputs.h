#pragma once
// What speculative decoding (speculator.h) adds to a run's outputs, like
// the CPU KV tier's (cpu_kv_tier_outputs.h): the "speculative_decoding"
// section under summary.json's results, the compare table's rows and the
// run header's line, all from its named counters (spec_decode_*). A run
// without speculation has none of them.

#include <string>
#include <vector>

#include "sim/engine/engine_entry.h"
#include "sim/engine/vllm/speculator.h"

namespace efimsim {

// Appends the speculator's counters (k: drafts per step, as configured).
void AppendSpeculationCounters(const SpeculationCounters& counters, int64_t k,
                               std::vector<PartCounter>& out);

// True when the run speculated.
bool HasSpeculation(const RunSummary& summary);

// The EngineEntry hooks' shares for speculation.
void SummarizeSpeculation(const RunSummary& summary, std::vector<RunInfoSection>& results);
std::vector<EngineReportRow> SpeculationReportRows();
std::string SpeculationHeadline(const RunInfo& info);

}  // namespace efimsim
