#include "sim/serving/experiment.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "models/latency_model_registry.h"
#include "models/spec_catalog.h"
#include "sim/base/check.h"
#include "sim/base/errors.h"
#include "sim/client/closed_loop_client.h"
#include "sim/client/output_length.h"
#include "sim/client/policy.h"
#include "sim/client/round_prompter.h"
#include "sim/client/trace_replay_client.h"
#include "sim/serving/kv_capacity.h"
#include "sim/metrics/request_id_order.h"
#include "sim/metrics/timeline_writer.h"
#include "sim/serving/engines.h"
#include "sim/serving/replica.h"
#include "sim/serving/router.h"
#include "traces/code_corpus.h"
#include "traces/load_tokenizer.h"
#include "traces/rate_scaled_trace_reader.h"
#include "traces/text_paper_workload.h"
#include "traces/trace_open.h"

namespace efimsim {
namespace {

// Summarizes records as they come, keeps them (or streams them in id order
// to a sink), and tells the client that produced a request it is done.
class RunObserver : public RequestObserver {
 public:
  explicit RunObserver(RequestRecordSink* sink) {
    if (sink != nullptr) order.emplace(*sink);
  }
  ClosedLoopClient* closed_loop = nullptr;
  TraceReplayClient* trace = nullptr;
  Router* router = nullptr;
  TimelineWriter* timeline = nullptr;  // optional

  void OnRequestFinished(const RequestRecord& record) override { Ended(record); }
  void OnRequestCancelled(const RequestRecord& record) override { Ended(record); }
  void OnRequestRejected(const ClientRequest& request, const std::string& reason) override {
    ++rejected;
    if (first_rejection.empty()) {
      first_rejection = "request " + std::to_string(request.request_id) + ": " + reason;
    }
    if (order) order->Skip(request.request_id);
    Done(request.request_id, request.user);  // the user moves on
  }
  RunSummaryBuilder summary;
  std::vector<int64_t>* output_tokens = nullptr;  // optional: of completed requests
  std::vector<RequestRecord> records;       // without a sink
  std::optional<RequestIdOrder> order;      // with a sink
  int64_t rejected = 0;
  std::string first_rejection;

 private:
  void Ended(const RequestRecord& record) {
    summary.Add(record);
    if (output_tokens != nullptr && !record.cancelled) output_tokens->push_back(record.output_tokens);
    if (order) {
      order->Add(record);
    } else {
      records.push_back(record);
    }
    if (timeline != nullptr) timeline->AddRequest(record);
    Done(record.request_id, record.user);
  }
  void Done(uint64_t request_id, int64_t user) {
    // The router forgets the request first: the client may send the user's
    // next request (with a new id) from inside these calls.
    if (router != nullptr) router->OnRequestDone(request_id);
    if (closed_loop != nullptr) closed_loop->OnResponseComplete(user);
    if (trace != nullptr) trace->OnRequestDone(request_id);
  }
};

// Forwards each engine step to the timeline.
class TimelineStepObserver : public StepObserver {
 public:
  explicit TimelineStepObserver(TimelineWriter* timeline) : timeline_(timeline) {}
  void OnStep(const StepRecord& record) override {
    TimelineStep step;
    step.replica = record.replica;
    step.start = record.start;
    step.end = record.end;
    step.tokens = record.tokens;
    step.prefill_sequences = record.prefill_sequences;
    step.decode_sequences = record.decode_sequences;
    step.preempted = record.preempted;
    step.kv_used_blocks = record.kv_used_blocks;
    step.kv_total_blocks = record.kv_total_blocks;
    timeline_->AddStep(step);
  }

