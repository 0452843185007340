#pragma once
// A run's summary statistics (SEMANTICS.md §7), computed from its request
// records and the engine's counters.
//
// Percentiles use linear interpolation between closest ranks (numpy's and
// pandas' default), so they match what a notebook computes from
// requests.csv.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "sim/metrics/request_record.h"

namespace efimsim {

struct Distribution {
  int64_t count = 0;
  double mean = 0, p50 = 0, p90 = 0, p99 = 0, max = 0;
};
// Precondition-free: an empty input gives count 0 and zeros.
Distribution Summarize(std::vector<double> values);
// Linear-interpolation percentile of sorted values, q in [0, 100].
double PercentileOfSorted(std::span<const double> sorted, double q);

// Engine-side counters the records cannot tell.
struct EngineCounters {
  int64_t steps = 0;
  int64_t events = 0;
  int64_t prefix_cache_lookups = 0;
  int64_t prefix_cache_query_tokens = 0;
  int64_t prefix_cache_hit_tokens = 0;
  int64_t preemptions = 0;
  // Tokens of cached KV evicted to make room, under every engine (vLLM:
  // evicted blocks x block_tokens, each a full cached block; SGLang: tokens
  // evicted from the radix tree).
  int64_t evicted_tokens = 0;
  int64_t kv_blocks_total = 0;
  int64_t kv_blocks_peak_used = 0;
  int64_t rejected_requests = 0;
  int64_t prefill_tokens_computed = 0;  // prompt positions computed (recomputes included)
  int64_t decode_tokens_computed = 0;   // generated-token positions computed
  // CPU KV tier (sim/engine/vllm/cpu_kv_tier.h); all 0 without one.
  int64_t cpu_kv_blocks_total = 0;      // one replica's tier; 0: no tier
  int64_t cpu_kv_lookups = 0;
  int64_t cpu_kv_hit_blocks = 0;        // found by lookups (a request may look up again)
  int64_t cpu_kv_loads = 0;             // load transfers started
  int64_t cpu_kv_loaded_tokens = 0;
  int64_t cpu_kv_loaded_bytes = 0;
  int64_t cpu_kv_stored_blocks = 0;
  int64_t cpu_kv_stored_bytes = 0;
  int64_t cpu_kv_evictions = 0;
  int64_t cpu_kv_load_time_ns = 0;      // sum over loads, link queueing included

  // Adds one replica's counters into a cluster's: sums, except the KV
  // figures, which stay those of one replica (pool and tier sizes) and of
  // the fullest replica (peak), so peak_kv_usage stays a fraction of one
  // GPU's cache. A field added above must be added here.
  void Add(const EngineCounters& replica);

  // Mean CPU KV load time (link queueing included), ms; 0 without loads.
  double cpu_kv_mean_load_ms() const {
    return cpu_kv_loads > 0 ? static_cast<double>(cpu_kv_load_time_ns) /
                                  static_cast<double>(cpu_kv_loads) / 1e6
                            : 0.0;
  }
};

struct RunSummary {
  int64_t requests_completed = 0;   // finished, not cancelled
  int64_t requests_cancelled = 0;
  Duration makespan{0};             // first arrival -> last completion
  Distribution ttft_ms, tpot_ms, e2e_ms, queueing_ms;
  double request_throughput_per_s = 0;
  double output_token_throughput_per_s = 0;
  double total_token_throughput_per_s = 0;  // (prompt + output) tokens / s
  int64_t prompt_tokens = 0;
  int64_t output_tokens = 0;
  int64_t cached_tokens = 0;                // at first admission
  double prefix_cache_hit_rate = 0;          // vLLM counters: hits / queries over all lookups
  double first_admission_hit_rate = 0;       // cached_tokens / prompt_tokens
  double peak_kv_usage = 0;                  // peak used blocks / total blocks
  int64_t efim_rebases = 0;                  // fresh EFIM prompts forced by non-append edits
  // Trace workloads: lines over --max-line-bytes skipped, and records
  // dropped with them (TraceReader::SkippedLines); 0 otherwise.
  int64_t trace_lines_skipped = 0;
  int64_t trace_records_dropped = 0;
  EngineCounters engine;
  // Host wall-clock seconds of the run (set-up through the last event), or
  // absent. The only figure of a run that is not a function of its inputs.
  std::optional<double> wall_s;
};

// Builds a RunSummary from records given one at a time, in any order. It
// keeps the latency samples that exact percentiles need (at most four
// doubles per completed request), never the records themselves.
class RunSummaryBuilder {
 public:
  void Add(const RequestRecord& record);
  int64_t records() const { return summary_.requests_completed + summary_.requests_cancelled; }
  // Completes the summary; the builder is spent afterwards.
  RunSummary Build(const EngineCounters& counters);

 private:
  RunSummary summary_;
  std::vector<double> ttft_ms_, tpot_ms_, e2e_ms_, queueing_ms_;
  TimePoint first_arrival_ = TimePoint::max();
  TimePoint last_finish_ = kTimeZero;
};

// RunSummaryBuilder over `records`.
RunSummary SummarizeRun(std::span<const RequestRecord> records, const EngineCounters& counters);

}  // namespace efimsim
