#include "sim/run/serving_validation.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <sstream>


#include "models/formats/spec_catalog.h"
#include "sim/base/atomic_file.h"
#include "sim/base/check.h"
#include "sim/base/errors.h"
#include "sim/run/run_params.h"
#include "sim/metrics/summary.h"

namespace efimsim {
namespace {

// vLLM's async-scheduling default for `version` ("0.19.0"; empty when the
// run does not say): on since 0.14 (vllm-project/vllm#27614), off before.
// An unrecorded version is taken as a current one.
bool AsyncSchedulingDefault(const std::string& version) {
  int major = 0, minor = 0;
  if (version.empty() || std::sscanf(version.c_str(), "%d.%d", &major, &minor) != 2) return true;
  return major > 0 || minor >= 14;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// vLLM V1's API-server batch limits when none are given
// (vllm/engine/arg_utils.py): 8192 tokens and 1024 sequences on GPUs of
// >= 70 GiB other than the A100, else 2048 and 256. (Newer releases add a
// middle tier, 4096 and 512 at 40-70 GiB; a run from one should record its
// limits.)
struct VllmBatchDefaults {
  int64_t max_num_batched_tokens = 2048;
  int64_t max_num_seqs = 256;
  std::string why;
};
VllmBatchDefaults VllmApiServerBatchDefaults(const GpuSpec& gpu) {
  const double gib = static_cast<double>(gpu.memory_bytes) / (1024.0 * 1024 * 1024);
  const bool a100 = gpu.name.rfind("a100", 0) == 0;
  if (gib >= 70 && !a100) return {8192, 1024, gpu.name + " (>= 70 GiB)"};
  return {2048, 256, gpu.name + (a100 ? " (an A100)" : " (< 70 GiB)")};
}

// vLLM's device name (torch.cuda.get_device_name) -> efimsim's GPU catalogue.
std::string MapGpu(const std::string& device_name) {
  const std::string d = Lower(device_name);
  if (Contains(d, "4090")) return "rtx-4090";
  if (Contains(d, "rtx pro 6000")) return "rtx-pro-6000";
  if (Contains(d, "h200")) return "h200";
  if (Contains(d, "h20")) return "h20";
  if (Contains(d, "b200")) return "b200";
  if (Contains(d, "l40s")) return "l40s";
  if (Contains(d, "h100")) return Contains(d, "pcie") ? "h100-pcie" : "h100-sxm";
  if (Contains(d, "a100")) {
    if (Contains(d, "pcie") && Contains(d, "40")) return "a100-pcie-40g";
    if (Contains(d, "80")) return "a100-sxm-80g";
  }
  if (d == "nvidia l4" || Contains(d, " l4 ") || (d.size() >= 3 && d.substr(d.size() - 3) == " l4")) {
    return "l4";
  }
  return "";
}

// A Hugging Face model id -> efimsim's model catalogue: its last path part,
// lower-cased, without an -Instruct / -hf suffix (same shapes).
std::string MapModel(const std::string& model_id) {
  std::string name = Lower(model_id.substr(model_id.find_last_of('/') + 1));
  if (name.rfind("meta-llama-", 0) == 0) name = name.substr(5);  // Meta-Llama-3.1-8B
  // Suffixes in any order and number: CodeLlama-34b-Instruct-hf.
  for (bool stripped = true; stripped;) {
    stripped = false;
    for (const char* suffix : {"-instruct", "-hf", "-base"}) {
      const std::string s(suffix);
      if (name.size() > s.size() && name.substr(name.size() - s.size()) == s) {
        name = name.substr(0, name.size() - s.size());
        stripped = true;
      }
    }
  }
  const std::vector<std::string> known = BuiltinModelNames();
  return std::find(known.begin(), known.end(), name) != known.end() ? name : "";
}

// The option row named `name` (run_params.h); InternalError when none.
const RunParam& RunRow(const std::string& name) {
  const RunParam* row = FindRunParam(name);
  if (row == nullptr) throw InternalError("validate-serving: no option --" + name);
  return *row;
}

bool Given(const ServingValidationOptions& options, const std::string& name) {
  return std::find(options.explicit_options.begin(), options.explicit_options.end(), name) !=
         options.explicit_options.end();
}

std::string Sizes(const std::vector<int64_t>& sizes) {
  std::string text;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i > 0) text += ',';  // piecewise: g++ 12's -Wrestrict misfires on "," + string&&
    text += std::to_string(sizes[i]);
  }
  return text;
}

// numpy.percentile (linear) of unsorted values; mean at index 0.
void Stats(std::vector<double> values, double out[5]) {
  std::sort(values.begin(), values.end());
  if (values.empty()) return;
  out[0] = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  const double qs[4] = {50, 90, 95, 99};
  for (int i = 0; i < 4; ++i) out[i + 1] = PercentileOfSorted(values, qs[i]);
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return PercentileOfSorted(v, 50);
}

// enforce_eager -> CUDA graphs and async_scheduling -> host overlap, each
// the run's unless given; throws UsageError on a bad --host-overlap.
void MapCudaGraphsAndHostOverlap(const ServingRunEngine& e, const ServingValidationOptions& options,
                                 ExperimentConfig& config, ServingValidation& v) {
  if (Given(options, "cuda-graphs")) {
    v.mapping.push_back({"enforce_eager", std::string(e.enforce_eager ? (*e.enforce_eager ? "true" : "false") : "not in the run") +
                                              ": --cuda-graphs " + (config.engine.cuda_graphs ? "true" : "false") +
                                              " (command line)"});
  } else if (!e.enforce_eager) {
    // vLLM's default: CUDA graphs on.
    config.engine.cuda_graphs = true;
    v.mapping.push_back({"enforce_eager", "not in the run: vLLM's default false -> --cuda-graphs true"});
  } else {
    config.engine.cuda_graphs = !*e.enforce_eager;
    v.mapping.push_back({"enforce_eager", std::string(*e.enforce_eager ? "true" : "false") +
                                              " -> --cuda-graphs " + (config.engine.cuda_graphs ? "true" : "false")});
  }
  // Host time: vLLM's async scheduling prepares the next step while the GPU
  // runs this one (efimsim's host-overlap option).
  if (options.host_overlap == "auto") {
    config.cpu.overlap_host = e.async_scheduling.value_or(AsyncSchedulingDefault(e.vllm_version));
    v.mapping.push_back({"async_scheduling",
                         std::string(e.async_scheduling ? (*e.async_scheduling ? "true" : "false")
                                                        : "not in the run (vLLM's default for " +
                                                              (e.vllm_version.empty() ? std::string("an unrecorded version: on since 0.14")
                                                                                      : e.vllm_version) + ")") +
                             " -> host overlap " + (config.cpu.overlap_host ? "on" : "off")});
  } else if (options.host_overlap == "true" || options.host_overlap == "false") {
    config.cpu.overlap_host = options.host_overlap == "true";
    v.mapping.push_back({"async_scheduling",
                         std::string(e.async_scheduling ? (*e.async_scheduling ? "true" : "false")
                                                        : "not in the run") +
                             "; host overlap " + (config.cpu.overlap_host ? "on" : "off") +
                             " (--host-overlap)"});
  } else {
    throw UsageError("--host-overlap: expected auto, true or false (got '" + options.host_overlap + "')");
  }
}

// The replay's configuration before the run's settings are applied: the
// options' engine, latency and host settings, a trace workload.
ExperimentConfig BaseConfig(const ServingValidationOptions& options) {
  ExperimentConfig config = options.replay;
  config.workload = "trace";
  config.latency_model = options.latency_model;
  config.record_wall_time = false;
  config.engine.check_invariants = options.check_invariants;
  return config;
}

// GPU and model: the run's names mapped to the catalogue, or the options;
// throws UsageError when neither names one.
void MapGpuAndModel(const ServingRunEngine& e, const ServingValidationOptions& options,
                    ExperimentConfig& config, ServingValidation& v) {
  if (!options.gpu.empty()) {
    config.engine.gpu = options.gpu;
    v.mapping.push_back({"GPU", options.gpu + " (--gpu)" +
                                    (e.device_name.empty() ? "" : "; run: " + e.device_name)});
  } else {
    const std::string gpu = MapGpu(e.device_name);
    if (gpu.empty()) {
      throw UsageError(e.device_name.empty()
                           ? "validate-serving: the run does not name its GPU: give --gpu"
                           : "validate-serving: the run's GPU '" + e.device_name +
                                 "' is not in efimsim's catalogue under a known name: give --gpu");
    }
    config.engine.gpu = gpu;
    v.mapping.push_back({"GPU", e.device_name + " -> " + gpu});
  }
  if (!options.model.empty()) {
    config.engine.model = options.model;
    v.mapping.push_back({"model", options.model + " (--model)" + (e.model.empty() ? "" : "; run: " + e.model)});
  } else {
    const std::string model = e.model.empty() ? "" : MapModel(e.model);
    if (model.empty()) {
      throw UsageError("validate-serving: the run's model '" + e.model +
                       "' is not in efimsim's catalogue under a known name: give --model");
    }
    config.engine.model = model;
    v.mapping.push_back({"model", e.model + " -> " + model});
  }
}

// gpu_memory_utilization (what the KV cache is derived from when the run
// does not record its blocks): the run's, unless given; vLLM's default 0.9.
void MapMemoryUtilization(const ServingRunEngine& e, const ServingValidationOptions& options,
                          ExperimentConfig& config, ServingValidation& v) {
  // A run that records its blocks fixes the KV cache: the utilization matters not.
  if (e.num_gpu_blocks && !e.gpu_memory_utilization && !Given(options, "gpu-memory-utilization")) return;
  char text[96];
  if (Given(options, "gpu-memory-utilization")) {
    std::snprintf(text, sizeof text, "--gpu-memory-utilization %.2f (command line)",
                  config.engine.gpu_memory_utilization);
  } else if (e.gpu_memory_utilization) {
    config.engine.gpu_memory_utilization = *e.gpu_memory_utilization;
    std::snprintf(text, sizeof text, "%.2f -> --gpu-memory-utilization", *e.gpu_memory_utilization);
  } else {
    std::snprintf(text, sizeof text, "not in the run: vLLM's default %.2f -> --gpu-memory-utilization",
                  config.engine.gpu_memory_utilization);
  }
  v.mapping.push_back({"gpu_memory_utilization", text});
  if (e.kv_cache_tokens) {
    v.mapping.push_back({"GPU KV cache size", std::to_string(*e.kv_cache_tokens) + " tokens (vllm.log)"});
  }
}

// Engine settings (batch limits, blocks, CUDA graphs, host overlap, prefix
// caching): the run's, unless given on the command line; each one mapped.
void MapEngineSettings(const ServingRunEngine& e, const ServingValidationOptions& options,
                       ExperimentConfig& config, ServingValidation& v) {
  // `zero_means`: what the option's 0 stands for, in the mapping text.
  // `source`: whose value stands when the run has none ("efimsim's").
  // Options are read and set through their rows (run_params.h), wherever
  // the part that owns them keeps them (vLLM's limits: its OptionStore).
  auto take = [&](const char* vllm_name, const std::optional<int64_t>& value, const char* option,
                  std::string zero_means = "", std::string source = "efimsim's") {
    if (zero_means.empty()) zero_means = "derived from GPU memory";
    const std::string current = RunRow(option).value(config);
    if (Given(options, option)) {
      v.mapping.push_back({vllm_name, "--" + std::string(option) + " " + current +
                                          " (command line" +
                                          (value ? "; run: " + std::to_string(*value) : "") + ")"});
    } else if (value) {
      v.mapping.push_back({vllm_name, std::to_string(*value) + " -> --" + option});
      RunRow(option).set(std::to_string(*value), config);  // checked: CheckSettingsTakenFromRun
    } else {
      v.mapping.push_back({vllm_name, "not in the run: " + source + " --" + std::string(option) + " " +
                                          (current == "0" ? zero_means : current)});
    }
  };
  // Batch limits the run does not record: vLLM's API-server defaults for
  // the GPU, not efimsim's (the paper's) 2048 / 256.
  MapMemoryUtilization(e, options, config, v);
  const VllmBatchDefaults batch = VllmApiServerBatchDefaults(LoadGpuSpec(config.engine.gpu));
  if (!e.max_num_seqs && !Given(options, "max-num-seqs")) {
    RunRow("max-num-seqs").set(std::to_string(batch.max_num_seqs), config);
  }
  if (!e.max_num_batched_tokens && !Given(options, "max-num-batched-tokens")) {
    RunRow("max-num-batched-tokens").set(std::to_string(batch.max_num_batched_tokens), config);
  }
  const std::string batch_default = "vLLM's API-server default on " + batch.why + ":";
  take("max_num_seqs", e.max_num_seqs, "max-num-seqs", "", batch_default);
  take("max_num_batched_tokens", e.max_num_batched_tokens, "max-num-batched-tokens", "",
       batch_default);
  take("block_size", e.block_size, "block-tokens");
  if (Given(options, "kv-blocks")) {
    v.mapping.push_back({"num_gpu_blocks", "--kv-blocks " + std::to_string(config.engine.kv_blocks) +
                                               " (command line" +
                                               (e.num_gpu_blocks ? "; run: " + std::to_string(*e.num_gpu_blocks) : "") +
                                               ")"});
  } else {
    // vLLM's own spelling: the KV cache holds exactly the run's blocks.
    // Without them: derived, as vLLM does, from the model and the GPU.
    char utilization[32];
    std::snprintf(utilization, sizeof utilization, "%.2f", config.engine.gpu_memory_utilization);
    take("num_gpu_blocks", e.num_gpu_blocks, "num-gpu-blocks-override",
         "0: derived from " + config.engine.model + "'s KV bytes per token and " + config.engine.gpu +
             "'s memory at --gpu-memory-utilization " + utilization);
  }
  take("max_model_len", e.max_model_len, "max-model-len",
       "unset: the model's context length");
  MapCudaGraphsAndHostOverlap(e, options, config, v);
  // Prefix caching: efimsim's fim policy is vLLM with automatic prefix
  // caching on request records; baseline is caching off.
  const bool caching = e.enable_prefix_caching.value_or(true);
  config.policy = caching ? "fim" : "baseline";
  v.mapping.push_back({"enable_prefix_caching",
                       std::string(e.enable_prefix_caching ? (caching ? "true" : "false")
                                                           : "not in the run: vLLM V1's default true") +
                           " -> policy " + config.policy});
}

// What efimsim does not reproduce of the run's engine version, scheduling
// and CUDA graphs, named in v.not_reproduced.
void NameEngineDifferences(const ServingRun& run, const ExperimentConfig& config, ServingValidation& v) {
  const ServingRunEngine& e = run.engine;
  auto named = [&](const std::string& what) { v.not_reproduced.push_back(what); };
  if (!e.vllm_version.empty()) {
    named("vLLM " + e.vllm_version + ": efimsim's engine follows vLLM V1's 0.9-0.10 scheduler semantics (sim/README.md)");
  } else {
    named("engine version not in the run: efimsim's engine follows vLLM V1's 0.9-0.10 semantics");
  }
  if (e.async_scheduling.value_or(false)) {
    named(std::string("async_scheduling true: vLLM schedules step N+1 while step N runs on the GPU, "
                      "one step ahead; efimsim's scheduler decides each step after the previous "
                      "ends") +
          (config.cpu.overlap_host ? " (host time hidden behind the GPU by the host-overlap model)"
                                   : ", and adds host time in full (host overlap off)"));
  }
  if (e.cudagraph_mode) {
    named("cudagraph_mode " + *e.cudagraph_mode +
          ": efimsim prices CUDA graphs for decode-only steps only; mixed and prefill steps are "
          "priced with eager launches hiding behind GPU time (vLLM runs them as piecewise graphs)");
  }
  if (!e.cudagraph_capture_sizes.empty()) {
    named("cudagraph_capture_sizes [" + Sizes(e.cudagraph_capture_sizes) +
          "]: efimsim pads decode batches to its own capture sizes (the profile's or vLLM's "
          "default list)");
  }
  if (e.vllm_version.empty() && run.format == "llmservingsim") named("vllm_version not in the run");
  if (!e.tensor_parallel_size && run.format == "llmservingsim") {
    named("tensor_parallel_size not in the run: simulated at TP=1");
  }
}

// The run's tensor parallelism (when not 1) -> --tp, unless given.
void MapTensorParallel(const ServingRunEngine& e, const ServingValidationOptions& options,
                       ExperimentConfig& config, ServingValidation& v) {
  if (e.tensor_parallel_size && *e.tensor_parallel_size != 1) {
    if (Given(options, "tp")) {
      v.mapping.push_back({"tensor_parallel_size", "--tp " + std::to_string(config.latency.tensor_parallel) +
                                                       " (command line; run: " +
                                                       std::to_string(*e.tensor_parallel_size) + ")"});
    } else {
      config.latency.tensor_parallel = *e.tensor_parallel_size;
      v.mapping.push_back({"tensor_parallel_size", std::to_string(*e.tensor_parallel_size) + " -> --tp"});
    }
  }
}

// How the API server, tokenizer, detokenizer and network time enter the
// comparison: added by the frontend model to predictions of client-side
// times, or absent from engine-side ones.
std::string FrontendNote(const ServingRun& run, const FrontendCosts& frontend) {
  const bool client_timed = run.timed_at == "client";
  bool paired = false;
  for (const ServingRunRequest& r : run.requests) paired = paired || r.client_ttft_ms >= 0;
  if (!client_timed && !paired) {
    return "API server, tokenizer, detokenizer and network time: not simulated (TTFT and E2E in "
           "efimsim start when the engine receives the request)";
  }
  const std::string where = client_timed ? "the measured TTFT and E2E (timed at the client)"
                                         : "the client_ttft and client_e2e rows (GuideLLM's timings)";
  if (!frontend.enabled()) {
    return "API server, tokenizer, detokenizer and network time: in " + where +
           " but not predicted (--frontend none)";
  }
  return "API server, tokenizer, detokenizer and network time: not simulated, modelled for " + where +
         " by the frontend (--frontend): " + frontend.Describe();
}

// The run's settings and requests efimsim does not model (parallelism,
// scheduler, speculation, lengths, client, server, failures), named.
void NameUnmodelled(const ServingRun& run, ServingValidation& v) {
  const ServingRunEngine& e = run.engine;
  auto named = [&](const std::string& what) { v.not_reproduced.push_back(what); };
  if (e.data_parallel_size && *e.data_parallel_size != 1) {
    named("data_parallel_size " + std::to_string(*e.data_parallel_size) + ": one engine simulated");
  }
  if (e.enable_chunked_prefill && !*e.enable_chunked_prefill) {
    named("enable_chunked_prefill false: efimsim always chunks prefills");
  }
  if (e.scheduler_policy && *e.scheduler_policy != "fcfs") {
    named("scheduler policy " + *e.scheduler_policy + ": efimsim schedules FCFS");
  }
  if (e.long_prefill_token_threshold && *e.long_prefill_token_threshold != 0) {
    named("long_prefill_token_threshold " + std::to_string(*e.long_prefill_token_threshold) +
          ": not modelled (efimsim: no per-request chunk cap)");
  }
  if (e.max_num_partial_prefills && *e.max_num_partial_prefills != 1) {
    named("max_num_partial_prefills " + std::to_string(*e.max_num_partial_prefills) + ": not modelled");
  }
  if (e.speculative_config) named("speculative decoding: not modelled");
  if (e.kv_cache_dtype && *e.kv_cache_dtype != "auto") {
    named("kv_cache_dtype " + *e.kv_cache_dtype + ": efimsim prices the model's dtype");
  }
  if (e.max_model_len) {
    for (const ServingRunRequest& r : run.requests) {
      if (r.prompt_tokens + r.output_tokens > *e.max_model_len) {
        named("max_model_len " + std::to_string(*e.max_model_len) + ": request " + r.id +
              " is longer; efimsim does not cap it");
        break;
      }
    }
  }
  if (e.max_concurrency) {
    named("the client's max_concurrency " + std::to_string(*e.max_concurrency) +
          ": replayed open loop at the recorded send times");
  }
  named(FrontendNote(run, v.frontend));
  int64_t without_ids = 0;
  for (const ServingRunRequest& r : run.requests) without_ids += r.token_ids.empty() ? 1 : 0;
  if (!run.token_ids_rule.empty()) named(run.token_ids_rule);
  if (without_ids > 0) {
    named(std::to_string(without_ids) + " of " + std::to_string(run.requests.size()) +
          " prompts without token ids: they share nothing (no prefix-cache hits)");
  }
  if (!run.excluded.empty()) {
    named(std::to_string(run.excluded.size()) + " failed request(s) of the run left out (" +
          run.excluded.front() + (run.excluded.size() > 1 ? ", ..." : "") + ")");
  }
}

// The replay's arrival source, "workload" or "engine" (from --arrivals and
// what the run has), with its description in v.arrivals.
std::string ChooseArrivals(const ServingRun& run, const ServingValidationOptions& options,
                           ServingValidation& v) {
  std::string arrivals = options.arrivals;
  const bool has_engine = run.requests.front().engine_arrival_ns >= 0;
  if (arrivals == "auto") arrivals = has_engine ? "engine" : "workload";
  if (arrivals != "workload" && arrivals != "engine") {
    throw UsageError("--arrivals: must be auto, workload or engine (got '" + options.arrivals + "')");
  }
  if (arrivals == "engine" && !has_engine) {
    throw UsageError("--arrivals engine: the run has no per-request engine or send times");
  }
  if (run.format == "llmservingsim") {
    v.arrivals = arrivals == "engine"
                     ? "engine: each request arrives when vLLM queued it (queued_ts, the point TTFT "
                       "and E2E are measured from)"
                     : "workload: the workload's arrival_time_ns schedule";
  } else {
    v.arrivals = has_engine ? "the client's send times (start_times)"
                            : "all at t = 0 (request_rate inf)";
  }
  return arrivals;
}

// A request's replayed arrival (ns) under the chosen arrival source.
int64_t ArrivalNs(const ServingRunRequest& r, const std::string& arrivals) {
  return arrivals == "engine" ? r.engine_arrival_ns : r.workload_arrival_ns;
}

// The run's request indices in replayed arrival order (stable).
std::vector<size_t> ArrivalOrder(const ServingRun& run, const std::string& arrivals) {
  std::vector<size_t> order(run.requests.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return ArrivalNs(run.requests[a], arrivals) < ArrivalNs(run.requests[b], arrivals);
  });
  return order;
}

