// The composition root of one run: what it is made of (RunParts, checked
// before anything runs), the replicas behind a router, the client, the
// simulation, the end-of-run invariants and the summary. It names no
// engine, workload or client: each comes from its registry.
#include "sim/run/experiment.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <optional>
#include <set>
#include <sstream>

#include "models/latency/latency_model_registry.h"
#include "models/formats/spec_catalog.h"
#include "sim/base/check.h"
#include "sim/base/errors.h"
#include "sim/engine/data_parallel_group.h"
#include "sim/engine/engines.h"
#include "sim/engine/kv_capacity.h"
#include "sim/engine/replica.h"
#include "sim/metrics/frontend.h"
#include "sim/run/disaggregated_router.h"
#include "sim/run/router.h"
#include "sim/run/run_description.h"
#include "sim/run/run_observer.h"
#include "sim/run/run_params.h"
#include "sim/run/workload.h"
#include "traces/load_tokenizer.h"
#include "traces/trace_open.h"

namespace efimsim {
namespace {

using Clock = std::chrono::steady_clock;

// The run's tokenizer, not loaded yet: the shared one when it is for this
// run's path, else one of the run's own.
std::shared_ptr<const SharedTokenizer> RunTokenizer(const ExperimentConfig& config) {
  const std::string path = TokenizerPathOrDefault(config.tokenizer_path);
  if (config.shared_tokenizer && config.shared_tokenizer->path() == path) {
    return config.shared_tokenizer;
  }
  return std::make_shared<const SharedTokenizer>(path);
}

// Only a policy whose output-length spec is not the default gets a model,
// so default runs are exactly what they were before the option existed.
std::unique_ptr<OutputLengthModel> MakeOutputLength(const ExperimentConfig& config,
                                                    const OutputLengthOption& option,
                                                    const PolicySpec& policy) {
  const OutputLengthSpec& spec = option.For(policy.name);  // a reference into `option`
  if (spec.IsDefault()) return nullptr;
  return std::make_unique<OutputLengthModel>(spec, config.max_output_tokens,
                                             static_cast<uint64_t>(config.seed));
}

// The model as the run serves it: --max-model-len (vLLM's) caps its context.
ModelSpec RunModel(const ExperimentConfig& config) {
  ModelSpec model = LoadServedModel(config.engine);
  if (config.engine.max_model_len > 0) model.max_context_tokens = config.engine.max_model_len;
  return model;
}


// The separate draft model of vLLM's draft_model method, when the engine
// runs one: its spec (a built-in name or a path), served with the run's KV
// cache format (vLLM has one cache dtype for every attention layer) and its
// checkpoint's own weights (--quantization is the target's). UsageError
// when it does not share the target's tokenizer, as vLLM requires.
std::optional<ModelSpec> RunDraftModel(const ExperimentConfig& c, const EngineEntry& engine,
                                       const ModelSpec& target) {
  if (engine.draft_model == nullptr) return std::nullopt;
  const std::string name = engine.draft_model(c.engine_options, target);
  if (name.empty()) return std::nullopt;
  ModelSpec draft;
  try {
    draft = LoadModelSpec(name);
  } catch (const UsageError& e) {
    throw UsageError(std::string("--speculative-config: 'model': ") + e.what());
  }
  // The same tokenizer: the same special and text token ids (embedding
  // tables may be padded differently, as Qwen2.5's 0.5B-3B and 7B+ are).
  if (draft.tokens != target.tokens) {
    throw UsageError("--speculative-config: draft model " + draft.name + "'s token ids (its spec's "
                     "\"tokens\") differ from " + target.name + "'s: vLLM's draft model must share "
                     "the target's tokenizer");
  }
  ServingFormat format = ServingFormatOf(c.engine);
  format.quantization = WeightQuantization::kNone;
  format.expert_parallel = false;
  format.data_parallel = 1;  // a dense drafter inside each rank
  return ServedAs(draft, format);
}

// The decode replicas' KV link (disaggregated serving): the per-GPU rate
// times the replica's GPUs, and the replica's KV bytes per token. Every GPU
// of the decode replica pulls its own shard (`capacity`'s per-GPU bytes),
// so those are one GPU's times the TP degree (an MLA latent, replicated on
// every GPU, is pulled TP times).
KvLinkSpec DecodeKvLink(const ExperimentConfig& c, const KvCapacity& capacity) {
  KvLinkSpec link;
  link.bytes_per_s = c.kv_link_gbps * 1e9 * static_cast<double>(c.latency.tensor_parallel);
  link.latency = FromSeconds(c.kv_link_latency_us * 1e-6);
  link.bytes_per_token = capacity.kv_bytes_per_token * capacity.tensor_parallel;
  return link;
}

// The engine's own checks, then the run's memory estimate against its
// budget (memory_budget.h): every replica's KV structures and what the
// workload makes up front. Throws UsageError (the memory error naming the
// options behind the largest part); true otherwise.
bool CheckEngineAndMemory(const ExperimentConfig& c, const EngineEntry& engine,
                          const EngineContext& context) {
  if (engine.validate != nullptr) engine.validate(context);
  std::vector<MemoryItem> items;
  if (engine.memory_bytes != nullptr) {
    const std::string blocks = std::to_string(context.capacity.blocks);
    std::string options = c.engine.kv_blocks > 0 ? "--kv-blocks " + blocks
                          : c.engine.num_gpu_blocks_override > 0
                              ? "--num-gpu-blocks-override " + blocks
                              : "the KV cache GPU memory leaves (" + blocks + " blocks)";
    if (c.prefill_replicas > 0) {
      options += " x (--prefill-replicas " + std::to_string(c.prefill_replicas) +
                 " + --decode-replicas " + std::to_string(c.decode_replicas) + ")";
    } else if (c.replicas > 1) {
      options += " x --replicas " + std::to_string(c.replicas);
    }
    if (c.engine.data_parallel_size > 1) options += " x --data-parallel-size " + std::to_string(c.engine.data_parallel_size);
    // Every data-parallel rank has its own engine core.
    const double cores = static_cast<double>(TotalReplicas(c) * c.engine.data_parallel_size);
    items.push_back({"the KV cache structures (and the engine's optional tiers)", options,
                     cores * engine.memory_bytes(context)});
  }
  items.push_back(WorkloadMemory(c));
  CheckMemoryBudget(items, MemoryBudgetBytes(c.max_memory_gib), c.max_memory_gib);
  return true;
}

// What a run is made of, built and checked in this order before anything
// runs (so a bad setting fails before any work). Without `with_workload`
// (ValidateExperiment) every part but the workload: no trace is read, no
// corpus tokenized. Not copyable: the engine context and the workload refer
// to the members.
struct RunParts {
  explicit RunParts(const ExperimentConfig& c, bool with_workload = true)
      : config(c),
        policy(GetPolicy(c.policy)),
        model(RunModel(c)),
        gpu(LoadGpuSpec(c.engine.gpu)),
        output_length_option(ParseOutputLengthOption(c.output_length)),
        default_output_length(output_length_option.IsDefault()),
        output_length(MakeOutputLength(c, output_length_option, policy)),
        engine(Engines().Get(c.engine.name)),
        draft_model(RunDraftModel(c, engine, model)),
        capacity(ComputeKvCapacity(c.engine, model, gpu, c.latency.tensor_parallel,
                                   engine.draft_layers != nullptr
                                       ? engine.draft_layers(c.engine_options, model)
                                       : 0,
                                   draft_model ? &*draft_model : nullptr)),
        engine_context{c.engine, c.engine_options, model, gpu, capacity, policy.prefix_caching},
        engine_and_memory_checked(CheckEngineAndMemory(c, engine, engine_context)),
        latency(MakeLatencyModel(RunLatencyConfig(c), model, gpu)),
        draft_latency(draft_model ? MakeLatencyModel(RunLatencyConfig(c), *draft_model, gpu) : nullptr),
        workload(with_workload ? MakeWorkload(c.workload, {c, policy, model, RunTokenizer(c),
                                                            output_length.get()})
                               : nullptr) {}
  RunParts(const RunParts&) = delete;
  RunParts& operator=(const RunParts&) = delete;

