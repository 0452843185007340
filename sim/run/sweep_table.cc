#include "sim/run/sweep_table.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>

#include "sim/base/errors.h"
#include "sim/engine/engines.h"
#include "sim/metrics/output_writers.h"

namespace efimsim {
namespace {

std::string Underscored(std::string name) {
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

std::string CsvField(const std::string& value) {
  if (value.find_first_of(",\"\n") == std::string::npos) return value;
  std::string out = "\"";
  for (const char c : value) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string InfoText(const RunInfo& info, const std::string& section, const std::string& key) {
  return SettingText(info, section, key, 6);
}

struct Metric {
  std::string name;
  std::string (*value)(const ExperimentResult&);
  // Only a run that completed requests has it (latencies, rates, hit rates
  // over them): empty for a run that measured nothing, never 0 as if measured.
  bool needs_completed_requests = false;
};

// The fields of `Metric` rows that need completed requests.
#define EFIMSIM_MEASURED(name, expr) \
  {name, [](const ExperimentResult& r) { return expr; }, true}

std::string F(double v) { return FormatFixed(v, 6); }
std::string I(int64_t v) { return std::to_string(v); }

#define EFIMSIM_DIST(prefix, member)                                   \
  EFIMSIM_MEASURED(prefix "_mean_ms", F(r.summary.member.mean)),       \
      EFIMSIM_MEASURED(prefix "_p50_ms", F(r.summary.member.p50)),     \
      EFIMSIM_MEASURED(prefix "_p90_ms", F(r.summary.member.p90)),     \
      EFIMSIM_MEASURED(prefix "_p99_ms", F(r.summary.member.p99)),     \
      EFIMSIM_MEASURED(prefix "_max_ms", F(r.summary.member.max))

const std::vector<Metric>& Metrics() {
  static const std::vector<Metric> metrics = {
      {"documents", [](const ExperimentResult& r) { return InfoText(r.info, "workload", "documents"); }},
      {"latency_model_name",
       [](const ExperimentResult& r) { return InfoText(r.info, "latency_model", "name"); }},
      {"kv_tokens_effective",
       [](const ExperimentResult& r) { return InfoText(r.info, "engine", "kv_tokens_effective"); }},
      {"requests_completed", [](const ExperimentResult& r) { return I(r.summary.requests_completed); }},
      {"requests_cancelled", [](const ExperimentResult& r) { return I(r.summary.requests_cancelled); }},
      {"requests_rejected",
       [](const ExperimentResult& r) { return I(r.summary.engine.rejected_requests); }},
      {"trace_lines_skipped", [](const ExperimentResult& r) { return I(r.summary.trace_lines_skipped); }},
      {"trace_records_dropped",
       [](const ExperimentResult& r) { return I(r.summary.trace_records_dropped); }},
      EFIMSIM_MEASURED("makespan_s", F(ToSeconds(r.summary.makespan))),
      EFIMSIM_MEASURED("request_throughput_per_s", F(r.summary.request_throughput_per_s)),
      EFIMSIM_MEASURED("output_token_throughput_per_s", F(r.summary.output_token_throughput_per_s)),
      EFIMSIM_MEASURED("total_token_throughput_per_s", F(r.summary.total_token_throughput_per_s)),
      EFIMSIM_DIST("ttft", ttft_ms),
      EFIMSIM_DIST("tpot", tpot_ms),
      EFIMSIM_DIST("e2e", e2e_ms),
      EFIMSIM_DIST("queueing", queueing_ms),
      {"prompt_tokens", [](const ExperimentResult& r) { return I(r.summary.prompt_tokens); }},
      {"output_tokens", [](const ExperimentResult& r) { return I(r.summary.output_tokens); }},
      {"cached_tokens", [](const ExperimentResult& r) { return I(r.summary.cached_tokens); }},
      EFIMSIM_MEASURED("prefix_cache_hit_rate", F(r.summary.prefix_cache_hit_rate)),
      {"prefix_cache_queries",
       [](const ExperimentResult& r) { return I(r.summary.engine.prefix_cache_query_tokens); }},
      {"prefix_cache_hits",
       [](const ExperimentResult& r) { return I(r.summary.engine.prefix_cache_hit_tokens); }},
      EFIMSIM_MEASURED("first_admission_hit_rate", F(r.summary.first_admission_hit_rate)),
      {"preemptions", [](const ExperimentResult& r) { return I(r.summary.engine.preemptions); }},
      {"efim_rebases", [](const ExperimentResult& r) { return I(r.summary.efim_rebases); }},
      {"kv_blocks_total", [](const ExperimentResult& r) { return I(r.summary.engine.kv_blocks_total); }},
      {"kv_blocks_peak_used",
       [](const ExperimentResult& r) { return I(r.summary.engine.kv_blocks_peak_used); }},
      {"peak_kv_usage", [](const ExperimentResult& r) { return F(r.summary.peak_kv_usage); }},
      {"kv_evicted_tokens", [](const ExperimentResult& r) { return I(r.summary.engine.evicted_tokens); }},
      {"prefill_tokens_computed",
       [](const ExperimentResult& r) { return I(r.summary.engine.prefill_tokens_computed); }},
      {"decode_tokens_computed",
       [](const ExperimentResult& r) { return I(r.summary.engine.decode_tokens_computed); }},
      {"steps", [](const ExperimentResult& r) { return I(r.summary.engine.steps); }},
      {"events", [](const ExperimentResult& r) { return I(r.summary.engine.events); }},
  };
  return metrics;
}
#undef EFIMSIM_DIST
#undef EFIMSIM_MEASURED

// The engines' part counters sweep.csv lists for every run (0 where a run
// lacks them), in registry order, after the shared metrics.
const std::vector<std::string>& PartCounterColumns() {
  static const std::vector<std::string> columns = [] {
    std::vector<std::string> out;
    for (const std::string& name : Engines().Names()) {
      const EngineEntry& engine = Engines().Get(name);
      if (engine.sweep_counters == nullptr) continue;
      for (const std::string& counter : engine.sweep_counters()) out.push_back(counter);
    }
    return out;
  }();
  return columns;
}

std::vector<std::string> Lines(const std::string& content) {
  std::vector<std::string> lines;
  std::stringstream stream(content);
  std::string line;
  while (std::getline(stream, line)) lines.push_back(line);
  return lines;
}

// The leading integer field of a row, or -1.
int64_t LeadingInteger(const std::string& field) {
  if (field.empty() || field.size() > 18 ||
      field.find_first_not_of("0123456789") != std::string::npos) {
    return -1;
  }
  return std::strtoll(field.c_str(), nullptr, 10);
}

}  // namespace

std::string RunId(int64_t run_index, int64_t grid_size) {
  int width = 4;
  for (int64_t n = grid_size - 1; n >= 10000; n /= 10) ++width;
  char text[32];
  std::snprintf(text, sizeof text, "run-%0*lld", width, static_cast<long long>(run_index));
  return text;
}

std::string SweepCsvHeader(const std::vector<OptionSetting>& options) {
  std::string out = "run_index,run_id,grid_size";
  for (const OptionSetting& option : options) {
    out += ',';
    out += Underscored(option.first);
  }
  for (const Metric& metric : Metrics()) {
    out += ',';
    out += metric.name;
  }
  for (const std::string& counter : PartCounterColumns()) {
    out += ',';
    out += counter;
  }
  return out + "\n";
}

std::string SweepCsvRow(int64_t run_index, int64_t grid_size,
                        const std::vector<OptionSetting>& options, const ExperimentResult& result) {
  std::string out = std::to_string(run_index) + "," + RunId(run_index, grid_size) + "," +
                    std::to_string(grid_size);
  for (const OptionSetting& option : options) {
    out += ',';
    out += CsvField(option.second);
  }
  const bool measured = result.summary.requests_completed > 0;
  for (const Metric& metric : Metrics()) {
    out += ',';
    if (measured || !metric.needs_completed_requests) out += CsvField(metric.value(result));
  }
  for (const std::string& counter : PartCounterColumns()) {
    out += ',';
    out += I(result.summary.engine.part(counter));
  }
  return out + "\n";
}

std::string MergeSweepCsvs(const std::vector<std::string>& contents,
                           const std::vector<std::string>& names) {
  if (contents.empty()) throw UsageError("merge: no sweep outputs given");
  std::string header;
  int64_t grid_size = -1;
  std::map<int64_t, std::string> rows;  // run_index -> line
  for (size_t f = 0; f < contents.size(); ++f) {
    const std::vector<std::string> lines = Lines(contents[f]);
    if (lines.empty() || lines.front().rfind("run_index,run_id,grid_size,", 0) != 0) {
      throw InputError(names[f], 1, "header", "not a sweep.csv (no run_index,run_id,grid_size header)");
    }
    if (header.empty()) header = lines.front();
    if (lines.front() != header) {
      throw InputError(names[f], 1, "header",
                       "columns differ from " + names.front() + " (different efimsim versions?)");
    }
    for (size_t l = 1; l < lines.size(); ++l) {
      const std::string& line = lines[l];
      const size_t c1 = line.find(',');
      const size_t c2 = c1 == std::string::npos ? c1 : line.find(',', c1 + 1);
      const size_t c3 = c2 == std::string::npos ? c2 : line.find(',', c2 + 1);
      const int64_t index = c1 == std::string::npos ? -1 : LeadingInteger(line.substr(0, c1));
      const int64_t size =
          c3 == std::string::npos ? -1 : LeadingInteger(line.substr(c2 + 1, c3 - c2 - 1));
      const int64_t line_number = static_cast<int64_t>(l) + 1;
      if (index < 0 || size <= 0) {
        throw InputError(names[f], line_number, "run_index", "malformed row");
      }
      if (grid_size < 0) grid_size = size;
      if (size != grid_size) {
        throw InputError(names[f], line_number, "grid_size",
                         "grid of " + std::to_string(size) + " runs, others have " +
                             std::to_string(grid_size) + " (shards of different sweeps?)");
      }
      if (index >= grid_size) {
        throw InputError(names[f], line_number, "run_index", "beyond the grid's size");
      }
      if (!rows.emplace(index, line).second) {
        throw InputError(names[f], line_number, "run_index",
                         "run " + std::to_string(index) + " appears twice (overlapping shards?)");
      }
    }
  }
  if (grid_size < 0) throw InputError(names.front(), 1, "run_index", "no runs in any input");
  if (static_cast<int64_t>(rows.size()) != grid_size) {
    int64_t missing = 0;
    while (rows.count(missing)) ++missing;
    throw InputError(names.front(), 0, "run_index",
                     std::to_string(grid_size - static_cast<int64_t>(rows.size())) + " of " +
                         std::to_string(grid_size) + " runs missing, first run " +
                         std::to_string(missing) + " (a shard not given or not finished?)");
  }
  std::string out = header + "\n";
  for (const auto& [index, line] : rows) out += line + "\n";
  return out;
}

}  // namespace efimsim
