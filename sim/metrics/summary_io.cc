// summary.json writer. nlohmann/json stays in this file.
#include <nlohmann/json.hpp>

#include "sim/base/atomic_file.h"
#include "sim/metrics/output_writers.h"

namespace efimsim {
namespace {

using ordered_json = nlohmann::ordered_json;

ordered_json DistributionJson(const Distribution& d) {
  ordered_json out;
  out["count"] = d.count;
  out["mean"] = d.mean;
  out["p50"] = d.p50;
  out["p90"] = d.p90;
  out["p99"] = d.p99;
  out["max"] = d.max;
  return out;
}

// Only for a run with a CPU KV tier, so that runs without one keep their
// bytes. Hit rates are over prefix_cache_queries (tokens looked up).
void AddCpuKvTierResults(const RunSummary& s, ordered_json& results) {
  const EngineCounters& e = s.engine;
  const double queries = static_cast<double>(e.prefix_cache_query_tokens);
  ordered_json tier;
  tier["blocks_total"] = e.cpu_kv_blocks_total;
  tier["lookups"] = e.cpu_kv_lookups;
  tier["hit_blocks"] = e.cpu_kv_hit_blocks;
  tier["loads"] = e.cpu_kv_loads;
  tier["loaded_tokens"] = e.cpu_kv_loaded_tokens;
  tier["loaded_bytes"] = e.cpu_kv_loaded_bytes;
  tier["stored_blocks"] = e.cpu_kv_stored_blocks;
  tier["stored_bytes"] = e.cpu_kv_stored_bytes;
  tier["cpu_evictions"] = e.cpu_kv_evictions;
  tier["gpu_evicted_tokens"] = e.evicted_tokens;
  tier["mean_load_ms"] = e.cpu_kv_mean_load_ms();
  tier["cpu_hit_rate"] = queries > 0 ? static_cast<double>(e.cpu_kv_loaded_tokens) / queries : 0.0;
  tier["gpu_plus_cpu_hit_rate"] =
      queries > 0
          ? static_cast<double>(e.prefix_cache_hit_tokens + e.cpu_kv_loaded_tokens) / queries
          : 0.0;
  results["cpu_kv_tier"] = tier;
}

}  // namespace

std::string RenderSummaryJson(const RunInfo& info, const RunSummary& s) {
  ordered_json root;
  root["schema_version"] = kSummarySchemaVersion;
  for (const RunInfoSection& section : info.sections) {
    ordered_json object = ordered_json::object();
    for (const Setting& setting : section.settings) {
      std::visit([&](const auto& value) { object[setting.key] = value; }, setting.value);
    }
    root[section.name] = object;
  }
  ordered_json results;
  results["requests_completed"] = s.requests_completed;
  results["requests_cancelled"] = s.requests_cancelled;
  results["requests_rejected"] = s.engine.rejected_requests;
  results["makespan_s"] = ToSeconds(s.makespan);
  results["request_throughput_per_s"] = s.request_throughput_per_s;
  results["output_token_throughput_per_s"] = s.output_token_throughput_per_s;
  results["total_token_throughput_per_s"] = s.total_token_throughput_per_s;
  results["ttft_ms"] = DistributionJson(s.ttft_ms);
  results["tpot_ms"] = DistributionJson(s.tpot_ms);
  results["e2e_ms"] = DistributionJson(s.e2e_ms);
  results["queueing_delay_ms"] = DistributionJson(s.queueing_ms);
  results["prompt_tokens"] = s.prompt_tokens;
  results["output_tokens"] = s.output_tokens;
  results["cached_tokens"] = s.cached_tokens;
  results["prefix_cache_hit_rate"] = s.prefix_cache_hit_rate;
  results["prefix_cache_queries"] = s.engine.prefix_cache_query_tokens;
  results["prefix_cache_hits"] = s.engine.prefix_cache_hit_tokens;
  results["first_admission_hit_rate"] = s.first_admission_hit_rate;
  results["preemptions"] = s.engine.preemptions;
  results["efim_rebases"] = s.efim_rebases;
  results["trace_lines_skipped"] = s.trace_lines_skipped;
  results["trace_records_dropped"] = s.trace_records_dropped;
  results["kv_blocks_total"] = s.engine.kv_blocks_total;
  results["kv_blocks_peak_used"] = s.engine.kv_blocks_peak_used;
  results["peak_kv_usage"] = s.peak_kv_usage;
  results["kv_evicted_tokens"] = s.engine.evicted_tokens;
  results["prefill_tokens_computed"] = s.engine.prefill_tokens_computed;
  results["decode_tokens_computed"] = s.engine.decode_tokens_computed;
  if (s.engine.cpu_kv_blocks_total > 0) AddCpuKvTierResults(s, results);
  root["results"] = results;
  ordered_json simulator;
  simulator["events"] = s.engine.events;
  simulator["steps"] = s.engine.steps;
  // Host time: null when the run was asked not to record it (--no-wall-time),
  // so that two runs' summaries can be compared byte for byte.
  simulator["wall_s"] = s.wall_s ? ordered_json(*s.wall_s) : ordered_json(nullptr);
  root["simulator"] = simulator;
  return root.dump(2) + "\n";
}

void WriteSummaryJson(const std::string& path, const RunInfo& info, const RunSummary& summary) {
  WriteFileAtomically(path, RenderSummaryJson(info, summary));
}

}  // namespace efimsim
