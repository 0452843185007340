#pragma once
// One run: a workload (sim/run/workload.h, by name) replayed under one
// policy on one or more replicas of one engine behind a router, from set-up
// to summary. The CLI, tests and sweeps all go through RunExperiment.
//
// Clusters (replicas > 1): every replica has the full engine configuration
// (its own KV cache of the computed size); the summary sums the replicas'
// counters (steps, prefix-cache queries and hits, preemptions, evicted tokens,
// tokens computed), while its KV figures are per replica: kv_blocks_total
// is one replica's pool and kv_blocks_peak_used / peak_kv_usage are those of
// the fullest replica. summary.json then gains a "cluster" section with the
// router and each replica's requests, steps, hit rate and peak KV usage.
// Thread safety: RunExperiment shares no mutable state between calls, so
// sweeps may run many at once.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/latency/latency_model.h"
#include "models/latency/latency_model_registry.h"
#include "sim/client/completion_trigger.h"
#include "sim/metrics/request_record_sink.h"
#include "sim/metrics/run_info.h"
#include "sim/metrics/summary.h"
#include "sim/base/option_store.h"
#include "sim/engine/engine_config.h"
#include "traces/line_reader.h"
#include "traces/listed_trace_reader.h"
#include "traces/paper_workload.h"
#include "traces/shared_tokenizer.h"
#include "traces/trace_reader.h"
#include "traces/typing_workload.h"

