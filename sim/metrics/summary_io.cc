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

// A section of typed settings as a JSON object, keys in order.
ordered_json SectionJson(const RunInfoSection& section) {
  ordered_json object = ordered_json::object();
  for (const Setting& setting : section.settings) {
    std::visit([&](const auto& value) { object[setting.key] = value; }, setting.value);
  }
  return object;
}

}  // namespace

std::string RenderSummaryJson(const RunInfo& info, const RunSummary& s) {
  ordered_json root;
  root["schema_version"] = kSummarySchemaVersion;
  for (const RunInfoSection& section : info.sections) root[section.name] = SectionJson(section);
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
  // Only runs with a frontend (--frontend) have these, so others keep their bytes.
  if (s.client_ttft_ms) results["client_ttft_ms"] = DistributionJson(*s.client_ttft_ms);
  if (s.client_tpot_ms) results["client_tpot_ms"] = DistributionJson(*s.client_tpot_ms);
  if (s.client_e2e_ms) results["client_e2e_ms"] = DistributionJson(*s.client_e2e_ms);
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
  // Only runs whose engine used an optional part have these, so others keep their bytes.
  for (const RunInfoSection& section : s.part_results) results[section.name] = SectionJson(section);
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