// The run's requests as a trace in memory, in replay order.
std::shared_ptr<const TraceInMemory> ReplayTrace(const ServingRun& run,
                                                 const std::vector<size_t>& order,
                                                 const std::string& arrivals) {
  auto trace = std::make_shared<TraceInMemory>();
  trace->header.source = "validate-serving";
  trace->header.description = run.description;
  trace->records.reserve(order.size());
  for (size_t i : order) {
    const ServingRunRequest& r = run.requests[i];
    TraceRequest request;
    request.arrival_ns = ArrivalNs(r, arrivals);
    request.prompt_tokens = r.prompt_tokens;
    request.output_tokens = r.output_tokens;
    request.token_ids = r.token_ids;
    trace->records.emplace_back(std::move(request));
  }
  return trace;
}

// Settings taken from the run are the run's: a value efimsim cannot take
// (tensor_parallel_size 3) is an InputError naming the run's file and field,
// not a command-line option error. Options given on the command line stay
// usage errors. RethrowAsRunError turns an option's UsageError (when taking
// a run's value, or from CheckSettingsTakenFromRun) into the InputError when
// the option's value came from the run (v.mapping says "-> --option").
[[noreturn]] void RethrowAsRunError(const ServingRun& run, const ServingValidationOptions& options,
                                    const ServingValidation& v, const UsageError& error) {
  const std::string what = error.what();
  const size_t colon = what.find(": ");
  if (what.rfind("--", 0) != 0 || colon == std::string::npos) throw error;
  const std::string option = what.substr(2, colon - 2);
  if (Given(options, option)) throw error;
  for (const auto& [field, mapped] : v.mapping) {
    if (mapped.find("-> --" + option) == std::string::npos) continue;
    throw InputError(run.files.empty() ? run.description : run.files.front(), 0, field,
                     what.substr(colon + 2) + " (efimsim's --" + option + " cannot take it)");
  }
  throw error;
}

