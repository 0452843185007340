#pragma once
// What the CPU KV tier (cpu_kv_tier.h) adds to a run's outputs, so that no
// code outside this engine's folder knows the tier: its counters (named
// PartCounters in EngineCounters::parts, present only when a tier exists),
// the "cpu_kv_tier" section under summary.json's results, sweep.csv's
// columns, the compare table's rows and the run header's line. A run
// without a tier has none of them, and its outputs keep their bytes.

#include <string>
#include <vector>

#include "sim/engine/engine_entry.h"
#include "sim/engine/vllm/cpu_kv_tier.h"

namespace efimsim {

// Appends the tier's counters (block_tokens: the GPU cache's block size).
void AppendCpuKvTierCounters(const CpuKvTier& tier, int64_t block_tokens,
                             std::vector<PartCounter>& counters);

// True when the run had a tier.
bool HasCpuKvTier(const RunSummary& summary);

// The EngineEntry hooks (engine_entry.h) of the vLLM engine's tier.
void SummarizeCpuKvTier(const RunSummary& summary, std::vector<RunInfoSection>& results);
std::vector<std::string> CpuKvTierSweepCounters();
std::vector<EngineReportRow> CpuKvTierReportRows();
std::string CpuKvTierHeadline(const RunInfo& info);

}  // namespace efimsim