  const ExperimentConfig& config;
  const PolicySpec& policy;
  const ModelSpec model;
  const GpuSpec gpu;
  const OutputLengthOption output_length_option;
  const bool default_output_length;
  const std::unique_ptr<OutputLengthModel> output_length;  // null: every request to its cap
  const EngineEntry& engine;  // before capacity: its draft head sizes the KV cache
  const std::optional<ModelSpec> draft_model;  // vLLM's draft_model: the separate drafter
  const KvCapacity capacity;
  const EngineContext engine_context;
  // Before anything that grows with an option (or tokenizes a corpus) is built.
  const bool engine_and_memory_checked;
  const std::unique_ptr<LatencyModel> latency;
  const std::unique_ptr<LatencyModel> draft_latency;  // the draft model's; null without one
  const std::unique_ptr<Workload> workload;  // null without with_workload
};

// Checks that need no model, spec or file, in the order users meet them.
void CheckSettings(const ExperimentConfig& config) {
  CheckRunParams(config);  // ranges and allowed values, as the option tables declare them
  GetPolicy(config.policy);
  if (!(config.session_rate_per_s >= 0) || !std::isfinite(config.session_rate_per_s)) {
    throw UsageError("--session-rate: must be >= 0 (0 = closed population)");
  }
  if (config.replicas < 1) throw UsageError("--replicas: must be at least 1");
  if (config.replicas > 4096) throw UsageError("--replicas: at most 4096");
  if (config.prefill_replicas > 0) {
    if (config.replicas != 1) {
      throw UsageError("--replicas: with --prefill-replicas the pools are --prefill-replicas and "
                       "--decode-replicas; leave --replicas at 1");
    }
    if (!config.decode_gpu.empty()) {
      try {
        LoadGpuSpec(config.decode_gpu);
      } catch (const UsageError& e) {
        throw UsageError(std::string("--decode-gpu: ") + e.what());
      }
    }
    // --decode-engine-args parse and lie in range; both pools run the
    // run's data parallelism (each replica of either pool a group of ranks).
    if (DecodePoolConfig(config).engine.data_parallel_size != config.engine.data_parallel_size) {
      throw UsageError("--decode-engine-args: --data-parallel-size: the decode pool runs the run's "
                       "--data-parallel-size (" + std::to_string(config.engine.data_parallel_size) + ")");
    }
  } else {
    const ExperimentConfig defaults;
    if (config.decode_replicas != defaults.decode_replicas ||
        config.kv_link_gbps != defaults.kv_link_gbps || !config.decode_router.empty() ||
        config.kv_link_latency_us != defaults.kv_link_latency_us || !config.decode_gpu.empty() ||
        config.decode_tp != defaults.decode_tp || !config.decode_engine_args.empty()) {
      throw UsageError("--decode-replicas, --decode-router, --decode-gpu, --decode-tp, "
                       "--decode-engine-args, --kv-link-gbps, --kv-link-latency-us: only with "
                       "--prefill-replicas > 0 (disaggregated serving)");
    }
  }
  ParseFrontend(config.frontend, config.engine.name);
}

// Appends `count` replicas of the run's engine to `replicas`, each with its
// own core made from `context`, indexed by their position there in step
// records.
// With --data-parallel-size D > 1 each replica is a DataParallelGroup of D
// ranks, indexed in step records by their position among all ranks.
void AddReplicas(const RunParts& parts, const EngineContext& context, int64_t count,
                 Simulator& simulator, RequestObserver& observer, StepObserver* steps,
                 std::vector<std::unique_ptr<EngineReplica>>& replicas,
                 std::vector<DataParallelGroup*>* groups = nullptr) {
  ReplicaConfig replica_config;
  replica_config.check_invariants = parts.config.engine.check_invariants;
  replica_config.output_token_first = parts.model.tokens.text_first;
  replica_config.output_token_last = parts.model.tokens.text_last;
  replica_config.draft_latency = parts.draft_latency.get();
  const int64_t ranks = parts.config.engine.data_parallel_size;
  // Replica `index` among all of the run's (ranks count one each).
  auto make_replica = [&](int64_t index) {
    replica_config.replica_index = static_cast<int32_t>(index);
    return std::make_unique<Replica>(simulator, replica_config, parts.engine.make(context), *parts.latency,
                                     observer);
  };
  for (int64_t i = 0; i < count; ++i) {
    const int64_t first = static_cast<int64_t>(replicas.size()) * ranks;
    if (ranks == 1) {
      replicas.push_back(make_replica(first));
    } else {
      std::vector<std::unique_ptr<Replica>> group;
      for (int64_t r = 0; r < ranks; ++r) group.push_back(make_replica(first + r));
      auto dp = std::make_unique<DataParallelGroup>(simulator, std::move(group),
                                                    /*lockstep=*/parts.model.moe.IsMoe(), *parts.latency,
                                                    parts.engine.data_parallel_routing);
      if (groups != nullptr) groups->push_back(dp.get());
      replicas.push_back(std::move(dp));
    }
    if (steps != nullptr) replicas.back()->set_step_observer(steps);
  }
}

std::vector<EngineReplica*> Pointers(const std::vector<std::unique_ptr<EngineReplica>>& replicas,
                                     size_t first, size_t count) {
  std::vector<EngineReplica*> pointers;
  for (size_t i = first; i < first + count; ++i) pointers.push_back(replicas[i].get());
  return pointers;
}

// Calls config.progress about every progress_interval_s of host time.
void ReportProgress(const ExperimentConfig& config, Simulator& simulator,
                    const RunObserver& observer, Clock::time_point wall_start) {
  if (!config.progress) return;
  auto last_report = wall_start;
  simulator.set_periodic_hook([&config, &simulator, &observer, wall_start, last_report]() mutable {
    const auto now = Clock::now();
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

// Every request finished, cancelled or rejected, every KV block back with
// reference count 0, no event left. InternalError otherwise.
void CheckEndOfRun(const Simulator& simulator, const Client& client, const RunObserver& observer,
                   const std::vector<std::unique_ptr<EngineReplica>>& replicas) {
  EFIMSIM_CHECK(simulator.pending_events() == 0, "events left in the queue");
  for (const auto& replica : replicas) EFIMSIM_CHECK(replica->idle(), "requests left unfinished");
  client.CheckDrained(observer.summary.records() + observer.rejected);
  for (const auto& replica : replicas) {
    EFIMSIM_CHECK(replica->kv_all_free(), "KV blocks not returned to the pool");
    replica->CheckInvariants();
  }
}

}  // namespace

std::unique_ptr<TraceReader> OpenWorkloadTrace(const ExperimentConfig& config) {
  if (config.trace_in_memory) return std::make_unique<ListedTraceReader>(config.trace_in_memory);
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

LatencyConfig RunLatencyConfig(const ExperimentConfig& config) {
  LatencyConfig latency;
  latency.name = config.latency_model;
  latency.options = config.latency;
  latency.options.engine = config.engine.name;  // whose kernels --kernel-source auto prefers
  latency.cpu = config.cpu;
  latency.cpu.cuda_graphs = config.engine.cuda_graphs;
  return latency;
}

void ValidateExperiment(const ExperimentConfig& config) {
  CheckSettings(config);
  const RunParts parts(config, /*with_workload=*/false);
  MakeRoutingPolicy(config.router);
}

void PollInterrupt(const ExperimentConfig& config) {
  if (config.interrupt != nullptr && config.interrupt->load(std::memory_order_relaxed)) {
    throw Interrupted("interrupted");
  }
}

tokenizer::StopPoll InterruptPoll(const ExperimentConfig& config) {
  return [&config] { PollInterrupt(config); };
}

RequestColumns RequestColumnsFor(const ExperimentConfig& c) {
  RequestColumns columns;
  columns.kv_pull = c.prefill_replicas > 0;
  // Generic: the option's own row says which engines read it.
  const RunParam* speculative = FindRunParam("speculative-config");
  if (speculative != nullptr) {
    const std::vector<std::string>& engines = speculative->scope.parts;
    const bool read = speculative->scope.applies_to_every_run() ||
                      std::find(engines.begin(), engines.end(), c.engine.name) != engines.end();
    columns.speculation = read && !speculative->value(c).empty();
  }
  return columns;
}

std::string DecodeRouter(const ExperimentConfig& c) {
  return c.prefill_replicas > 0 && !c.decode_router.empty() ? c.decode_router : c.router;
}

int64_t TotalReplicas(const ExperimentConfig& c) {
  return c.prefill_replicas > 0 ? c.prefill_replicas + c.decode_replicas : c.replicas;
}

std::string DecodeGpu(const ExperimentConfig& c) {
  return c.decode_gpu.empty() ? c.engine.gpu : c.decode_gpu;
}

int64_t DecodeTp(const ExperimentConfig& c) {
  return c.decode_tp > 0 ? c.decode_tp : c.latency.tensor_parallel;
}

bool DecodePoolDiffers(const ExperimentConfig& c) {
  return c.prefill_replicas > 0 && (DecodeGpu(c) != c.engine.gpu ||
                                    DecodeTp(c) != c.latency.tensor_parallel ||
                                    !c.decode_engine_args.empty());
}

std::vector<std::string> DecodeEngineArgNames(const ExperimentConfig& c) {
  // The same model, block size and engine on both sides (the KV moves
  // between them block for block); the GPU has --decode-gpu. Speculative
  // decoding stays the run's (its requests.csv columns follow the run's
  // option).
  static const std::set<std::string> kShared = {"model", "gpu", "engine", "block-tokens",
                                                "check-invariants", "speculative-config"};
  // The engine's option groups: the shared engine rows, the engine's own
  // (SGLang's) and its parts' (the CPU KV tier, speculative decoding), each
  // kept only where it applies to the run's engine.
  std::vector<std::string> names;
  for (const RunParamTable& table : AllParamTables()) {
    std::string group = table.group;
    std::transform(group.begin(), group.end(), group.begin(), [](unsigned char ch) { return std::tolower(ch); });
    if (group.find("engine") == std::string::npos) continue;
    for (const RunParam& param : table.params) {
      if (kShared.count(param.info->name) == 0 && OptionApplies(c, param.info->name)) {
        names.push_back(param.info->name);
      }
    }
  }
  return names;
}

namespace {

// Applies --decode-engine-args' `--option value` (or `--option=value`)
// pairs to `decode`.
void ApplyDecodeEngineArgs(const ExperimentConfig& c, ExperimentConfig& decode) {
  std::vector<std::string> words;
  std::istringstream in(c.decode_engine_args);
  for (std::string word; in >> word;) words.push_back(word);
  const std::vector<std::string> allowed = DecodeEngineArgNames(c);
  const auto fail = [&](const std::string& why) {
    std::string names;
    for (const std::string& n : allowed) names += (names.empty() ? "--" : ", --") + n;
    throw UsageError("--decode-engine-args: " + why + " (it takes `--option value` pairs of: " +
                     names + ")");
  };
  for (size_t i = 0; i < words.size(); ++i) {
    std::string name = words[i];
    if (name.rfind("--", 0) != 0 || name.size() == 2) fail("'" + name + "' is not an option");
    name = name.substr(2);
    std::string value;
    if (const size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    } else if (i + 1 < words.size() && words[i + 1].rfind("--", 0) != 0) {
      value = words[++i];
    } else {
      fail("--" + name + " has no value");
    }
    if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
      fail("--" + name + " is not an engine option the decode pool may set on its own");
    }
    const RunParam* param = FindRunParam(name);
    EFIMSIM_CHECK(param != nullptr, "an allowed decode engine option without a parameter");
    try {
      param->set(value, decode);
      param->check(decode);
    } catch (const UsageError& e) {
      throw UsageError(std::string("--decode-engine-args: ") + e.what());
    }
  }
}

}  // namespace

ExperimentConfig DecodePoolConfig(const ExperimentConfig& c) {
  ExperimentConfig decode = c;
  decode.engine.gpu = DecodeGpu(c);
  decode.latency.tensor_parallel = DecodeTp(c);
  decode.decode_engine_args.clear();
  if (!c.decode_engine_args.empty()) ApplyDecodeEngineArgs(c, decode);
  return decode;
}

int64_t DeploymentGpus(const ExperimentConfig& c) {
  if (c.prefill_replicas == 0) return c.replicas * c.engine.data_parallel_size * c.latency.tensor_parallel;
  return (c.prefill_replicas * c.latency.tensor_parallel + c.decode_replicas * DecodeTp(c)) *
         c.engine.data_parallel_size;
}

ExperimentResult RunExperiment(const ExperimentConfig& config) {
  const auto wall_start = Clock::now();
  PollInterrupt(config);
  CheckSettings(config);
  const RunParts parts(config);
  PollInterrupt(config);  // the set-up (trace, corpus, tokenizer) can take a while

  Simulator simulator;
  simulator.set_interrupt_flag(config.interrupt);
  std::unique_ptr<TimelineWriter> timeline;
  if (!config.timeline_path.empty()) {
    timeline = std::make_unique<TimelineWriter>(
        config.timeline_path, static_cast<int32_t>(TotalReplicas(config) * config.engine.data_parallel_size));
  }
  TimelineStepObserver timeline_steps(timeline.get());
  std::vector<int64_t> output_tokens;  // of completed requests, with an output-length model
  RunObserver observer(config.record_sink);
  observer.client_overhead = FromSeconds(config.client_overhead_ms * 1e-3);
  observer.summary.SetFrontend(ParseFrontend(config.frontend, config.engine.name));
  if (parts.output_length) observer.output_tokens = &output_tokens;
  observer.timeline = timeline.get();
  StepObserver* steps = timeline ? &timeline_steps : nullptr;
  std::vector<std::unique_ptr<EngineReplica>> replicas;
  std::vector<DataParallelGroup*> data_parallel_groups;  // in replicas, when --data-parallel-size > 1
  // Co-located: one router over `replicas`. Disaggregated: a router per pool
  // (prefill replicas first), the client talking to the pair.
  const bool disaggregated = config.prefill_replicas > 0;
  const size_t prefill_count = disaggregated ? static_cast<size_t>(config.prefill_replicas) : 0;
  std::optional<Router> prefill_router;
  DisaggregatedRouter pair(observer);  // used only when disaggregated
  // A decode pool with its own GPU or TP has its own latency model and KV
  // capacity (the parts of its config, without a workload).
  const ExperimentConfig decode_config = DecodePoolConfig(config);
  std::optional<RunParts> own_decode_parts;
  if (DecodePoolDiffers(config)) own_decode_parts.emplace(decode_config, /*with_workload=*/false);
  const RunParts& decode_parts = own_decode_parts ? *own_decode_parts : parts;
  const KvLinkSpec decode_link = DecodeKvLink(decode_config, decode_parts.capacity);
  if (disaggregated) {
    EngineContext decode_context = decode_parts.engine_context;
    decode_context.kv_link = decode_link;
    decode_context.prefix_caching =
        decode_context.prefix_caching && decode_parts.engine.pd_decode_prefix_caching;
    AddReplicas(parts, parts.engine_context, config.prefill_replicas, simulator, pair, steps,
                replicas, &data_parallel_groups);
    AddReplicas(decode_parts, decode_context, config.decode_replicas, simulator, observer, steps,
                replicas, &data_parallel_groups);
    for (size_t i = prefill_count; i < replicas.size(); ++i) replicas[i]->set_remote_kv_read_observer(&pair);
    prefill_router.emplace(Pointers(replicas, 0, prefill_count), MakeRoutingPolicy(config.router));
  } else {
    AddReplicas(parts, parts.engine_context, config.replicas, simulator, observer, steps, replicas,
                &data_parallel_groups);
  }
  Router router(Pointers(replicas, prefill_count, replicas.size() - prefill_count),
                MakeRoutingPolicy(DecodeRouter(config)));
  observer.router = &router;
  RequestSink* front_door = &router;
  if (disaggregated) {
    pair.Connect(*prefill_router, router);
    front_door = &pair;
  }
  Client& client = parts.workload->MakeClient(simulator, *front_door);
  observer.client = &client;
  client.Start();
  ReportProgress(config, simulator, observer, wall_start);
  simulator.Run();
  CheckEndOfRun(simulator, client, observer, replicas);
  if (observer.order) observer.order->Finish();
  if (timeline) timeline->Commit();

  ExperimentResult result;
  result.records = std::move(observer.records);
  std::sort(result.records.begin(), result.records.end(),
            [](const RequestRecord& a, const RequestRecord& b) { return a.request_id < b.request_id; });
  std::vector<EngineCounters> per_replica;
  EngineCounters counters;
  for (const auto& replica : replicas) {
    per_replica.push_back(replica->Counters());
    counters.Add(per_replica.back());
  }
  counters.events = static_cast<int64_t>(simulator.events_handled());
  result.summary = observer.summary.Build(counters);
  if (parts.engine.summarize_parts != nullptr) {
    parts.engine.summarize_parts(result.summary, result.summary.part_results);
  }
  if (config.record_wall_time) {
    result.summary.wall_s = std::chrono::duration<double>(Clock::now() - wall_start).count();
  }
  result.summary.efim_rebases = client.efim_rebases();
  DescribeRun(config, parts.policy, *parts.workload, parts.model, parts.gpu, *parts.latency,
              parts.capacity, parts.engine, parts.engine_context, parts.default_output_length,
              result.info);
  if (parts.output_length) DescribeOutputLengths(*parts.output_length, output_tokens, result.info);
  if (parts.engine.describe_parts != nullptr) {
    parts.engine.describe_parts(parts.engine_context, result.info);
  }
  parts.workload->DescribeResults(result.info);
  if (disaggregated) {
    DescribeDisaggregation(config, per_replica, prefill_router->routed(), router.routed(),
                           pair.prefill_stats(), decode_link, result.summary.makespan,
                           own_decode_parts ? own_decode_parts->latency.get() : nullptr,
                           result.info);
  } else {
    DescribeCluster(config, per_replica, router.routed(), router.note(), result.info);
  }
  if (!data_parallel_groups.empty()) {
    int64_t dummy_steps = 0;
    for (const DataParallelGroup* group : data_parallel_groups) dummy_steps += group->dummy_steps();
    DescribeDataParallel(config, parts.model, parts.engine.data_parallel_routing, dummy_steps, result.info);
  }
  DescribeWarnings(config, *parts.workload, observer.rejected, observer.first_rejection,
                   result.summary, result.info);
  return result;
}

}  // namespace efimsim