void CheckSettingsTakenFromRun(const ServingRun& run, const ServingValidationOptions& options,
                               const ExperimentConfig& config, const ServingValidation& v) {
  try {
    CheckRunParams(config);
  } catch (const UsageError& error) {
    RethrowAsRunError(run, options, v, error);
  }
}

// validate-serving compares every request of the run: one the simulated
// engine rejects (too long for --max-model-len or for the KV cache) has no
// prediction. UsageError when a command-line option caused it, InputError
// naming the run's first file when its own configuration did.
void RequireEveryRequestServed(const ServingRun& run, const ServingValidationOptions& options,
                               const ExperimentResult& result) {
  const int64_t rejected = result.summary.engine.rejected_requests;
  if (rejected == 0) return;
  const std::string why =
      std::to_string(rejected) + " of the run's " + std::to_string(run.requests.size()) +
      " requests were rejected by the simulated engine (first: " +
      SettingText(result.info, "warnings", "rejected_requests", 0) +
      "), so they cannot be compared; every request the real server served must fit";
  for (const char* option : {"max-model-len", "num-gpu-blocks-override", "kv-blocks"}) {
    if (Given(options, option)) throw UsageError("--" + std::string(option) + ": " + why);
  }
  throw InputError(run.files.empty() ? run.description : run.files.front(), 0, "", why);
}

