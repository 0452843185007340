#pragma once
// A workload: where a run's requests come from. Each is registered by name
// (`--workload`), builds what it needs from the run's configuration (its
// documents, prompt formats, trace reader) and then the client that sends
// its requests, and describes itself in the run's outputs. RunExperiment
// composes a workload, an engine and a router without naming any of them.
//
// Registered workloads:
//   efim-paper  the EFIM paper's closed-loop multi-round benchmark
//               (closed_loop_workload.cc): real code tokenized with the
//               Llama-3.1 tokenizer ("text") or synthetic token documents
//               ("synthetic"); "auto" takes text when the tokenizer is there
//               and the corpus has a document per user, and says which
//   trace       any trace file traces/trace_open.h reads, replayed open loop
//               (session_workload.cc)
//   typing      simulated users typing real files (traces/typing_workload.h;
//               session_workload.cc)
//   inference-perf  kubernetes-sigs/inference-perf's shared_prefix data
//               (optionally multi-turn chats) sent by its load stages
//               (inference_perf_workload.cc)
//   vllm-bench  vLLM bench serve's random and prefix_repetition datasets at
//               its request-rate schedule (vllm_bench_workload.cc)
// Editing sessions (trace, typing) become completion requests through the
// client model of CompletionClientConfig.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/formats/model_spec.h"
#include "sim/client/client.h"
#include "sim/client/client_request.h"
#include "sim/client/trace_replay_client.h"
#include "sim/client/policy.h"
#include "sim/core/simulator.h"
#include "sim/metrics/run_info.h"
#include "sim/run/experiment.h"
#include "sim/run/memory_budget.h"
#include "sim/run/run_params.h"
#include "traces/shared_tokenizer.h"
#include "traces/trace_reader.h"

namespace efimsim {

// What a workload is built from; references outlive the workload.
struct WorkloadContext {
  const ExperimentConfig& config;
  const PolicySpec& policy;
  const ModelSpec& model;
  // The run's tokenizer, loaded only if the workload needs text.
  std::shared_ptr<const SharedTokenizer> tokenizer;
  // Null when every request generates its cap (the default "fixed").
  const OutputLengthModel* output_length = nullptr;
};

class Workload {
 public:
  virtual ~Workload() = default;
  // Builds the workload's client, sending into `sink` on `simulator`, with
  // the context's output-length model set. Called once, before Start; the
  // workload owns the client, and everything passed must outlive it.
  virtual Client& MakeClient(Simulator& simulator, RequestSink& sink) = 0;
  // The "workload" section of the run's description: name, description,
  // documents, then the settings that shape this workload.
  virtual void Describe(std::vector<Setting>& settings) const = 0;
  // Sections only known after the run (the trace client's counters, BPE
  // boundary losses of real text). Default: none.
  virtual void DescribeResults(RunInfo& /*info*/) const {}
  // The trace the workload reads, for its skipped-line counts; null if none.
  virtual const TraceReader* trace() const { return nullptr; }
  // A fresh reader of the workload's open-loop arrivals as this run would
  // send them (at its --rate-scale), for capacity's arrival-rate search:
  // implemented by the workloads whose capacity axis is Rate::kArrivals.
  // Default: null.
  virtual std::unique_ptr<TraceReader> Arrivals() const { return nullptr; }
};

// What `capacity` can vary for a workload, declared in its registry entry
// (workload.cc), so that capacity never compares workload names.
struct WorkloadCapacityAxes {
  // Closed loop: the search sets --users. `rounds`: users send --rounds
  // rounds, so --warmup-rounds must leave at least one to judge.
  bool users = false;
  bool rounds = false;
  // Open loop: kArrivals scales the workload's own arrival schedule
  // (Workload::Arrivals, by --rate-scale); kSessions sets the arrival rate
  // of an open population of sessions (--session-rate).
  enum class Rate : uint8_t { kNone, kArrivals, kSessions };
  Rate rate = Rate::kNone;
};

// The axes of the workload registered as `name` (UsageError when none is).
WorkloadCapacityAxes CapacityAxes(const std::string& name);
// "a, b or c": the registered workloads whose axes satisfy `has`, for
// messages that say which workloads a search serves.
std::string WorkloadsWithAxis(bool (*has)(const WorkloadCapacityAxes& axes));

// The workload registered as `name`; UsageError naming the registered ones
// when none is. Workload-specific settings are checked here (UsageError).
std::unique_ptr<Workload> MakeWorkload(const std::string& name, const WorkloadContext& context);
// Registered names, in registration order.
std::vector<std::string> WorkloadNames();

// The trace-replay client of an open-loop workload reading `reader`, named
// `name` in outputs: the run's completion-client settings with its
// --max-tokens, sending nothing after --duration-s (when > 0). `builder`
// turns edits into text prompts; null for token-id records.
std::unique_ptr<TraceReplayClient> MakeTraceReplayClient(const ExperimentConfig& config,
                                                         Simulator& simulator, TraceReader& reader,
                                                         RequestSink& sink,
                                                         const TextPromptBuilder* builder,
                                                         const std::string& name);

// What the workload `config` names materialises before or during the run
// that grows with its options (vllm-bench's prompts, inference-perf's
// requests), estimated before anything is built (memory_budget.h); bytes 0
// for a workload that streams its requests.
MemoryItem WorkloadMemory(const ExperimentConfig& config);

// The factories behind the registry (one per workload file).
std::unique_ptr<Workload> MakeClosedLoopPaperWorkload(const WorkloadContext& context);
std::unique_ptr<Workload> MakeTraceWorkload(const WorkloadContext& context);
std::unique_ptr<Workload> MakeTypingWorkload(const WorkloadContext& context);
std::unique_ptr<Workload> MakeInferencePerfWorkload(const WorkloadContext& context);
std::unique_ptr<Workload> MakeVllmBenchWorkload(const WorkloadContext& context);
MemoryItem InferencePerfMemory(const ExperimentConfig& config);
MemoryItem VllmBenchMemory(const ExperimentConfig& config);

// The option tables of workloads that have their own (workload_options.h),
// in registration order; AllParamTables lists them after the shared ones.
std::vector<RunParamTable> WorkloadOptionTables();
std::vector<RunParamTable> InferencePerfOptionTables();
std::vector<RunParamTable> VllmBenchOptionTables();

}  // namespace efimsim