namespace efimsim {

// A long run's progress, for reports on stderr.
struct RunProgress {
  double simulated_s = 0;      // simulated time reached
  int64_t requests_ended = 0;  // finished, cancelled or rejected so far
  int64_t events = 0;
  double wall_s = 0;           // host seconds since the run started
};

struct ExperimentConfig {
  std::string policy = "efim";
  std::string latency_model = "auto";  // measured kernels (--kernel-source) when the GPU has any, else the calibrated fallback
  // Tensor parallelism (GPUs per replica; the KV cache is sized per GPU),
  // and the kernel source or profile file of the latency model.
  LatencyModelOptions latency;
  std::string workload = "efim-paper";  // a registered workload (workload.h)
  EngineConfig engine;
  // Each engine's own settings and those of its optional parts (SGLang's
  // under "sglang", vLLM's CPU KV tier), set through the engine's option
  // tables (engines.h); the run never names them.
  OptionStore engine_options;
  // Each workload's own settings (sim/run/workload_options.h), keyed by
  // the workload's name: efim-paper's rounds and document sizes
  // (PaperWorkloadConfig), typing's population and behaviour
  // (TypingWorkloadConfig), the generators' (inference-perf, vllm-bench).
  OptionStore workload_options;
  CpuOverheadConfig cpu;            // cuda_graphs unused: RunLatencyConfig takes engine.cuda_graphs
  // Closed-loop users (--users: efim-paper's, one document each, and
  // typing's typists; capacity's users axis) and the seed of every random
  // stream of the run (--seed).
  int64_t users = 16;
  int64_t seed = 1;
  std::string documents = "auto";   // efim-paper: auto | synthetic | text
  std::string corpus_dir;           // text documents and typing sources; "": the pinned corpus
  std::string tokenizer_path;       // "": the cache scripts/fetch-tokenizer fills
  std::string trace_path;           // workload trace (with trace_in_memory: only its label)
  // trace: requests a command already holds, read instead of a file (shared
  // by copies of the config; validate-serving replays a real run this way).
  std::shared_ptr<const TraceInMemory> trace_in_memory;
  std::string trace_format = "auto";
  // Trace lines (or CSV records) longer than this are skipped and counted
  // (RunSummary::trace_lines_skipped), not read.
  int64_t max_line_bytes = kDefaultMaxLineBytes;
  double duration_s = 0;            // trace, typing: send nothing after this; 0 = no limit
  CompletionClientConfig completion;
  int64_t max_output_tokens = 128;
  // Output-length model spec, with per-policy overrides
  // (sim/client/output_length.h); "fixed": every request generates
  // max_output_tokens.
  std::string output_length = "fixed";
  double think_time_ms = 0;
  // Client-side time per request outside the engine (API server, tokenizer,
  // network), added to TTFT and E2E; 0: engine times only.
  double client_overhead_ms = 0;
  // The API server's modelled time outside the engine (sim/metrics/
  // frontend.h): "none", "default" (the engine's) or "US,US[,US]". Not none:
  // the summary adds client_* latencies beside the engine's.
  std::string frontend = "none";
  // efim-paper: "fixed" (every pause is think_time_ms; users start together
  // at t = 0) or "exponential" (each pause, the first included, drawn with
  // mean think_time_ms; see sim/client/closed_loop_client.h).
  std::string think_time_dist = "fixed";
  // Cluster: `replicas` identical replicas on one simulator behind a router
  // (sim/run/router.h: round-robin, least-outstanding, session-affinity).
  int64_t replicas = 1;
  std::string router = "round-robin";
  // Disaggregated prefill and decode (sim/run/disaggregated_router.h):
  // prefill_replicas > 0 splits the cluster into that many prefill replicas
  // and decode_replicas decode replicas (instead of `replicas`), the prefill
  // pool behind `router`'s policy, the decode pool behind decode_router's
  // (default the same); the decode replicas pull the prompt's KV over
  // a link of kv_link_gbps GB/s per GPU (x TP) after kv_link_latency_us.
  int64_t prefill_replicas = 0;
  int64_t decode_replicas = 1;
  std::string decode_router;  // the decode pool's policy; "": `router`'s
  double kv_link_gbps = 50;
  double kv_link_latency_us = 20;
  // The decode pool's own GPU and TP degree ("" and 0: --gpu's and --tp's);
  // its link rate is per GPU x its TP.
  std::string decode_gpu;
  int64_t decode_tp = 0;
  // The decode pool's own engine options, as command-line text
  // ("--max-num-seqs 512 --gpu-memory-utilization 0.95"): applied over the
  // run's (DecodePoolConfig); "": the run's. As a P/D deployment starts
  // each pool's servers with their own flags.
  std::string decode_engine_args;
  // The memory a run may use (sim/run/memory_budget.h); 0: 80% of this
  // machine's. A run whose estimate exceeds it is refused before it starts.
  double max_memory_gib = 0;
  // "": none. Otherwise a Chrome trace-event JSON of the run (steps per
  // replica, requests per session; sim/metrics/timeline_writer.h).
  std::string timeline_path;
  // Optional: a flag that, once true, stops the run with Interrupted.
  const std::atomic<bool>* interrupt = nullptr;
  // Optional: where request records stream, in request-id order, as
  // requests end; the result then keeps none (records stays empty), so a
  // run's memory does not grow with its length (see RunSummaryBuilder for
  // the little the summary keeps). Must outlive the call.
  RequestRecordSink* record_sink = nullptr;
  // Measure the run's host wall-clock time (from this call's start to the
  // summary; writing outputs not included) into summary.wall_s. With false
  // the result is a pure function of the config, byte for byte.
  bool record_wall_time = true;
  // Optional: called about every progress_interval_s of host time while the
  // simulation runs (never for a shorter run), on the calling thread.
  std::function<void(const RunProgress&)> progress;
  double progress_interval_s = 5;
  // Open-loop load. trace: arrival times (request records, session starts)
  // divided by rate_scale, edits keeping their offsets within a session
  // (traces/rate_scaled_trace_reader.h); 1 = as recorded.
  double rate_scale = 1;
  // typing: > 0 makes the population open: typing.sessions sessions arrive
  // as a Poisson process at this rate, each a new user who types one file
  // and leaves; 0 = the closed population of `users`.
  double session_rate_per_s = 0;
  // Optional: a tokenizer shared by many runs, loaded on first need; when
  // null, or for another path than tokenizer_path's, the run makes its own.
  // Either way it is loaded only if the workload needs text.
  std::shared_ptr<const SharedTokenizer> shared_tokenizer;
};

struct ExperimentResult {
  std::vector<RequestRecord> records;  // in request-id order; empty with a record_sink
  RunSummary summary;
  RunInfo info;                        // everything needed to reproduce the run
};

// Every replica of a run: `replicas`, or with disaggregated serving both
// pools (prefill_replicas + decode_replicas).
int64_t TotalReplicas(const ExperimentConfig& config);
// GPUs one deployment occupies: replicas x TP co-located; prefill replicas
// x TP + decode replicas x the decode pool's TP disaggregated.
int64_t DeploymentGpus(const ExperimentConfig& config);
// The decode pool's GPU and TP degree: --decode-gpu and --decode-tp where
// given, else --gpu's and --tp's.
std::string DecodeGpu(const ExperimentConfig& config);
int64_t DecodeTp(const ExperimentConfig& config);
// Whether the decode pool has a GPU, TP or engine options of its own
// (--decode-gpu, --decode-tp, --decode-engine-args).
bool DecodePoolDiffers(const ExperimentConfig& config);
// `config` as the decode pool runs it: its GPU and TP in --gpu's and --tp's
// places and --decode-engine-args applied (the same config when the pool
// has none of its own). Throws UsageError("--decode-engine-args: ...") for
// text that is not `--option value` pairs of the engine options it may set
// (DecodeEngineArgNames).
ExperimentConfig DecodePoolConfig(const ExperimentConfig& config);
// The options --decode-engine-args may set: the engine's, but for those
// the pools must share or that have their own --decode-* option.
std::vector<std::string> DecodeEngineArgNames(const ExperimentConfig& config);
// The optional requests.csv columns of a run: speculation's where its
// engine runs --speculative-config, the KV pulls' where it is
// disaggregated.
RequestColumns RequestColumnsFor(const ExperimentConfig& config);
// The policy of the replicas the client's tokens come from: --router, or
// with disaggregated serving --decode-router where given.
std::string DecodeRouter(const ExperimentConfig& config);

// Throws UsageError for bad settings, InputError for a bad trace,
// Interrupted when config.interrupt is raised (polled before the set-up,
// after it, and while the simulation runs); InternalError if an
// end-of-run invariant fails (every request finished, cancelled or
// rejected, every block back with reference count 0, no event left).
ExperimentResult RunExperiment(const ExperimentConfig& config);

// Throws Interrupted when config.interrupt is raised (nothing without a
// flag): the poll between runs, sweep points and capacity probes.
void PollInterrupt(const ExperimentConfig& config);
// PollInterrupt as a poll for long loads (the tokenizer, the code corpus).
tokenizer::StopPoll InterruptPoll(const ExperimentConfig& config);

// The checks RunExperiment makes before it runs anything, short of building
// the workload (no trace is read, no corpus tokenized): option ranges and
// values, the policy, model and GPU specs, the KV size, the latency model
// and the engine's own checks (--cpu-kv-gib under sglang, ...). Throws as
// RunExperiment would. Sweeps call it on every grid point first, so a bad
// combination fails before the first run, not in the middle.
void ValidateExperiment(const ExperimentConfig& config);

// The reader of config.trace_path as a run reads it: --trace-format,
// --max-line-bytes, long lines skipped; or of config.trace_in_memory when
// set. UsageError for a missing path or bad settings, InputError for the
// file.
std::unique_ptr<TraceReader> OpenWorkloadTrace(const ExperimentConfig& config);

// The latency model's whole configuration for a run: --latency-model and
// its tables, with the run's engine (whose kernels --kernel-source auto
// prefers) and its --cuda-graphs. The one place they are combined.
LatencyConfig RunLatencyConfig(const ExperimentConfig& config);

}  // namespace efimsim