// Measured and predicted per-request latencies (ms) and relative errors.
struct LatencySamples {
  std::vector<double> m_ttft, p_ttft, m_tpot, p_tpot, m_e2e, p_e2e, r_ttft, r_tpot, r_e2e;

  // One request's measured and predicted TTFT and E2E (ms).
  void AddTtftAndE2e(double measured_ttft, double predicted_ttft, double measured_e2e, double predicted_e2e) {
    m_ttft.push_back(measured_ttft);
    p_ttft.push_back(predicted_ttft);
    m_e2e.push_back(measured_e2e);
    p_e2e.push_back(predicted_e2e);
    if (measured_ttft > 0) r_ttft.push_back(std::fabs(predicted_ttft - measured_ttft) / measured_ttft);
    if (measured_e2e > 0) r_e2e.push_back(std::fabs(predicted_e2e - measured_e2e) / measured_e2e);
  }
};

// Compares each request with its record (records in trace order) into
// v.requests; throws InternalError when a record is missing or not forced.
LatencySamples CompareRequests(const ServingRun& run, const std::vector<size_t>& order,
                               const std::string& arrivals, ServingValidation& v) {
  // Records come in request-id order = trace order.
  const std::vector<RequestRecord>& records = v.result.records;
  if (records.size() != order.size()) {
    throw InternalError("validate-serving: " + std::to_string(records.size()) + " records for " +
                        std::to_string(order.size()) + " requests");
  }
  LatencySamples s;
  for (size_t k = 0; k < order.size(); ++k) {
    const ServingRunRequest& r = run.requests[order[k]];
    const RequestRecord& rec = records[k];
    if (rec.cancelled || rec.output_tokens != r.output_tokens) {
      throw InternalError("validate-serving: request " + r.id + " did not complete as forced");
    }
    // A client-timed run's figures include the frontend: so do the predictions.
    const FrontendCosts& added = run.timed_at == "client" ? v.frontend : FrontendCosts{};
    const double ttft = ToMilliseconds(rec.ttft() + added.Ttft(r.prompt_tokens));
    const double e2e = ToMilliseconds(rec.e2e() + added.E2e(r.prompt_tokens, r.output_tokens));
    const double tpot = rec.has_tpot() ? rec.tpot_ms() + ToMilliseconds(Duration{added.per_output_token_ns}) : 0;
    s.AddTtftAndE2e(r.ttft_ms, ttft, r.e2e_ms, e2e);
    RequestComparison rc;
    rc.id = r.id;
    rc.prompt_tokens = r.prompt_tokens;
    rc.output_tokens = r.output_tokens;
    rc.arrival_ms = static_cast<double>(ArrivalNs(r, arrivals)) * 1e-6;
    rc.measured_ttft = r.ttft_ms;
    rc.predicted_ttft = ttft;
    rc.measured_e2e = r.e2e_ms;
    rc.predicted_e2e = e2e;
    if (r.has_tpot && rec.has_tpot()) {
      rc.measured_tpot = r.tpot_ms;
      rc.predicted_tpot = tpot;
    }
    if (r.client_ttft_ms >= 0) {
      rc.measured_client_ttft = r.client_ttft_ms;
      rc.predicted_client_ttft = ToMilliseconds(rec.ttft() + v.frontend.Ttft(r.prompt_tokens));
    }
    v.requests.push_back(rc);
    if (r.has_tpot && rec.has_tpot()) {
      s.m_tpot.push_back(r.tpot_ms);
      s.p_tpot.push_back(tpot);
      if (r.tpot_ms > 0) s.r_tpot.push_back(std::fabs(tpot - r.tpot_ms) / r.tpot_ms);
    }
  }
  return s;
}