 private:
  TimelineWriter* timeline_;
};

// Cluster counters: sums, except the KV figures, which are those of one
// replica (pool size) and of the fullest replica (peak), so peak_kv_usage
// stays a fraction of one GPU's cache.
EngineCounters ClusterCounters(const std::vector<EngineCounters>& replicas) {
  EngineCounters total;
  for (const EngineCounters& r : replicas) {
    total.steps += r.steps;
    total.events += r.events;
    total.prefix_cache_lookups += r.prefix_cache_lookups;
    total.prefix_cache_query_tokens += r.prefix_cache_query_tokens;
    total.prefix_cache_hit_tokens += r.prefix_cache_hit_tokens;
    total.preemptions += r.preemptions;
    total.evicted_tokens += r.evicted_tokens;
    total.rejected_requests += r.rejected_requests;
    total.prefill_tokens_computed += r.prefill_tokens_computed;
    total.decode_tokens_computed += r.decode_tokens_computed;
    total.cpu_kv_blocks_total = std::max(total.cpu_kv_blocks_total, r.cpu_kv_blocks_total);
    total.cpu_kv_lookups += r.cpu_kv_lookups;
    total.cpu_kv_hit_blocks += r.cpu_kv_hit_blocks;
    total.cpu_kv_loads += r.cpu_kv_loads;
    total.cpu_kv_loaded_tokens += r.cpu_kv_loaded_tokens;
    total.cpu_kv_loaded_bytes += r.cpu_kv_loaded_bytes;
    total.cpu_kv_stored_blocks += r.cpu_kv_stored_blocks;
    total.cpu_kv_stored_bytes += r.cpu_kv_stored_bytes;
    total.cpu_kv_evictions += r.cpu_kv_evictions;
    total.cpu_kv_load_time_ns += r.cpu_kv_load_time_ns;
    total.kv_blocks_total = std::max(total.kv_blocks_total, r.kv_blocks_total);
    const double usage = r.kv_blocks_total > 0 ? static_cast<double>(r.kv_blocks_peak_used) /
                                                     static_cast<double>(r.kv_blocks_total)
                                               : 0.0;
    const double best = total.kv_blocks_total > 0
                            ? static_cast<double>(total.kv_blocks_peak_used) /
                                  static_cast<double>(total.kv_blocks_total)
                            : 0.0;
    if (usage > best) total.kv_blocks_peak_used = r.kv_blocks_peak_used;
  }
  return total;
}

// Everything one workload needs, owned for the run's duration.
struct WorkloadSetup {
  std::string name;
  std::string description;
  std::string documents;  // what the documents are, for outputs
  std::optional<tokenizer::BpeTokenizer> bpe;
  std::optional<CodeCorpus> corpus;
  std::unique_ptr<PaperWorkload> synthetic_paper;
  std::unique_ptr<TextPaperWorkload> text_paper;
  std::unique_ptr<PromptFormat> token_format;
  std::unique_ptr<TextPromptBuilder> text_builder;
  std::unique_ptr<RoundPrompter> prompter;
  std::unique_ptr<TraceReader> trace;
};

std::string TokenizerPath(const ExperimentConfig& config) {
  return TokenizerPathOrDefault(config.tokenizer_path);
}

// "2", "0.25": a rate scale as the user would write it.
std::string FormatRateScale(double scale) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", scale);
  return text;
}

// The run's tokenizer, not loaded yet: the shared one when it is for this
// run's path, else one of the run's own.
std::shared_ptr<const SharedTokenizer> RunTokenizer(const ExperimentConfig& config) {
  const std::string path = TokenizerPath(config);
  if (config.shared_tokenizer && config.shared_tokenizer->path() == path) {
    return config.shared_tokenizer;
  }
  return std::make_shared<const SharedTokenizer>(path);
}

void SetUpPaper(const ExperimentConfig& config, const PolicySpec& policy, const ModelSpec& model,
                const SharedTokenizer& tokenizer, WorkloadSetup& setup) {
  std::string documents = config.documents;
  std::string auto_reason;
  if (documents != "auto" && documents != "synthetic" && documents != "text") {
    throw UsageError("--documents: expected auto, synthetic or text, got '" + documents + "'");
  }
  const std::string tokenizer_path = TokenizerPath(config);
  if (documents == "auto") {
    documents = std::filesystem::exists(tokenizer_path) ? "text" : "synthetic";
    if (documents == "synthetic") auto_reason = " (no tokenizer at " + tokenizer_path + ")";
  }
  if (documents == "text" && config.documents == "auto") {
    // Fewer source files than users cannot give a document per user: say
    // so without loading the tokenizer and tokenizing the corpus (~1.3 s).
    CodeCorpusConfig probe;
    probe.directory = config.corpus_dir;
    const int64_t files = CodeCorpus::CountCandidateFiles(probe);
    if (files < config.workload_paper.users) {
      documents = "synthetic";
      auto_reason = " (the corpus directory has " + std::to_string(files) + " source files for " +
                    std::to_string(config.workload_paper.users) + " users)";
    }
  }
  if (documents == "text") {
    setup.bpe.emplace(tokenizer.Get());
    CodeCorpusConfig corpus_config;
    corpus_config.directory = config.corpus_dir;
    corpus_config.min_tokens = config.workload_paper.doc_min_tokens;
    corpus_config.max_tokens = config.workload_paper.doc_max_tokens;
    setup.corpus.emplace(CodeCorpus::Build(corpus_config, *setup.bpe));
    const int64_t available = static_cast<int64_t>(setup.corpus->documents().size());
    if (config.documents == "auto" && available < config.workload_paper.users) {
      documents = "synthetic";
      auto_reason = " (the corpus has " + std::to_string(available) + " documents for " +
                    std::to_string(config.workload_paper.users) + " users)";
    }
  }
  if (documents == "text") {
    TextPaperWorkloadConfig text_config;
    text_config.users = config.workload_paper.users;
    text_config.rounds = config.workload_paper.rounds;
    text_config.seed = static_cast<uint64_t>(config.workload_paper.seed);
    setup.text_paper = std::make_unique<TextPaperWorkload>(text_config, *setup.corpus, *setup.bpe);
    setup.text_builder =
        std::make_unique<TextPromptBuilder>(policy.prompt_format, *setup.bpe, model.tokens);
    setup.prompter = std::make_unique<TextRoundPrompter>(*setup.text_paper, *setup.text_builder);
    setup.name = "efim-paper";
    setup.description = setup.text_paper->Description();
    setup.documents = "real code (" + setup.corpus->directory() + "), Llama-3.1 tokenizer";
    if (model.name != "llama-3.1-8b") {
      setup.documents += "; note: tokenized with Llama-3.1's tokenizer, not " + model.name + "'s";
    }
  } else {
    PaperWorkloadConfig paper = config.workload_paper;
    paper.text_first = model.tokens.text_first;
    paper.text_last = model.tokens.text_last;
    setup.synthetic_paper = std::make_unique<PaperWorkload>(paper);
    setup.token_format = MakePromptFormat(policy.prompt_format, model.tokens);
    setup.prompter = std::make_unique<TokenRoundPrompter>(*setup.synthetic_paper, *setup.token_format);
    setup.name = "efim-paper";
    setup.description = setup.synthetic_paper->Description();
    setup.documents = "synthetic tokens" + auto_reason;
  }
}

// The text prompt builder of editing sessions, on the run's tokenizer.
const TextPromptBuilder* SetUpSessions(const PolicySpec& policy, const ModelSpec& model,
                                       const SharedTokenizer& tokenizer, WorkloadSetup& setup) {
  setup.bpe.emplace(tokenizer.Get());
  setup.text_builder =
      std::make_unique<TextPromptBuilder>(policy.prompt_format, *setup.bpe, model.tokens);
  return setup.text_builder.get();
}

void DescribeRun(const ExperimentConfig& config, const PolicySpec& policy,
                 const WorkloadSetup& setup, const ModelSpec& model, const GpuSpec& gpu,
                 const LatencyModel& latency, const KvCapacity& capacity,
                 const EngineEntry& engine, const EngineContext& engine_context,
                 bool default_output_length, RunInfo& info) {
  auto& p = info.Section("policy").settings;
  p.push_back({"name", policy.name});
  p.push_back({"prompt_format", policy.prompt_format});
  p.push_back({"prefix_caching", policy.prefix_caching});

  auto& w = info.Section("workload").settings;
  w.push_back({"name", setup.name});
  w.push_back({"description", setup.description});
  w.push_back({"documents", setup.documents});
  if (config.workload == "efim-paper") {
    w.push_back({"users", config.workload_paper.users});
    w.push_back({"rounds", config.workload_paper.rounds});
    w.push_back({"doc_min_tokens", config.workload_paper.doc_min_tokens});
    w.push_back({"doc_max_tokens", config.workload_paper.doc_max_tokens});
    w.push_back({"think_time_ms", config.think_time_ms});
    if (config.think_time_dist != "fixed") {
      w.push_back({"think_time_dist", config.think_time_dist});
    }
  } else {
    if (config.workload == "trace") {
      w.push_back({"trace", config.trace_path});
      w.push_back({"trace_format", config.trace_format});
      w.push_back({"max_line_bytes", config.max_line_bytes});
      if (config.rate_scale != 1) w.push_back({"rate_scale", config.rate_scale});
    } else if (config.session_rate_per_s > 0) {
      w.push_back({"population", std::string("open")});
      w.push_back({"session_rate_per_s", config.session_rate_per_s});
      w.push_back({"sessions", config.typing.sessions});
      w.push_back({"chars_per_second", config.typing.behavior.chars_per_second});
      w.push_back({"accept_probability", config.typing.behavior.accept_probability});
    } else {
      w.push_back({"users", config.workload_paper.users});
      w.push_back({"chars_per_second", config.typing.behavior.chars_per_second});
      w.push_back({"accept_probability", config.typing.behavior.accept_probability});
    }
    w.push_back({"duration_s", config.duration_s});
    w.push_back({"trigger", config.completion.trigger});
    w.push_back({"debounce_ms", config.completion.debounce_ms});
    w.push_back({"cancel_stale", config.completion.cancel_stale});
    w.push_back({"context_lines_before", config.completion.context_lines_before});
    w.push_back({"context_lines_after", config.completion.context_lines_after});
  }
  w.push_back({"max_output_tokens", config.max_output_tokens});
  if (default_output_length) {
    w.push_back({"output_length", std::string("always max_output_tokens (no early stop); trace "
                                              "requests use their recorded output length")});
  } else {
    w.push_back({"output_length", config.output_length});
  }
  w.push_back({"seed", config.workload_paper.seed});

  auto& m = info.Section("model").settings;
  m.push_back({"name", model.name});
  m.push_back({"weights_gib", static_cast<double>(model.WeightBytes()) / (1 << 30)});
  m.push_back({"kv_bytes_per_token", model.KvBytesPerToken()});

  auto& g = info.Section("gpu").settings;
  g.push_back({"name", gpu.name});
  g.push_back({"description", gpu.description});
  g.push_back({"memory_bytes", gpu.memory_bytes});

  auto& l = info.Section("latency_model").settings;
  l.push_back({"name", latency.Name()});
  l.push_back({"description", latency.Description()});
  l.push_back({"cpu_step_overhead_us", config.cpu.step_us});
  l.push_back({"cpu_per_sequence_overhead_us", config.cpu.per_sequence_us});
  l.push_back({"eager_launch_per_layer_us", config.cpu.eager_launch_per_layer_us});
  l.push_back({"graph_launch_us", config.cpu.graph_launch_us});

  auto& e = info.Section("engine").settings;
  engine.describe(engine_context, e);
  for (const auto& param : EngineParams()) {
    std::visit([&](auto member) { e.push_back({param.info.name, config.engine.*member}); },
               param.field);
  }
  e.push_back({"kv_blocks_effective", capacity.blocks});
  e.push_back({"kv_tokens_effective", capacity.tokens});
  e.push_back({"kv_cache_gib", capacity.kv_gib});
}

// What BPE boundaries cost the cache on real text: between consecutive
// rounds of a user, the segment that grows (the whole prefix for psm/spm,
// the increment after <MID> for efim) could be reused in full by
// characters, but only its common leading token run by tokens.
void DescribeBoundaryReuse(const TextPaperWorkload& workload, const PolicySpec& policy,
                           RunInfo& info) {
  int64_t by_characters = 0;
  int64_t by_tokens = 0;
  for (int64_t user = 0; user < workload.num_users(); ++user) {
    for (int64_t round = 1; round < workload.num_rounds(user); ++round) {
      const BoundaryReuse reuse = workload.AnalyzeBoundaryReuse(user, round);
      if (policy.prompt_format == "efim") {
        by_characters += reuse.previous_increment_tokens;
        by_tokens += reuse.common_increment_tokens;
      } else {
        by_characters += reuse.previous_prefix_tokens;
        by_tokens += reuse.common_prefix_tokens;
      }
    }
  }
  auto& b = info.Section("bpe_boundary").settings;
  b.push_back({"segment", std::string(policy.prompt_format == "efim"
                                          ? "increment after <MID>, between consecutive rounds"
                                          : "prefix, between consecutive rounds")});
  b.push_back({"reusable_by_characters_tokens", by_characters});
  b.push_back({"reusable_by_tokens_tokens", by_tokens});
  b.push_back({"lost_to_bpe_boundaries_tokens", by_characters - by_tokens});
}

// The output-length model and what it gave: output tokens of the completed
// requests (cancelled ones stopped early and are left out).
void DescribeOutputLengths(const OutputLengthModel& model, const std::vector<int64_t>& tokens,
                           RunInfo& info) {
  auto& o = info.Section("output_length").settings;
  o.push_back({"spec", model.spec().text});
  o.push_back({"model", model.Description()});
  const Distribution d = Summarize(std::vector<double>(tokens.begin(), tokens.end()));
  o.push_back({"completed_requests", d.count});
  o.push_back({"output_tokens_mean", d.mean});
  o.push_back({"output_tokens_p50", d.p50});
  o.push_back({"output_tokens_p90", d.p90});
  o.push_back({"output_tokens_max", static_cast<int64_t>(d.max)});
}

}  // namespace

