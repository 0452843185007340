#pragma once
// A run's summary statistics (docs/semantics.md §7), computed from its request
// records and the engine's counters.
//
// Distributions and their percentiles: distribution.h.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/metrics/distribution.h"
#include "sim/metrics/frontend.h"
#include "sim/metrics/request_record.h"
#include "sim/metrics/run_info.h"
#include "sim/metrics/sample_series.h"

namespace efimsim {


// A counter of an engine's optional part, by a name the engine gives it
// (unique in a run), with how a cluster combines its replicas' values.
struct PartCounter {
  enum class Combine : uint8_t {
    kSum,  // events and amounts (loads, bytes)
    kMax,  // sizes of one replica (a tier's capacity)
  };
  std::string name;
  int64_t value = 0;
  Combine combine = Combine::kSum;
};

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
  Duration busy{0};                     // sum of step durations (the GPU's busy time)
  // Counters of an engine's optional parts (vLLM's CPU KV tier), named by
  // the engine; empty for a run without such parts.
  std::vector<PartCounter> parts;

  // Adds one replica's counters into a cluster's: sums, except the KV
  // figures, which stay those of one replica (pool size) and of the fullest
  // replica (peak), so peak_kv_usage stays a fraction of one GPU's cache;
  // part counters combine as each says. A field added above must be added
  // here.
  void Add(const EngineCounters& replica);

  // The part counter `name`, 0 when the run has none.
  int64_t part(const std::string& name) const;
};

struct RunSummary {
  int64_t requests_completed = 0;   // finished, not cancelled
  int64_t requests_cancelled = 0;
  Duration makespan{0};             // first arrival -> last completion
  Distribution ttft_ms, tpot_ms, e2e_ms, queueing_ms;  // the engine's (plus --client-overhead-ms)
  // With a frontend (--frontend, sim/metrics/frontend.h): what a benchmark
  // client sees, engine times plus the frontend's; absent without one.
  std::optional<Distribution> client_ttft_ms, client_tpot_ms, client_e2e_ms;
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
  // Sections the engine's optional parts add under summary.json's
  // "results" (EngineEntry::summarize_parts), in order; empty without.
  std::vector<RunInfoSection> part_results;
  // Host wall-clock seconds of the run (set-up through the last event), or
  // absent. The only figure of a run that is not a function of its inputs.
  std::optional<double> wall_s;
};

// Builds a RunSummary from records given one at a time, in any order. It
// keeps the latency samples that exact percentiles need (SampleSeries: in
// memory up to a bound, then in sorted runs in a temporary file), never the
// records themselves.
class RunSummaryBuilder {
 public:
  // Adds client-side latencies (RunSummary::client_*) under `frontend`;
  // call before the first Add. Without it (or with "none") there are none.
  void SetFrontend(const FrontendCosts& frontend) { frontend_ = frontend; }
  void Add(const RequestRecord& record);
  int64_t records() const { return summary_.requests_completed + summary_.requests_cancelled; }
  // Completes the summary; the builder is spent afterwards.
  RunSummary Build(const EngineCounters& counters);

 private:
  RunSummary summary_;
  SampleSeries ttft_ms_, tpot_ms_, e2e_ms_, queueing_ms_;
  FrontendCosts frontend_;
  SampleSeries client_ttft_ms_, client_tpot_ms_, client_e2e_ms_;
  TimePoint first_arrival_ = TimePoint::max();
  TimePoint last_finish_ = kTimeZero;
};

// RunSummaryBuilder over `records`, with client-side latencies under
// `frontend` when it is enabled.
RunSummary SummarizeRun(std::span<const RequestRecord> records, const EngineCounters& counters,
                        const FrontendCosts& frontend = FrontendCosts{});

}  // namespace efimsim