// Client-side TTFT and E2E (engine predictions plus the frontend) against
// the client's measurements, for the requests that have both views; and
// the measured client-minus-engine TTFT against the frontend's, into
// v.frontend_check. Nothing when no request has client timings.
LatencySamples CompareClientSide(const ServingRun& run, const std::vector<size_t>& order, ServingValidation& v) {
  LatencySamples s;
  std::vector<int64_t> prompts;
  std::vector<double> measured_diff, abs_error;
  FrontendComparison f;
  for (size_t k = 0; k < order.size(); ++k) {
    const ServingRunRequest& r = run.requests[order[k]];
    if (r.client_ttft_ms < 0) continue;
    const RequestRecord& rec = v.result.records[k];
    const double ttft = ToMilliseconds(rec.ttft() + v.frontend.Ttft(r.prompt_tokens));
    const double e2e = ToMilliseconds(rec.e2e() + v.frontend.E2e(r.prompt_tokens, r.output_tokens));
    s.AddTtftAndE2e(r.client_ttft_ms, ttft, r.client_e2e_ms, e2e);
    const double measured = r.client_ttft_ms - r.ttft_ms;
    const double predicted = ToMilliseconds(v.frontend.Ttft(r.prompt_tokens));
    prompts.push_back(r.prompt_tokens);
    measured_diff.push_back(measured);
    abs_error.push_back(std::fabs(predicted - measured));
    f.measured_mean_ms += measured;
    f.predicted_mean_ms += predicted;
  }
  if (prompts.empty()) return s;
  f.pairs = static_cast<int64_t>(prompts.size());
  f.measured_mean_ms /= static_cast<double>(f.pairs);
  f.predicted_mean_ms /= static_cast<double>(f.pairs);
  f.median_abs_error_ms = Median(abs_error);
  f.fit = FitFrontend(prompts, measured_diff);
  v.frontend_check = f;
  return s;
}

