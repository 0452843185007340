#include "sim/engine/vllm/cpu_kv_tier_outputs.h"

#include "sim/metrics/output_writers.h"

namespace efimsim {
namespace {

// Counter names: also sweep.csv's column names for those it lists.
const char* const kBlocksTotal = "cpu_kv_blocks_total";  // one replica's tier
const char* const kLookups = "cpu_kv_lookups";
const char* const kHitBlocks = "cpu_kv_hit_blocks";     // found by lookups (a request may look up again)
const char* const kLoads = "cpu_kv_loads";              // load transfers started
const char* const kLoadedTokens = "cpu_kv_loaded_tokens";
const char* const kLoadedBytes = "cpu_kv_loaded_bytes";
const char* const kStoredBlocks = "cpu_kv_stored_blocks";
const char* const kStoredBytes = "cpu_kv_stored_bytes";
const char* const kEvictions = "cpu_kv_evictions";
const char* const kLoadTimeNs = "cpu_kv_load_time_ns";  // sum over loads, link queueing included

// Mean load time (link queueing included), ms; 0 without loads.
double MeanLoadMs(const EngineCounters& e) {
  const int64_t loads = e.part(kLoads);
  return loads > 0 ? static_cast<double>(e.part(kLoadTimeNs)) / static_cast<double>(loads) / 1e6
                   : 0.0;
}

std::string Gib(int64_t bytes) { return FormatFixed(static_cast<double>(bytes) / (1 << 30), 2); }

}  // namespace

void AppendCpuKvTierCounters(const CpuKvTier& tier, int64_t block_tokens,
                             std::vector<PartCounter>& counters) {
  using Combine = PartCounter::Combine;
  const CpuKvTierStats& t = tier.stats();
  counters.push_back({kBlocksTotal, tier.capacity_blocks(), Combine::kMax});
  counters.push_back({kLookups, t.lookups, Combine::kSum});
  counters.push_back({kHitBlocks, t.hit_blocks, Combine::kSum});
  counters.push_back({kLoads, t.loads, Combine::kSum});
  counters.push_back({kLoadedTokens, t.loaded_blocks * block_tokens, Combine::kSum});
  counters.push_back({kLoadedBytes, t.loaded_blocks * tier.bytes_per_block(), Combine::kSum});
  counters.push_back({kStoredBlocks, t.stored_blocks, Combine::kSum});
  counters.push_back({kStoredBytes, t.stored_blocks * tier.bytes_per_block(), Combine::kSum});
  counters.push_back({kEvictions, t.evictions, Combine::kSum});
  counters.push_back({kLoadTimeNs, ToNanoseconds(t.load_time), Combine::kSum});
}

bool HasCpuKvTier(const RunSummary& summary) { return summary.engine.part(kBlocksTotal) > 0; }

// Hit rates are over prefix_cache_queries (tokens looked up).
void SummarizeCpuKvTier(const RunSummary& summary, std::vector<RunInfoSection>& results) {
  if (!HasCpuKvTier(summary)) return;
  const EngineCounters& e = summary.engine;
  const double queries = static_cast<double>(e.prefix_cache_query_tokens);
  RunInfoSection tier{"cpu_kv_tier", {}};
  auto& t = tier.settings;
  t.push_back({"blocks_total", e.part(kBlocksTotal)});
  t.push_back({"lookups", e.part(kLookups)});
  t.push_back({"hit_blocks", e.part(kHitBlocks)});
  t.push_back({"loads", e.part(kLoads)});
  t.push_back({"loaded_tokens", e.part(kLoadedTokens)});
  t.push_back({"loaded_bytes", e.part(kLoadedBytes)});
  t.push_back({"stored_blocks", e.part(kStoredBlocks)});
  t.push_back({"stored_bytes", e.part(kStoredBytes)});
  t.push_back({"cpu_evictions", e.part(kEvictions)});
  t.push_back({"gpu_evicted_tokens", e.evicted_tokens});
  t.push_back({"mean_load_ms", MeanLoadMs(e)});
  t.push_back({"cpu_hit_rate",
               queries > 0 ? static_cast<double>(e.part(kLoadedTokens)) / queries : 0.0});
  t.push_back({"gpu_plus_cpu_hit_rate",
               queries > 0 ? static_cast<double>(e.prefix_cache_hit_tokens +
                                                 e.part(kLoadedTokens)) / queries
                           : 0.0});
  results.push_back(std::move(tier));
}

std::vector<std::string> CpuKvTierSweepCounters() {
  return {kLoadedTokens, kLoadedBytes, kLoads, kEvictions};
}

std::vector<EngineReportRow> CpuKvTierReportRows() {
  return {
      {"first-admission hit rate",
       [](const RunSummary& s) { return FormatFixed(100.0 * s.first_admission_hit_rate, 1) + "%"; },
       HasCpuKvTier},
      {"CPU tier tokens loaded",
       [](const RunSummary& s) { return std::to_string(s.engine.part(kLoadedTokens)); },
       HasCpuKvTier},
      {"CPU tier GiB loaded", [](const RunSummary& s) { return Gib(s.engine.part(kLoadedBytes)); },
       HasCpuKvTier},
      {"CPU tier GiB stored", [](const RunSummary& s) { return Gib(s.engine.part(kStoredBytes)); },
       HasCpuKvTier},
      {"mean CPU tier load (ms)",
       [](const RunSummary& s) { return FormatFixed(MeanLoadMs(s.engine), 2); }, HasCpuKvTier},
      {"evicted (GPU tok / CPU blk)",
       [](const RunSummary& s) {
         return std::to_string(s.engine.evicted_tokens) + "/" +
                std::to_string(s.engine.part(kEvictions));
       },
       HasCpuKvTier},
  };
}

std::string CpuKvTierHeadline(const RunInfo& info) {
  auto text = [&](const std::string& key) { return SettingText(info, "cpu_kv_tier", key, 3); };
  if (text("cpu_kv_gib").empty()) return "";
  return "CPU KV tier:   " + text("cpu_kv_gib") + " GiB per replica, loads at " +
         text("offload_gbps") + " GB/s (" + text("offload_gbps_source") + ") + " +
         text("offload_latency_us") +
         " us per transfer; vLLM offloading connector semantics (sim/README.md)\n";
}

}  // namespace efimsim