std::unique_ptr<TraceReader> OpenWorkloadTrace(const ExperimentConfig& config) {
  if (config.trace_path.empty()) throw UsageError("--trace: the trace workload needs a file");
  TraceReadOptions options;
  const auto format = ParseTraceFormat(config.trace_format);
  if (!format) throw UsageError("--trace-format: unknown format '" + config.trace_format + "'");
  options.format = *format;
  if (config.max_line_bytes < 1) throw UsageError("--max-line-bytes: must be at least 1");
  options.max_line_bytes = config.max_line_bytes;
  options.long_lines = LongLinePolicy::kSkip;
  return OpenTrace(config.trace_path, options);
}

std::string DescribeLatencyModel(const ExperimentConfig& config) {
  CpuOverheadConfig cpu = config.cpu;
  cpu.cuda_graphs = config.engine.cuda_graphs;
  return MakeLatencyModel(config.latency_model, LoadModelSpec(config.engine.model),
                          LoadGpuSpec(config.engine.gpu), cpu)
      ->Description();
}

ExperimentResult RunExperiment(const ExperimentConfig& config) {
  const auto wall_start = std::chrono::steady_clock::now();
  const PolicySpec& policy = GetPolicy(config.policy);
  const ModelSpec model = LoadModelSpec(config.engine.model);
  const GpuSpec gpu = LoadGpuSpec(config.engine.gpu);
  if (config.max_output_tokens < 1) throw UsageError("--max-tokens: must be at least 1");
  if (config.think_time_ms < 0) throw UsageError("--think-time-ms: must be >= 0");
  if (config.think_time_dist != "fixed" && config.think_time_dist != "exponential") {
    throw UsageError("--think-time-dist: unknown distribution '" + config.think_time_dist +
                     "' (choose one of: fixed, exponential)");
  }
  // Only a policy whose output-length spec is not the default gets a model,
  // so default runs are exactly what they were before the option existed.
  std::unique_ptr<OutputLengthModel> output_length;
  std::vector<int64_t> output_tokens;  // of completed requests, with a model
  bool default_output_length = true;
  {
    const OutputLengthOption option = ParseOutputLengthOption(config.output_length);
    default_output_length = option.IsDefault();
    const OutputLengthSpec& spec = option.For(policy.name);
    if (!spec.IsDefault()) {
      output_length = std::make_unique<OutputLengthModel>(
          spec, config.max_output_tokens, static_cast<uint64_t>(config.workload_paper.seed));
      if (output_length->needs_line_context() && config.workload == "efim-paper") {
        throw UsageError("--output-length: eol needs editing sessions (--workload typing or "
                         "trace), not efim-paper");
      }
    }
  }
  if (config.duration_s < 0) throw UsageError("--duration-s: must be >= 0");
  const KvCapacity capacity = ComputeKvCapacity(config.engine, model, gpu);

  CpuOverheadConfig cpu = config.cpu;
  cpu.cuda_graphs = config.engine.cuda_graphs;
  const std::unique_ptr<LatencyModel> latency =
      MakeLatencyModel(config.latency_model, model, gpu, cpu);

  if (config.rate_scale != 1 && config.workload != "trace") {
    throw UsageError("--rate-scale: only for --workload trace (typing's open population takes "
                     "--session-rate)");
  }
  if (config.session_rate_per_s != 0 && config.workload != "typing") {
    throw UsageError("--session-rate: only for --workload typing");
  }
  if (!(config.session_rate_per_s >= 0) || !std::isfinite(config.session_rate_per_s)) {
    throw UsageError("--session-rate: must be >= 0 (0 = closed population)");
  }
  const std::shared_ptr<const SharedTokenizer> tokenizer = RunTokenizer(config);
  WorkloadSetup setup;
  if (config.workload == "efim-paper") {
    SetUpPaper(config, policy, model, *tokenizer, setup);
  } else if (config.workload == "trace") {
    setup.trace = OpenWorkloadTrace(config);
    setup.name = "trace";
    setup.description = "trace " + config.trace_path + " (" + setup.trace->header().source + ")";
    if (config.rate_scale != 1) {
      setup.trace = std::make_unique<RateScaledTraceReader>(std::move(setup.trace),
                                                            config.rate_scale);
      setup.description += ", arrivals at " + FormatRateScale(config.rate_scale) +
                           "x the recorded rate";
    }
    setup.documents = "as recorded in the trace";
    // The tokenizer is loaded at the first editing session, if any.
  } else if (config.workload == "typing") {
    TypingWorkloadConfig typing = config.typing;
    typing.users = config.workload_paper.users;
    typing.seed = static_cast<uint64_t>(config.workload_paper.seed);
    typing.source_dir = config.corpus_dir;
    if (config.session_rate_per_s > 0) {
      typing.population = TypingPopulation::kOpen;
      typing.session_rate_per_s = config.session_rate_per_s;
    }
    auto generator = std::make_unique<TypingWorkload>(typing);
    setup.name = "typing";
    setup.description = "typing: " + std::to_string(typing.users) + " users typing real files at " +
                        std::to_string(typing.behavior.chars_per_second) + " chars/s";
    if (typing.population == TypingPopulation::kOpen) {
      setup.description = "typing: open population, " + std::to_string(typing.sessions) +
                          " sessions arriving at " + std::to_string(typing.session_rate_per_s) +
                          "/s (Poisson), typing real files at " +
                          std::to_string(typing.behavior.chars_per_second) + " chars/s";
    }
    setup.documents = "real code, Llama-3.1 tokenizer";
    setup.trace = std::move(generator);
    SetUpSessions(policy, model, *tokenizer, setup);
  } else {
    throw UsageError("--workload: unknown workload '" + config.workload +
                     "' (choose one of: efim-paper, trace, typing)");
  }

  ValidateSglangConfig(config.sglang);
  const EngineEntry& engine = Engines().Get(config.sglang.engine);
  const EngineContext engine_context{config.engine, config.sglang, config.cpu_kv, model,
                                     gpu,           capacity,      policy.prefix_caching};
  engine.validate(engine_context);
  if (config.replicas < 1) throw UsageError("--replicas: must be at least 1");
  if (config.replicas > 4096) throw UsageError("--replicas: at most 4096");
  std::unique_ptr<RoutingPolicy> routing = MakeRoutingPolicy(config.router);

  ReplicaConfig replica_config;
  replica_config.check_invariants = config.engine.check_invariants;
  replica_config.output_token_first = model.tokens.text_first;
  replica_config.output_token_last = model.tokens.text_last;

  Simulator simulator;
  simulator.set_interrupt_flag(config.interrupt);
  std::unique_ptr<TimelineWriter> timeline;
  if (!config.timeline_path.empty()) {
    timeline = std::make_unique<TimelineWriter>(config.timeline_path,
                                                static_cast<int32_t>(config.replicas));
  }
  TimelineStepObserver timeline_steps(timeline.get());
  RunObserver observer(config.record_sink);
  if (output_length) observer.output_tokens = &output_tokens;
  observer.timeline = timeline.get();
  std::vector<std::unique_ptr<EngineReplica>> replicas;
  std::vector<EngineReplica*> replica_pointers;
  for (int64_t i = 0; i < config.replicas; ++i) {
    replica_config.replica_index = static_cast<int32_t>(i);
    replicas.push_back(std::make_unique<Replica>(simulator, replica_config,
                                                 engine.make(engine_context), *latency, observer));
    if (timeline) replicas.back()->set_step_observer(&timeline_steps);
    replica_pointers.push_back(replicas.back().get());
  }
  Router router(replica_pointers, std::move(routing));
  observer.router = &router;

  std::unique_ptr<ClosedLoopClient> closed_loop;
  std::unique_ptr<TraceReplayClient> trace_client;
  if (setup.prompter) {
    ClosedLoopConfig client_config;
    client_config.max_output_tokens = config.max_output_tokens;
    client_config.think_time = FromSeconds(config.think_time_ms / 1000.0);
    client_config.exponential_think_time = config.think_time_dist == "exponential";
    client_config.seed = static_cast<uint64_t>(config.workload_paper.seed);
    closed_loop = std::make_unique<ClosedLoopClient>(simulator, *setup.prompter, router,
                                                     client_config);
    observer.closed_loop = closed_loop.get();
    closed_loop->set_output_length(output_length.get());
    closed_loop->Start();
  } else {
    CompletionClientConfig completion = config.completion;
    completion.max_output_tokens = config.max_output_tokens;
    const TimePoint stop = config.duration_s > 0 ? TimePoint{FromSeconds(config.duration_s)}
                                                 : TimePoint::max();
    trace_client = std::make_unique<TraceReplayClient>(
        simulator, *setup.trace, router, setup.text_builder.get(), completion,
        config.workload == "trace" ? config.trace_path : setup.name, stop);
    observer.trace = trace_client.get();
    trace_client->set_output_length(output_length.get());
    if (!setup.text_builder) {
      // A trace's first editing session loads the tokenizer; without one
      // (no file), the client reports that sessions need it.
      trace_client->set_builder_source([&]() -> const TextPromptBuilder* {
        if (!std::filesystem::exists(tokenizer->path())) return nullptr;
        return SetUpSessions(policy, model, *tokenizer, setup);
      });
    }
    trace_client->Start();
  }
  if (config.progress) {
    auto last_report = wall_start;
    simulator.set_periodic_hook([&] {
      const auto now = std::chrono::steady_clock::now();
      if (std::chrono::duration<double>(now - last_report).count() < config.progress_interval_s) {
        return;
      }
      last_report = now;
      RunProgress progress;
      progress.simulated_s = ToSeconds(simulator.Now().time_since_epoch());
      progress.requests_ended = observer.summary.records() + observer.rejected;
      progress.events = static_cast<int64_t>(simulator.events_handled());
      progress.wall_s = std::chrono::duration<double>(now - wall_start).count();
      config.progress(progress);
    });
  }
  simulator.Run();

  // End-of-run invariants.
  EFIMSIM_CHECK(simulator.pending_events() == 0, "events left in the queue");
  for (const auto& replica : replicas) {
    EFIMSIM_CHECK(replica->idle(), "requests left unfinished");
  }
  if (closed_loop) {
    EFIMSIM_CHECK(closed_loop->users_done() == setup.prompter->num_users(), "a user did not finish");
    EFIMSIM_CHECK(observer.summary.records() + observer.rejected == closed_loop->requests_sent(),
                  "finished + rejected != sent");
  } else {
    EFIMSIM_CHECK(trace_client->requests_in_flight() == 0, "a trace request was never answered");
  }
  for (const auto& replica : replicas) {
    EFIMSIM_CHECK(replica->kv_all_free(), "KV blocks not returned to the pool");
    replica->CheckInvariants();
  }
  if (observer.order) observer.order->Finish();
  if (timeline) timeline->Commit();

  ExperimentResult result;
  result.records = std::move(observer.records);
  std::sort(result.records.begin(), result.records.end(),
            [](const RequestRecord& a, const RequestRecord& b) { return a.request_id < b.request_id; });
  std::vector<EngineCounters> per_replica;
  for (const auto& replica : replicas) per_replica.push_back(replica->Counters());
  EngineCounters counters = ClusterCounters(per_replica);
  counters.events = static_cast<int64_t>(simulator.events_handled());
  result.summary = observer.summary.Build(counters);
  if (config.record_wall_time) {
    result.summary.wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  }
  result.summary.efim_rebases =
      closed_loop ? closed_loop->rebases() : trace_client->stats().efim_rebases;
  DescribeRun(config, policy, setup, model, gpu, *latency, capacity, engine, engine_context,
              default_output_length, result.info);
  if (output_length) DescribeOutputLengths(*output_length, output_tokens, result.info);
  if (engine.describe_parts != nullptr) engine.describe_parts(engine_context, result.info);
  if (setup.text_paper) DescribeBoundaryReuse(*setup.text_paper, policy, result.info);
  if (trace_client) {
    auto& client = result.info.Section("client").settings;
    const TraceReplayStats stats = trace_client->stats();
    client.push_back({"request_records", stats.request_records});
    client.push_back({"sessions", stats.sessions});
    client.push_back({"text_edits", stats.edits});
    client.push_back({"completion_requests", stats.completion_requests});
    client.push_back({"stale_requests_cancelled", stats.cancel_requests});
  }
  if (config.replicas > 1) {
    auto& c = result.info.Section("cluster").settings;
    c.push_back({"replicas", config.replicas});
    c.push_back({"router", config.router});
    c.push_back({"kv_figures", std::string("per replica: kv_blocks_total is one replica's pool, "
                                           "peak KV is the fullest replica's")});
    for (size_t i = 0; i < per_replica.size(); ++i) {
      const EngineCounters& r = per_replica[i];
      const std::string prefix = "replica_" + std::to_string(i) + "_";
      c.push_back({prefix + "requests", router.routed()[i]});
      c.push_back({prefix + "steps", r.steps});
      c.push_back({prefix + "prefix_cache_hit_rate",
                   r.prefix_cache_query_tokens > 0
                       ? static_cast<double>(r.prefix_cache_hit_tokens) /
                             static_cast<double>(r.prefix_cache_query_tokens)
                       : 0.0});
      c.push_back({prefix + "peak_kv_usage",
                   r.kv_blocks_total > 0 ? static_cast<double>(r.kv_blocks_peak_used) /
                                               static_cast<double>(r.kv_blocks_total)
                                         : 0.0});
    }
  }
  if (setup.trace) {
    const TraceReader::SkippedLines& skipped = setup.trace->skipped_lines();
    result.summary.trace_lines_skipped = skipped.lines;
    result.summary.trace_records_dropped = skipped.dependent_records;
    if (skipped.lines > 0) {
      result.info.Section("warnings").settings.push_back(
          {"trace_lines_skipped",
           config.trace_path + ":" + std::to_string(skipped.first_line) + ": " +
               skipped.first_what + " on a line over --max-line-bytes " +
               std::to_string(config.max_line_bytes) + " (" + std::to_string(skipped.lines) +
               " line(s) skipped, " + std::to_string(skipped.dependent_records) +
               " dependent record(s) dropped)"});
    }
  }
  if (observer.rejected > 0) {
    result.info.Section("warnings").settings.push_back(
        {"rejected_requests", observer.first_rejection + " (and " +
                                  std::to_string(observer.rejected - 1) + " more)"});
  }
  return result;
}

}  // namespace efimsim