// One request's time in the queue (arrival to scheduled) and running
// (scheduled to end), in ms.
struct Span { double arrival, scheduled, end; };

// The requests of spans waiting and running at time t.
void CountSpans(const std::vector<Span>& spans, double t, double& running, double& waiting) {
  running = waiting = 0;
  for (const Span& s : spans) {
    if (s.arrival <= t && t < s.scheduled) ++waiting;
    else if (s.scheduled <= t && t < s.end) ++running;
  }
}

// Measured and predicted queues sampled once a second up to the horizon (ms).
QueueComparison SampleQueues(const std::vector<Span>& measured, const std::vector<Span>& predicted,
                             double horizon) {
  QueueComparison q;
  for (double t = 0; t <= horizon; t += 1000.0) {
    double mr, mw, pr, pw;
    CountSpans(measured, t, mr, mw);
    CountSpans(predicted, t, pr, pw);
    ++q.samples;
    q.measured_running_mean += mr;
    q.predicted_running_mean += pr;
    q.measured_waiting_mean += mw;
    q.predicted_waiting_mean += pw;
    q.measured_waiting_peak = std::max(q.measured_waiting_peak, mw);
    q.predicted_waiting_peak = std::max(q.predicted_waiting_peak, pw);
    q.running_mean_abs_diff += std::fabs(pr - mr);
    q.waiting_mean_abs_diff += std::fabs(pw - mw);
  }
  const double n = static_cast<double>(std::max<int64_t>(1, q.samples));
  for (double* x : {&q.measured_running_mean, &q.predicted_running_mean, &q.measured_waiting_mean,
                    &q.predicted_waiting_mean, &q.running_mean_abs_diff, &q.waiting_mean_abs_diff}) {
    *x /= n;
  }
  return q;
}

