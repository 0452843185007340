#include "sim/app/report.h"

#include "sim/engine/engines.h"

#include <unistd.h>

#include <cstdio>
#include <functional>
#include <iostream>

#include "sim/metrics/output_writers.h"

namespace efimsim::cli {
namespace {

std::string SettingText(const RunInfo& info, const std::string& section, const std::string& key) {
  return efimsim::SettingText(info, section, key, 3);
}

struct Row {
  std::string label;
  std::function<std::string(const RunSummary&)> value;
};

std::string Percent(double fraction) { return FormatFixed(100.0 * fraction, 1) + "%"; }

const std::vector<Row>& Rows() {
  static const std::vector<Row> rows = {
      {"requests completed", [](const RunSummary& s) { return std::to_string(s.requests_completed); }},
      {"requests cancelled (stale)",
       [](const RunSummary& s) { return std::to_string(s.requests_cancelled); }},
      {"mean E2E latency (ms)", [](const RunSummary& s) { return FormatFixed(s.e2e_ms.mean, 1); }},
      {"p99 E2E latency (ms)", [](const RunSummary& s) { return FormatFixed(s.e2e_ms.p99, 1); }},
      {"mean TTFT (ms)", [](const RunSummary& s) { return FormatFixed(s.ttft_ms.mean, 1); }},
      {"p50 TTFT (ms)", [](const RunSummary& s) { return FormatFixed(s.ttft_ms.p50, 1); }},
      {"p99 TTFT (ms)", [](const RunSummary& s) { return FormatFixed(s.ttft_ms.p99, 1); }},
      {"mean TPOT (ms)", [](const RunSummary& s) { return FormatFixed(s.tpot_ms.mean, 2); }},
      {"p99 TPOT (ms)", [](const RunSummary& s) { return FormatFixed(s.tpot_ms.p99, 2); }},
      {"throughput (req/s)",
       [](const RunSummary& s) { return FormatFixed(s.request_throughput_per_s, 3); }},
      {"throughput (output tok/s)",
       [](const RunSummary& s) { return FormatFixed(s.output_token_throughput_per_s, 1); }},
      {"prefix cache hit rate", [](const RunSummary& s) { return Percent(s.prefix_cache_hit_rate); }},
      {"prefill tokens computed",
       [](const RunSummary& s) { return std::to_string(s.engine.prefill_tokens_computed); }},
      {"preemptions", [](const RunSummary& s) { return std::to_string(s.engine.preemptions); }},
      {"EFIM re-bases", [](const RunSummary& s) { return std::to_string(s.efim_rebases); }},
      {"peak KV usage", [](const RunSummary& s) { return Percent(s.peak_kv_usage); }},
      {"makespan (s)", [](const RunSummary& s) { return FormatFixed(ToSeconds(s.makespan), 3); }},
  };
  return rows;
}

std::string Pad(const std::string& text, size_t width, bool right) {
  if (text.size() >= width) return text;
  const std::string fill(width - text.size(), ' ');
  return right ? fill + text : text + fill;
}

const PolicyResult* Find(const std::vector<PolicyResult>& results, const std::string& policy) {
  for (const PolicyResult& r : results) {
    if (r.policy == policy) return &r;
  }
  return nullptr;
}

}  // namespace

std::string RenderRunHeader(const ExperimentResult& result) {
  const RunInfo& info = result.info;
  std::string out;
  out += "workload:      " + SettingText(info, "workload", "description") + "\n";
  // "tp" is in the run info only when not 1 (a quiet option).
  const std::string tp = SettingText(info, "latency_model", "tp");
  // "ranks_per_replica" only with --data-parallel-size > 1.
  const std::string ranks = SettingText(info, "data_parallel", "ranks_per_replica");
  out += "model, GPU:    " + SettingText(info, "model", "name") + " on " +
         (ranks.empty() ? "" : ranks + " data-parallel ranks of ") + (tp.empty() ? "1" : tp) + " x " +
         SettingText(info, "gpu", "description") + (tp.empty() ? "" : " (tensor parallel)") +
         ", KV cache " + (ranks.empty() ? "" : "per rank ") +
         SettingText(info, "engine", "kv_tokens_effective") + " tokens (" +
         SettingText(info, "engine", "kv_blocks_effective") + " blocks of " +
         SettingText(info, "engine", "block-tokens") + ", vLLM's '# GPU blocks')\n";
  const std::string engine = SettingText(info, "engine", "name");
  const EngineEntry* entry = Engines().Find(engine);
  out += "engine:        " +
         (entry != nullptr && entry->headline != nullptr ? entry->headline(info) : engine) + "\n";
  out += "latency model: " + SettingText(info, "latency_model", "description") + "\n";
  out += "documents:     " + SettingText(info, "workload", "documents") + "\n";
  const std::string lengths = SettingText(info, "workload", "output_length");
  if (!lengths.empty() && lengths.rfind("always", 0) != 0) {
    out += "output length: " + lengths +
           " (--output-length; realised lengths in summary.json's output_length)\n";
  }
  const std::string client_overhead = SettingText(info, "workload", "client_overhead_ms");
  if (!client_overhead.empty()) {
    out += "client time:   " + client_overhead +
           " ms per request added to TTFT and E2E (--client-overhead-ms: API server, tokenizer, "
           "network; not simulated)\n";
  }
  const std::string frontend = SettingText(info, "workload", "frontend");
  if (!frontend.empty()) {
    out += "frontend:      " + frontend +
           "\n               (--frontend: summary.json's client_* latencies add it to the engine's)\n";
  }
  if (entry != nullptr && entry->part_headline != nullptr) out += entry->part_headline(info);
  const std::string prefill_pool = SettingText(info, "disaggregation", "prefill_replicas");
  if (!prefill_pool.empty()) {
    auto setting = [&](const std::string& key) { return SettingText(info, "disaggregation", key); };
    const std::string decode_gpu = setting("decode_gpu");
    const std::string decode_pool =
        decode_gpu.empty() ? "" : " on " + decode_gpu + " at TP " + setting("decode_tp");
    const std::string dp_ranks = SettingText(info, "data_parallel", "ranks_per_replica");
    out += "disaggregated: " + prefill_pool + " prefill + " + setting("decode_replicas") +
           " decode replicas" + (dp_ranks.empty() ? "" : " of " + dp_ranks + " data-parallel ranks each") +
           decode_pool + " (routers " + setting("router") + ", " +
           setting("decode_router") +
           "), KV pulled at " + setting("kv_link_gbps_per_replica") +
           (dp_ranks.empty() ? " GB/s per decode replica + " : " GB/s per decode rank + ") +
           setting("kv_link_latency_us") +
           " us per pull; " +
           (SettingText(info, "engine", "name") == "sglang" ? "SGLang PD mode" : "vLLM P/D connector") +
           " semantics (docs/disaggregation.md)\n";
  }
  const std::string router_note = SettingText(info, "cluster", "router_note");
  if (!router_note.empty()) out += "router:        " + router_note + "\n";
  const std::string warning = SettingText(info, "warnings", "rejected_requests");
  if (!warning.empty()) out += "WARNING:       rejected requests: " + warning + "\n";
  const std::string skipped = SettingText(info, "warnings", "trace_lines_skipped");
  if (!skipped.empty()) out += "WARNING:       skipped trace lines: " + skipped + "\n";
  return out;
}

std::string RenderComparisonTable(const std::vector<PolicyResult>& results) {
  constexpr size_t kLabelWidth = 28;
  constexpr size_t kColumnWidth = 12;
  std::string out = Pad("metric", kLabelWidth, false);
  for (const PolicyResult& r : results) out += Pad(r.policy, kColumnWidth, true);
  out += "\n";
  auto add_row = [&](const std::string& label, const auto& value) {
    out += Pad(label, kLabelWidth, false);
    for (const PolicyResult& r : results) out += Pad(value(r.result.summary), kColumnWidth, true);
    out += "\n";
  };
  for (const Row& row : Rows()) add_row(row.label, row.value);
  // The rows of an engine's optional parts, when a run of that engine used one.
  for (const std::string& name : Engines().Names()) {
    const EngineEntry& engine = Engines().Get(name);
    if (engine.report_rows == nullptr) continue;
    bool used = false;
    for (const PolicyResult& r : results) {
      used |= SettingText(r.result.info, "engine", "name") == name &&
              !r.result.summary.engine.parts.empty();
    }
    if (!used) continue;
    for (const EngineReportRow& row : engine.report_rows()) {
      bool applies = row.applies == nullptr;
      for (const PolicyResult& r : results) {
        applies |= row.applies != nullptr && row.applies(r.result.summary);
      }
      if (applies) add_row(row.label, row.value);
    }
  }
  return out;
}

std::string RenderGains(const std::vector<PolicyResult>& results) {
  const PolicyResult* efim = Find(results, "efim");
  if (efim == nullptr) return "";
  std::string out;
  for (const PolicyResult& other : results) {
    if (other.policy == "efim") continue;
    const RunSummary& a = efim->result.summary;
    const RunSummary& b = other.result.summary;
    if (b.e2e_ms.mean <= 0 || b.request_throughput_per_s <= 0) continue;
    const double latency = a.e2e_ms.mean / b.e2e_ms.mean - 1.0;
    const double throughput = a.request_throughput_per_s / b.request_throughput_per_s - 1.0;
    char line[256];
    std::snprintf(line, sizeof line,
                  "EFIM vs %-8s mean E2E latency %+.1f%%, request throughput %+.1f%%\n",
                  (other.policy + ":").c_str(), 100.0 * latency, 100.0 * throughput);
    out += line;
  }
  return out;
}

std::string RenderComparisonCsv(const std::vector<PolicyResult>& results) {
  std::string out =
      "policy,prompt_format,prefix_caching,requests_completed,requests_rejected,makespan_s,"
      "request_throughput_per_s,output_token_throughput_per_s,total_token_throughput_per_s,"
      "e2e_mean_ms,e2e_p50_ms,e2e_p90_ms,e2e_p99_ms,ttft_mean_ms,ttft_p50_ms,ttft_p90_ms,"
      "ttft_p99_ms,tpot_mean_ms,tpot_p50_ms,tpot_p90_ms,tpot_p99_ms,queueing_mean_ms,"
      "prefix_cache_hit_rate,first_admission_hit_rate,prompt_tokens,cached_tokens,"
      "prefill_tokens_computed,preemptions,peak_kv_usage,steps,latency_model\n";
  for (const PolicyResult& r : results) {
    const RunSummary& s = r.result.summary;
    const RunInfo& info = r.result.info;
    auto f = [](double v) { return FormatFixed(v, 6); };
    out += r.policy + ',' + SettingText(info, "policy", "prompt_format") + ',' +
           SettingText(info, "policy", "prefix_caching") + ',' +
           std::to_string(s.requests_completed) + ',' + std::to_string(s.engine.rejected_requests) +
           ',' + f(ToSeconds(s.makespan)) + ',' + f(s.request_throughput_per_s) + ',' +
           f(s.output_token_throughput_per_s) + ',' + f(s.total_token_throughput_per_s) + ',' +
           f(s.e2e_ms.mean) + ',' + f(s.e2e_ms.p50) + ',' + f(s.e2e_ms.p90) + ',' +
           f(s.e2e_ms.p99) + ',' + f(s.ttft_ms.mean) + ',' + f(s.ttft_ms.p50) + ',' +
           f(s.ttft_ms.p90) + ',' + f(s.ttft_ms.p99) + ',' + f(s.tpot_ms.mean) + ',' +
           f(s.tpot_ms.p50) + ',' + f(s.tpot_ms.p90) + ',' + f(s.tpot_ms.p99) + ',' +
           f(s.queueing_ms.mean) + ',' + f(s.prefix_cache_hit_rate) + ',' +
           f(s.first_admission_hit_rate) + ',' + std::to_string(s.prompt_tokens) + ',' +
           std::to_string(s.cached_tokens) + ',' + std::to_string(s.engine.prefill_tokens_computed) +
           ',' + std::to_string(s.engine.preemptions) + ',' + f(s.peak_kv_usage) + ',' +
           std::to_string(s.engine.steps) + ',' + SettingText(info, "latency_model", "name") + '\n';
  }
  return out;
}

StderrProgress::StderrProgress(std::string label, bool mid_line)
    : label_(std::move(label)), mid_line_(mid_line), tty_(isatty(STDERR_FILENO) != 0) {}

std::function<void(const RunProgress&)> StderrProgress::Callback() {
  return [this](const RunProgress& p) {
    char line[200];
    std::snprintf(line, sizeof line, "%s: %.1f s simulated, %lld requests ended, %.0f s wall",
                  label_.c_str(), p.simulated_s, static_cast<long long>(p.requests_ended),
                  p.wall_s);
    if (tty_) {
      std::cerr << "\r\033[K" << line << std::flush;
    } else {
      std::cerr << (mid_line_ && !written_ ? "\n" : "") << line << "\n" << std::flush;
    }
    written_ = true;
  };
}

bool StderrProgress::Finish() {
  if (tty_ && written_) std::cerr << "\r\033[K" << std::flush;
  const bool written = written_;
  written_ = false;
  return written;
}

void RequireMeasuredRequests(const ExperimentConfig& config, const ExperimentResult& result) {
  const RunSummary& s = result.summary;
  if (s.requests_completed > 0) return;
  std::string why = "no request completed (" + std::to_string(s.engine.rejected_requests) +
                    " rejected, " + std::to_string(s.requests_cancelled) + " cancelled)";
  for (const RunInfoSection& section : result.info.sections) {
    if (section.name != "warnings") continue;
    for (const Setting& w : section.settings) {
      if (w.key == "rejected_requests") why += "; first " + std::get<std::string>(w.value);
    }
  }
  if (config.workload == "trace") {
    throw InputError(config.trace_path, 0, "", why + ": nothing to measure; no output written");
  }
  throw UsageError(why + ": nothing to measure; no output written");
}

}  // namespace efimsim::cli
