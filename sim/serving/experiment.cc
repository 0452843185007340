#include "sim/serving/experiment.h"

#include <climits>

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
#include "sim/client/output_length.h"
#include "sim/client/policy.h"
#include "sim/serving/kv_capacity.h"
#include "sim/serving/run_params.h"
#include "sim/metrics/request_id_order.h"
#include "sim/metrics/timeline_writer.h"
#include "sim/serving/replica.h"
#include "sim/serving/sglang_replica.h"
#include "sim/serving/router.h"
#include "sim/serving/workload.h"
#include "traces/load_tokenizer.h"
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
  Client* client = nullptr;
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
    if (client != nullptr) client->OnRequestEnded(request_id, user);
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

// The cluster's counters (EngineCounters::Add over the replicas).
EngineCounters ClusterCounters(const std::vector<EngineCounters>& replicas) {
  EngineCounters total;
  for (const EngineCounters& r : replicas) total.Add(r);
  return total;
}

std::string TokenizerPath(const ExperimentConfig& config) {
  return TokenizerPathOrDefault(config.tokenizer_path);
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

// SGLang's limits with its hardware-derived defaults resolved.
SglangLimits ResolveSglangLimits(const ExperimentConfig& config, const ModelSpec& model,
                                 const KvCapacity& capacity) {
  SglangLimits limits;
  limits.chunked_prefill_size = config.sglang.chunked_prefill_size > 0
                                    ? config.sglang.chunked_prefill_size
                                    : SglangDefaultChunkedPrefill(capacity.memory_gib);
  limits.max_running_requests =
      config.sglang.max_running_requests > 0
          ? config.sglang.max_running_requests
          : SglangDefaultMaxRunning(capacity.tokens, model.max_context_tokens);
  limits.max_prefill_tokens = config.sglang.max_prefill_tokens;
  limits.lpm = config.sglang.schedule_policy == "lpm";
  limits.schedule_conservativeness = config.sglang.schedule_conservativeness;
  return limits;
}

void DescribeSglang(const ExperimentConfig& config, const ModelSpec& model,
                    const KvCapacity& capacity, std::vector<Setting>& e) {
  const SglangLimits limits = ResolveSglangLimits(config, model, capacity);
  e.push_back({"name", std::string("sglang")});
  e.push_back({"semantics",
               std::string("SGLang 0.5.3 scheduler and RadixCache, synchronous (no overlap "
                           "scheduling): prefill batches before decode, lpm/fcfs order, "
                           "new_token_ratio admission, chunked prefill, retraction; token-level "
                           "radix prefix cache with LRU leaf eviction; max-num-batched-tokens, "
                           "max-num-seqs and block-tokens do not apply (block-tokens only sizes "
                           "KV figures); evictions counts tokens")});
  for (const auto& param : SglangParams()) {
    if (param.info.name == "engine") continue;
    std::visit([&](auto member) { e.push_back({param.info.name, config.sglang.*member}); },
               param.field);
  }
  e.push_back({"chunked_prefill_size_effective", limits.chunked_prefill_size});
  e.push_back({"max_running_requests_effective", limits.max_running_requests});
}

void DescribeRun(const ExperimentConfig& config, const PolicySpec& policy,
                 const Workload& workload, const ModelSpec& model, const GpuSpec& gpu,
                 const LatencyModel& latency, const KvCapacity& capacity,
                 bool default_output_length, RunInfo& info) {
  auto& p = info.Section("policy").settings;
  p.push_back({"name", policy.name});
  p.push_back({"prompt_format", policy.prompt_format});
  p.push_back({"prefix_caching", policy.prefix_caching});

  auto& w = info.Section("workload").settings;
  workload.Describe(w);
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
  if (capacity.tensor_parallel > 1) {
    m.push_back({"weights_gib_per_gpu", capacity.weights_gib});
    m.push_back({"kv_bytes_per_token_per_gpu", capacity.kv_bytes_per_token});
  }

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
  for (Setting& s : NonDefaultQuietSettings(config, kLatencyGroup)) l.push_back(std::move(s));

  auto& e = info.Section("engine").settings;
  if (config.sglang.engine == "sglang") {
    DescribeSglang(config, model, capacity, e);
  } else {
    e.push_back({"name", std::string("vllm_v1")});
    e.push_back({"semantics", std::string("vLLM v1 engine, 0.9-0.10 series: synchronous "
                                          "scheduling, FCFS, chunked prefill, recompute "
                                          "preemption, automatic prefix caching")});
  }
  for (const auto& param : EngineParams()) {
    std::visit([&](auto member) { e.push_back({param.info.name, config.engine.*member}); },
               param.field);
  }
  e.push_back({"kv_blocks_effective", capacity.blocks});
  e.push_back({"kv_tokens_effective", capacity.tokens});
  e.push_back({"kv_cache_gib", capacity.kv_gib});
}

// The CPU KV tier's settings (sim/serving/cpu_kv_tier_config.h), written
// into the replica's config; the tier exists only with cpu_kv_gib > 0.
struct CpuKvTierSetup {
  double offload_gbps = 0;
  std::string offload_source;
};

CpuKvTierSetup SetUpCpuKvTier(const ExperimentConfig& config, const ModelSpec& model,
                              const GpuSpec& gpu, ReplicaConfig& replica) {
  CpuKvTierSetup setup;
  const HostLinkDefault link = DefaultHostLink(gpu);
  if (config.cpu_kv.cpu_kv_gib > 0 && config.cpu_kv.offload_gbps <= 0 && link.gbps <= 0) {
    throw UsageError("--cpu-kv-gib: GPU spec " + gpu.name +
                     " has no host_link_gbps; give the link's rate with --offload-gbps");
  }
  setup.offload_gbps = config.cpu_kv.offload_gbps > 0 ? config.cpu_kv.offload_gbps : link.gbps;
  setup.offload_source = config.cpu_kv.offload_gbps > 0 ? std::string("--offload-gbps") : link.source;
  replica.kv_bytes_per_block = config.engine.block_tokens * model.KvBytesPerToken();
  replica.cpu_kv_blocks = CpuKvTierBlocks(config.cpu_kv, replica.kv_bytes_per_block);
  if (config.cpu_kv.cpu_kv_gib > 0 && replica.cpu_kv_blocks < 1) {
    throw UsageError("--cpu-kv-gib: " + std::to_string(config.cpu_kv.cpu_kv_gib) +
                     " GiB holds no KV block of " + std::to_string(replica.kv_bytes_per_block) +
                     " bytes");
  }
  if (replica.cpu_kv_blocks > INT32_MAX) {
    throw UsageError("--cpu-kv-gib: more than 2^31-1 blocks");
  }
  replica.offload_bytes_per_s = setup.offload_gbps * 1e9;
  replica.offload_latency = FromSeconds(config.cpu_kv.offload_latency_us * 1e-6);
  return setup;
}

void DescribeCpuKvTier(const ExperimentConfig& config, const PolicySpec& policy,
                       const CpuKvTierSetup& setup, RunInfo& info) {
  auto& t = info.Section("cpu_kv_tier").settings;
  t.push_back({"semantics",
               std::string("vLLM 0.11-0.12 OffloadingConnector with the CPU backend and LRU: "
                           "write-through stores of full blocks, lookup after the GPU prefix "
                           "hit, asynchronous loads (the request waits, others run); "
                           "sim/README.md \"CPU KV tier\"")});
  t.push_back({"active", policy.prefix_caching});
  t.push_back({"cpu_kv_gib", config.cpu_kv.cpu_kv_gib});
  t.push_back({"offload_gbps", setup.offload_gbps});
  t.push_back({"offload_gbps_source", setup.offload_source});
  t.push_back({"offload_latency_us", config.cpu_kv.offload_latency_us});
  t.push_back({"store_transfers", std::string("not charged: GPU -> host copies assumed hidden "
                                              "behind steps (counted in bytes only)")});
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
  // Traces that carry block hashes (Mooncake) are expanded into keys of the
  // engine's own block size, so they match the blocks the engine caches.
  options.mooncake_block_key_tokens = config.engine.block_tokens;
  return OpenTrace(config.trace_path, options);
}

std::string DescribeLatencyModel(const ExperimentConfig& config) {
  CpuOverheadConfig cpu = config.cpu;
  cpu.cuda_graphs = config.engine.cuda_graphs;
  return MakeLatencyModel(config.latency_model, LoadModelSpec(config.engine.model),
                          LoadGpuSpec(config.engine.gpu), cpu, config.latency)
      ->Description();
}

ExperimentResult RunExperiment(const ExperimentConfig& config) {
  const auto wall_start = std::chrono::steady_clock::now();
  const PolicySpec& policy = GetPolicy(config.policy);
  CheckRunParams(config);  // ranges and allowed values, as the option tables declare them
  const ModelSpec model = LoadModelSpec(config.engine.model);
  const GpuSpec gpu = LoadGpuSpec(config.engine.gpu);
  if (config.max_output_tokens < 1) throw UsageError("--max-tokens: must be at least 1");
  if (config.think_time_ms < 0) throw UsageError("--think-time-ms: must be >= 0");
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
    }
  }
  if (config.duration_s < 0) throw UsageError("--duration-s: must be >= 0");
  const KvCapacity capacity =
      ComputeKvCapacity(config.engine, model, gpu, config.latency.tensor_parallel);

  CpuOverheadConfig cpu = config.cpu;
  cpu.cuda_graphs = config.engine.cuda_graphs;
  const std::unique_ptr<LatencyModel> latency =
      MakeLatencyModel(config.latency_model, model, gpu, cpu, config.latency);

  if (!(config.session_rate_per_s >= 0) || !std::isfinite(config.session_rate_per_s)) {
    throw UsageError("--session-rate: must be >= 0 (0 = closed population)");
  }
  const WorkloadContext workload_context{config, policy, model, RunTokenizer(config),
                                         output_length.get()};
  const std::unique_ptr<Workload> workload = MakeWorkload(config.workload, workload_context);

  if (config.sglang.engine == "sglang" && config.cpu_kv.cpu_kv_gib > 0) {
    throw UsageError("--cpu-kv-gib: the CPU KV tier models vLLM's offloading connector and "
                     "applies to --engine vllm_v1 only (SGLang's host cache is not modelled)");
  }
  if (config.replicas < 1) throw UsageError("--replicas: must be at least 1");
  if (config.replicas > 4096) throw UsageError("--replicas: at most 4096");
  std::unique_ptr<RoutingPolicy> routing = MakeRoutingPolicy(config.router);

  ReplicaConfig replica_config;
  replica_config.limits = {config.engine.max_num_batched_tokens, config.engine.max_num_seqs};
  replica_config.block_tokens = static_cast<int32_t>(config.engine.block_tokens);
  replica_config.num_blocks = static_cast<int32_t>(capacity.blocks);
  replica_config.prefix_caching = policy.prefix_caching;
  replica_config.check_invariants = config.engine.check_invariants;
  replica_config.max_context_tokens = model.max_context_tokens;
  replica_config.output_token_first = model.tokens.text_first;
  replica_config.output_token_last = model.tokens.text_last;
  const CpuKvTierSetup cpu_kv = SetUpCpuKvTier(config, model, gpu, replica_config);

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
  SglangReplicaConfig sglang_config;
  if (config.sglang.engine == "sglang") {
    sglang_config.limits = ResolveSglangLimits(config, model, capacity);
    sglang_config.block_tokens = replica_config.block_tokens;
    sglang_config.num_blocks = replica_config.num_blocks;
    sglang_config.page_size = static_cast<int32_t>(config.sglang.page_size);
    sglang_config.prefix_caching = policy.prefix_caching;
    sglang_config.check_invariants = config.engine.check_invariants;
    sglang_config.max_context_tokens = model.max_context_tokens;
    sglang_config.output_token_first = model.tokens.text_first;
    sglang_config.output_token_last = model.tokens.text_last;
  }
  for (int64_t i = 0; i < config.replicas; ++i) {
    replica_config.replica_index = static_cast<int32_t>(i);
    if (config.sglang.engine == "sglang") {
      sglang_config.replica_index = static_cast<int32_t>(i);
      replicas.push_back(
          std::make_unique<SglangReplica>(simulator, sglang_config, *latency, observer));
    } else {
      replicas.push_back(std::make_unique<Replica>(simulator, replica_config, *latency, observer));
    }
    if (timeline) replicas.back()->set_step_observer(&timeline_steps);
    replica_pointers.push_back(replicas.back().get());
  }
  Router router(replica_pointers, std::move(routing));
  observer.router = &router;

  Client& client = workload->MakeClient(simulator, router);
  observer.client = &client;
  client.Start();
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
  client.CheckDrained(observer.summary.records() + observer.rejected);
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
  result.summary.efim_rebases = client.efim_rebases();
  DescribeRun(config, policy, *workload, model, gpu, *latency, capacity, default_output_length,
              result.info);
  if (output_length) DescribeOutputLengths(*output_length, output_tokens, result.info);
  if (replica_config.cpu_kv_blocks > 0) DescribeCpuKvTier(config, policy, cpu_kv, result.info);
  workload->DescribeResults(result.info);
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
  if (const TraceReader* trace = workload->trace()) {
    const TraceReader::SkippedLines& skipped = trace->skipped_lines();
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