// The queue over time into v.queue, when the run says when each request was
// scheduled (arrivals on the engine's clock, so both sides share one axis).
void CompareQueue(const ServingRun& run, const std::vector<size_t>& order, const std::string& arrivals,
                  ServingValidation& v) {
  bool has_schedule = arrivals == "engine";
  for (const ServingRunRequest& r : run.requests) has_schedule = has_schedule && r.scheduled_ms >= 0;
  if (!has_schedule) return;
  const std::vector<RequestRecord>& records = v.result.records;
  std::vector<Span> measured, predicted;
  double horizon = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    const ServingRunRequest& r = run.requests[order[k]];
    const double a = static_cast<double>(ArrivalNs(r, arrivals)) * 1e-6;
    measured.push_back({a, a + r.scheduled_ms, a + r.e2e_ms});
    const RequestRecord& rec = records[k];
    const double pa = ToMilliseconds(rec.arrival.time_since_epoch());
    predicted.push_back({pa, ToMilliseconds(rec.first_scheduled.time_since_epoch()),
                         ToMilliseconds(rec.finish.time_since_epoch())});
    horizon = std::max({horizon, a + r.e2e_ms, predicted.back().end});
  }
  v.queue = SampleQueues(measured, predicted, horizon);
}

// Appends metric name's measured/predicted statistics and errors to v.metrics.
void AddMetric(const char* name, const std::vector<double>& m, const std::vector<double>& p,
               const std::vector<double>& rel, ServingValidation& v) {
  MetricComparison c;
  c.metric = name;
  c.samples = static_cast<int64_t>(m.size());
  Stats(m, c.measured);
  Stats(p, c.predicted);
  for (int i = 0; i < 5; ++i) {
    c.error[i] = c.measured[i] != 0 ? (c.predicted[i] - c.measured[i]) / c.measured[i] : 0;
  }
  c.per_request_median_abs_error = Median(rel);
  v.metrics.push_back(c);
}

// The frontend check's lines: measured against predicted client-minus-
// engine TTFT, and the line fitted through the measured differences.
std::string RenderFrontendCheck(const FrontendComparison& f) {
  char text[512];
  std::snprintf(text, sizeof text,
                "frontend, client minus engine TTFT over %lld requests with both:\n"
                "  measured mean %.2f ms, predicted mean %.2f ms, per-request median |error| %.2f ms\n"
                "  fit (least squares, outliers > 3x median |residual| refitted out): %.3f ms + %.3f us "
                "per prompt token (%lld of %lld kept); residuals over all: median |r| %.2f ms, mean %+.2f ms\n",
                static_cast<long long>(f.pairs), f.measured_mean_ms, f.predicted_mean_ms, f.median_abs_error_ms,
                f.fit.per_request_ms, f.fit.per_prompt_token_us, static_cast<long long>(f.fit.kept),
                static_cast<long long>(f.fit.pairs), f.fit.median_abs_residual_ms, f.fit.mean_residual_ms);
  return text;
}

}  // namespace

ServingValidation ValidateServing(const ServingRun& run, const ServingValidationOptions& options) {
  ServingValidation v;
  v.run_description = run.description;
  ExperimentConfig config = BaseConfig(options);
  v.frontend = ParseFrontend(options.frontend, config.engine.name);
  MapGpuAndModel(run.engine, options, config, v);
  try {
    MapEngineSettings(run.engine, options, config, v);
  } catch (const UsageError& error) {
    RethrowAsRunError(run, options, v, error);
  }
  // What efimsim does not reproduce, named.
  NameEngineDifferences(run, config, v);
  MapTensorParallel(run.engine, options, config, v);
  NameUnmodelled(run, v);

  const std::string arrivals = ChooseArrivals(run, options, v);
  const std::vector<size_t> order = ArrivalOrder(run, arrivals);
  CheckSettingsTakenFromRun(run, options, config, v);
  config.trace_path = "the run's requests (" + run.description + ")";  // a label only
  config.trace_in_memory = ReplayTrace(run, order, arrivals);
  v.result = RunExperiment(config);
  v.latency_model = SettingText(v.result.info, "latency_model", "description", 0);
  RequireEveryRequestServed(run, options, v.result);

  const LatencySamples s = CompareRequests(run, order, arrivals, v);
  CompareQueue(run, order, arrivals, v);
  AddMetric("ttft", s.m_ttft, s.p_ttft, s.r_ttft, v);
  AddMetric("tpot", s.m_tpot, s.p_tpot, s.r_tpot, v);
  AddMetric("e2e", s.m_e2e, s.p_e2e, s.r_e2e, v);
  if (run.engine.logged_prefix_cache_hit_rate) {
    // vLLM's window is its last 1000 requests' lookups (a preempted request
    // looks up again, so it can hold slightly fewer requests).
    v.prefix_cache = PrefixCacheComparison{*run.engine.logged_prefix_cache_hit_rate,
                                           v.result.summary.prefix_cache_hit_rate,
                                           run.requests.size() <= 1000};
  }
  const LatencySamples client = CompareClientSide(run, order, v);
  if (!client.m_ttft.empty()) {
    AddMetric("client_ttft", client.m_ttft, client.p_ttft, client.r_ttft, v);
    AddMetric("client_e2e", client.m_e2e, client.p_e2e, client.r_e2e, v);
  }
  return v;
}

std::string RenderServingValidation(const ServingRun& run, const ServingValidation& v) {
  std::ostringstream out;
  char line[256];
  out << "run:           " << v.run_description << "\n";
  for (size_t i = 0; i < run.files.size(); ++i) {
    out << "  file:        " << run.files[i] << " (sha256 " << run.sha256[i].substr(0, 16) << "...)\n";
  }
  out << "arrivals:      " << v.arrivals << "\n";
  out << "configuration: run -> efimsim\n";
  for (const auto& [k, value] : v.mapping) out << "  " << k << ": " << value << "\n";
  out << "latency model: " << v.latency_model << "\n";
  out << "frontend:      " << v.frontend.Describe() << "\n";
  out << "not reproduced:\n";
  for (const std::string& n : v.not_reproduced) out << "  - " << n << "\n";
  out << "simulated:     " << v.result.summary.requests_completed << " requests, "
      << v.result.summary.engine.steps << " steps, " << v.result.summary.engine.preemptions
      << " preemptions, prefix-cache hit rate ";
  std::snprintf(line, sizeof line, "%.1f%%, peak KV use %.1f%% of %lld blocks\n",
                100.0 * v.result.summary.prefix_cache_hit_rate, 100.0 * v.result.summary.peak_kv_usage,
                static_cast<long long>(v.result.summary.engine.kv_blocks_total));
  out << line << "\n";
  std::snprintf(line, sizeof line, "%-6s %-7s %12s %12s %9s\n", "metric", "stat", "measured ms",
                "predicted ms", "error");
  out << line;
  const char* stats[5] = {"mean", "median", "p90", "p95", "p99"};
  for (const MetricComparison& c : v.metrics) {
    for (int i = 0; i < 5; ++i) {
      std::snprintf(line, sizeof line, "%-6s %-7s %12.2f %12.2f %+8.1f%%\n",
                    i == 0 ? c.metric.c_str() : "", stats[i], c.measured[i], c.predicted[i],
                    100.0 * c.error[i]);
      out << line;
    }
    std::snprintf(line, sizeof line, "%-6s per-request median |error| %.1f%% over %lld requests\n", "",
                  100.0 * c.per_request_median_abs_error, static_cast<long long>(c.samples));
    out << line;
  }
  if (v.queue) {
    const QueueComparison& q = *v.queue;
    std::snprintf(line, sizeof line,
                  "queue, once a second over %lld s (measured from the run's timestamps vs simulated):\n"
                  "  running: mean %.1f vs %.1f, mean |difference| %.1f\n"
                  "  waiting: mean %.1f vs %.1f, peak %.0f vs %.0f, mean |difference| %.1f\n",
                  static_cast<long long>(q.samples), q.measured_running_mean, q.predicted_running_mean,
                  q.running_mean_abs_diff, q.measured_waiting_mean, q.predicted_waiting_mean,
                  q.measured_waiting_peak, q.predicted_waiting_peak, q.waiting_mean_abs_diff);
    out << line;
  }
  if (v.frontend_check) out << RenderFrontendCheck(*v.frontend_check);
  if (v.prefix_cache) {
    const PrefixCacheComparison& p = *v.prefix_cache;
    std::snprintf(line, sizeof line,
                  "prefix-cache hit rate: measured %.1f%% (vllm.log's last), predicted %.1f%% (%s)\n",
                  100.0 * p.measured, 100.0 * p.predicted,
                  p.same_window ? "both over the whole run"
                                : "vLLM's over its last 1000 requests, efimsim's over the whole run");
    out << line;
  }
  out << (run.timed_at == "client"
              ? "(TTFT and E2E from the client's send, predicted as the engine's plus the frontend's; "
          : v.frontend_check
              ? "(TTFT and E2E from the engine's queue time; client_ttft and client_e2e from the client's "
                "send, predicted as the engine's plus the frontend's; "
              : "(TTFT and E2E from the engine's queue time, ")
      << "TPOT = (last - first) / (outputs - 1), as the run's tools define them; error = (predicted - "
         "measured) / measured)\n";
  return out.str();
}

}  // namespace efimsim
