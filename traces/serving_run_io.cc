#include "traces/serving_run.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "sim/base/errors.h"
#include "sim/base/sha256.h"
#include "traces/serving_run_detail.h"
#include "traces/sharegpt_reader.h"

namespace efimsim {
namespace {

using namespace serving_run_detail;
namespace fs = std::filesystem;

// The workload-line index a request id names: "bench-12" or "12".
std::optional<int64_t> IdIndex(const std::string& id) {
  const size_t dash = id.find_last_of('-');
  const std::string digits = dash == std::string::npos ? id : id.substr(dash + 1);
  if (digits.empty() || digits.size() > 12 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  return std::stoll(digits);
}

struct WorkloadLine {
  int64_t line = 0;
  int64_t input_toks = 0, output_toks = 0, arrival_ns = 0;
  TokenVector ids;
};

// The workload's lines, each parsed by the ShareGPT importer's line parser
// (traces/sharegpt_reader.h: the same fields, checks and errors as
// `--workload trace` on this file), in non-decreasing arrival order.
std::vector<WorkloadLine> ReadWorkload(const std::string& path, const std::string& bytes) {
  std::vector<WorkloadLine> out;
  for (const auto& [number, text] : Lines(bytes)) {
    ShareGptRow row = ParseShareGptLine(text, path, number);
    WorkloadLine w;
    w.line = number;
    w.input_toks = row.input_toks;
    w.output_toks = row.output_toks;
    w.arrival_ns = row.arrival_time_ns;
    if (!out.empty() && w.arrival_ns < out.back().arrival_ns) {
      throw InputError(path, number, "arrival_time_ns", "earlier than the previous line's");
    }
    w.ids = std::move(row.token_ids);  // empty: lengths only, prompts share nothing
    out.push_back(std::move(w));
  }
  if (out.empty()) throw InputError(path, 0, "requests", "the workload has no requests");
  return out;
}

// True when `value` converts to T without loss: integers only from JSON
// integers (nlohmann converts a double such as 1e79 to int64 with undefined
// behaviour), every element of an integer list so. Fuzz finding 10.
template <class T>
bool HoldsExactly(const Json& value) {
  if constexpr (std::is_same_v<T, int64_t>) {
    return value.is_number_integer();
  } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
    return value.is_array() && std::all_of(value.begin(), value.end(), [](const Json& element) {
             return element.is_number_integer();
           });
  } else {
    return true;  // other types: nlohmann's own checks throw, caught below
  }
}

template <class T>
std::optional<T> Optional(const Json& object, std::initializer_list<const char*> path) {
  const Json* at = &object;
  for (const char* key : path) {
    if (!at->is_object() || !at->contains(key)) return std::nullopt;
    at = &at->at(key);
  }
  if (at->is_null() || !HoldsExactly<T>(*at)) return std::nullopt;
  try {
    return at->get<T>();
  } catch (const Json::exception&) {
    return std::nullopt;
  }
}

std::string DatasetPathFromMeta(const Json& meta) {
  return Optional<std::string>(meta, {"dataset_path"}).value_or("");
}

// A field at `path` that may be absent (or null); present with the wrong
// type is an InputError naming the dotted path.
template <class T>
std::optional<T> Typed(const Fields& meta, std::initializer_list<const char*> path) {
  const Json* at = &meta.json();
  std::string name;
  for (const char* key : path) {
    if (!name.empty()) name += '.';  // piecewise: g++ 12's -Wrestrict misfires on "." + string&&
    name += key;
    if (!at->is_object() || !at->contains(key)) return std::nullopt;
    at = &at->at(key);
  }
  if (at->is_null()) return std::nullopt;
  bool ok = false;
  if constexpr (std::is_same_v<T, bool>) ok = at->is_boolean();
  else if constexpr (std::is_same_v<T, int64_t>) ok = at->is_number_integer();
  else if constexpr (std::is_same_v<T, std::string>) ok = at->is_string();
  if (!ok) {
    throw InputError(meta.file(), 0, name,
                     std::is_same_v<T, bool> ? "must be true or false"
                     : std::is_same_v<T, int64_t> ? "must be an integer" : "must be a string");
  }
  return at->get<T>();
}

ServingRunEngine EngineFromMeta(const Fields& meta) {
  ServingRunEngine e;
  const Json& j = meta.json();
  e.vllm_version = Typed<std::string>(meta, {"vllm_version"}).value_or("");
  e.model = Typed<std::string>(meta, {"model"}).value_or("");
  // The replay's core: KV capacity and batch limits are required.
  const Fields kv = meta.Object("kv_cache");
  e.num_gpu_blocks = kv.Int("num_gpu_blocks");
  e.block_size = kv.Int("block_size");
  e.enable_prefix_caching = Typed<bool>(meta, {"kv_cache", "enable_prefix_caching"});
  if (*e.num_gpu_blocks < 1) throw InputError(meta.file(), 0, "kv_cache.num_gpu_blocks", "must be >= 1");
  if (*e.block_size < 1) throw InputError(meta.file(), 0, "kv_cache.block_size", "must be >= 1");
  const Fields kwargs = meta.Object("engine_kwargs");
  e.max_num_seqs = kwargs.Int("max_num_seqs");
  e.max_num_batched_tokens = kwargs.Int("max_num_batched_tokens");
  if (*e.max_num_seqs < 1) throw InputError(meta.file(), 0, "engine_kwargs.max_num_seqs", "must be >= 1");
  if (*e.max_num_batched_tokens < 1) {
    throw InputError(meta.file(), 0, "engine_kwargs.max_num_batched_tokens", "must be >= 1");
  }
  e.tensor_parallel_size = Typed<int64_t>(meta, {"engine_kwargs", "tensor_parallel_size"});
  e.data_parallel_size = Typed<int64_t>(meta, {"engine_kwargs", "data_parallel_size"});
  e.max_model_len = Typed<int64_t>(meta, {"engine_kwargs", "max_model_len"});
  e.dtype = Typed<std::string>(meta, {"engine_kwargs", "dtype"});
  e.kv_cache_dtype = Typed<std::string>(meta, {"engine_kwargs", "kv_cache_dtype"});
  e.device_name = Typed<std::string>(meta, {"hardware", "device_name"}).value_or("");
  // The resolved VllmConfig: what vLLM chose for what the command left open.
  e.enforce_eager = Typed<bool>(meta, {"resolved_config", "model_config", "enforce_eager"});
  if (!e.enforce_eager) e.enforce_eager = Typed<bool>(meta, {"engine_kwargs", "enforce_eager"});
  e.enable_chunked_prefill =
      Optional<bool>(j, {"resolved_config", "scheduler_config", "enable_chunked_prefill"});
  e.async_scheduling = Optional<bool>(j, {"resolved_config", "scheduler_config", "async_scheduling"});
  e.scheduler_policy = Optional<std::string>(j, {"resolved_config", "scheduler_config", "policy"});
  e.long_prefill_token_threshold =
      Optional<int64_t>(j, {"resolved_config", "scheduler_config", "long_prefill_token_threshold"});
  e.max_num_partial_prefills =
      Optional<int64_t>(j, {"resolved_config", "scheduler_config", "max_num_partial_prefills"});
  e.stream_interval = Optional<int64_t>(j, {"resolved_config", "scheduler_config", "stream_interval"});
  if (const auto sizes = Optional<std::vector<int64_t>>(
          j, {"resolved_config", "compilation_config", "cudagraph_capture_sizes"})) {
    e.cudagraph_capture_sizes = *sizes;
  }
  if (const auto mode = Optional<std::vector<int64_t>>(
          j, {"resolved_config", "compilation_config", "cudagraph_mode"})) {
    std::string text;
    for (int64_t m : *mode) {
      if (!text.empty()) text += ",";
      text += std::to_string(m);
    }
    e.cudagraph_mode = "[" + text + "]";
  } else if (const auto mode_s = Optional<std::string>(
                 j, {"resolved_config", "compilation_config", "cudagraph_mode"})) {
    e.cudagraph_mode = *mode_s;
  }
  const Json* spec = nullptr;
  if (j.contains("resolved_config") && j["resolved_config"].contains("speculative_config")) {
    spec = &j["resolved_config"]["speculative_config"];
  }
  if (spec != nullptr && !spec->is_null()) e.speculative_config = spec->dump();
  return e;
}

// Checks the workload's SHA-256 against meta.json's dataset_hash, when it has
// one: the workload must be the one the run served.
void CheckDatasetHash(const Fields& meta, const std::string& meta_path, const std::string& workload_path,
                      const std::string& workload_sha256) {
  if (meta.Has("dataset_hash")) {
    const std::string recorded = meta.String("dataset_hash");
    if (recorded != workload_sha256) {
      throw InputError(workload_path, 0, "sha256",
                       "is " + workload_sha256 + " but " + meta_path + " field dataset_hash records " +
                           recorded + ": not the workload this run served");
    }
  }
}

// Reads requests.jsonl lines into the requests of the workload they served:
// each matched to its workload line by id, checked against it, and timed.
class LlmServingSimRequests {
 public:
  LlmServingSimRequests(const std::string& requests_path, const std::string& workload_path,
                        const std::vector<WorkloadLine>& workload, std::vector<ServingRunRequest>& requests)
      : requests_path_(requests_path), workload_path_(workload_path), workload_(workload),
        requests_(requests), seen_line_(workload.size(), 0) {
    requests_.resize(workload_.size());
  }

  // Reads line number (text) into its request; throws InputError naming it.
  void Read(int64_t number, const std::string& text) {
    const Json json = ParseJson(text, requests_path_, number);
    const Fields f(json, requests_path_, number);
    const std::string id = f.String("request_id");
    const size_t index = IndexOf(id, number);
    const WorkloadLine& w = workload_[index];
    const int64_t input_toks = f.Int("input_toks");
    const int64_t output_toks = f.Int("output_toks");
    CheckTokens(number, "input_toks", input_toks, w, w.input_toks);
    CheckTokens(number, "output_toks", output_toks, w, w.output_toks);
    f.Number("arrival_time");  // present and a number (client clock; not used: validate.py
                               // measures from queued_ts, the engine's clock)
    const double queued = f.Number("queued_ts");
    const double scheduled = f.Number("scheduled_ts");
    const double first = f.Number("first_token_ts");
    const double last = f.Number("last_token_ts");
    if (scheduled < queued) throw InputError(requests_path_, number, "scheduled_ts", "before queued_ts");
    if (first < scheduled) throw InputError(requests_path_, number, "first_token_ts", "before scheduled_ts");
    if (last < first) throw InputError(requests_path_, number, "last_token_ts", "before first_token_ts");
    ServingRunRequest& r = requests_[index];
    r.id = id;
    r.prompt_tokens = w.input_toks;
    r.output_tokens = w.output_toks;
    r.token_ids = w.ids;
    r.workload_arrival_ns = w.arrival_ns - workload_.front().arrival_ns;
    r.engine_arrival_ns = SecondsToNs(queued);  // made relative below
    // bench/core/validate.py: TTFT and latency from queued_ts (the engine's
    // clock; arrival_time is the client's wall clock), TPOT over outputs
    // after the first.
    r.scheduled_ms = (scheduled - queued) * 1000.0;
    r.ttft_ms = (first - queued) * 1000.0;
    r.e2e_ms = (last - queued) * 1000.0;
    r.has_tpot = output_toks > 1;
    if (r.has_tpot) r.tpot_ms = (last - first) / static_cast<double>(output_toks - 1) * 1000.0;
  }

  // Throws InputError when a workload line has no request (line_count read).
  void CheckAllSeen(size_t line_count) const {
    for (size_t i = 0; i < workload_.size(); ++i) {
      if (seen_line_[i] == 0) {
        throw InputError(requests_path_, 0, "request_id",
                         "no request for " + workload_path_ + " line " +
                             std::to_string(workload_[i].line) + " (index " + std::to_string(i) +
                             "): " + std::to_string(line_count) + " requests for " +
                             std::to_string(workload_.size()) + " workload lines");
      }
    }
  }

 private:
  // The workload index request id names, seen on no earlier line.
  size_t IndexOf(const std::string& id, int64_t number) {
    const std::optional<int64_t> index = IdIndex(id);
    if (!index || *index < 0 || *index >= static_cast<int64_t>(workload_.size())) {
      throw InputError(requests_path_, number, "request_id",
                       "'" + id + "' names no request of " + workload_path_ + " (" +
                           std::to_string(workload_.size()) +
                           " lines; ids are <prefix>-<0-based line index>)");
    }
    if (seen_line_[*index] != 0) {
      throw InputError(requests_path_, number, "request_id",
                       "'" + id + "' also on line " + std::to_string(seen_line_[*index]));
    }
    seen_line_[*index] = number;
    return static_cast<size_t>(*index);
  }

  // Throws InputError when field's count differs from the workload line's.
  void CheckTokens(int64_t number, const char* field, int64_t count, const WorkloadLine& w,
                   int64_t expected) const {
    if (count != expected) {
      throw InputError(requests_path_, number, field,
                       std::to_string(count) + " but " + workload_path_ + " line " +
                           std::to_string(w.line) + " has " + std::to_string(expected));
    }
  }

  const std::string& requests_path_;
  const std::string& workload_path_;
  const std::vector<WorkloadLine>& workload_;
  std::vector<ServingRunRequest>& requests_;
  std::vector<int64_t> seen_line_;
};

// Makes engine arrivals relative to the first request queued.
void MakeEngineArrivalsRelative(std::vector<ServingRunRequest>& requests) {
  int64_t first_queued = std::numeric_limits<int64_t>::max();
  for (const auto& r : requests) first_queued = std::min(first_queued, r.engine_arrival_ns);
  for (auto& r : requests) r.engine_arrival_ns -= first_queued;
}

// A vllm bench result's per-request arrays, checked to be arrays of one
// length; the optional ones null when absent.
struct BenchArrays {
  const Json& input_lens;
  const Json& output_lens;
  const Json& ttfts;
  const Json& itls;
  const Json* errors;
  const Json* latencies;
  const Json* start_times;
  size_t n;
};

// Field key of f, which must be an array; throws InputError naming it.
const Json& BenchArray(const Fields& f, const std::string& path, const char* key) {
  const Json& v = f.Get(key);
  if (!v.is_array()) {
    throw InputError(path, 0, key,
                     "must be an array (was the result saved with --save-detailed?)");
  }
  return v;
}

// The per-request arrays of f, each as long as input_lens, at least one
// request; throws InputError naming the first that is not.
BenchArrays ReadBenchArrays(const Fields& f, const std::string& path) {
  auto array = [&](const char* key) -> const Json& { return BenchArray(f, path, key); };
  const Json& input_lens = array("input_lens");
  const Json& output_lens = array("output_lens");
  const Json& ttfts = array("ttfts");
  const Json& itls = array("itls");
  const size_t n = input_lens.size();
  auto same_length = [&](const char* key, const Json& v) {
    if (v.size() != n) {
      throw InputError(path, 0, key,
                       "has " + std::to_string(v.size()) + " entries, input_lens has " +
                           std::to_string(n));
    }
  };
  same_length("output_lens", output_lens);
  same_length("ttfts", ttfts);
  same_length("itls", itls);
  const Json* errors = f.Has("errors") ? &array("errors") : nullptr;
  const Json* latencies = f.Has("latencies") ? &array("latencies") : nullptr;
  const Json* start_times = f.Has("start_times") ? &array("start_times") : nullptr;
  if (errors) same_length("errors", *errors);
  if (latencies) same_length("latencies", *latencies);
  if (start_times) same_length("start_times", *start_times);
  if (n == 0) throw InputError(path, 0, "input_lens", "no requests");
  return {input_lens, output_lens, ttfts, itls, errors, latencies, start_times, n};
}

// The run's request rate, client concurrency and model id, where recorded.
void ReadBenchEngine(const Fields& f, ServingRunEngine& engine) {
  if (f.Has("request_rate")) {
    const Json& rate = f.Get("request_rate");
    if (rate.is_number()) engine.request_rate = rate.get<double>();
    else if (rate.is_string() && (rate.get<std::string>() == "inf" || rate.get<std::string>() == "Infinity"))
      engine.request_rate = std::numeric_limits<double>::infinity();
  }
  if (f.Has("max_concurrency") && f.Get("max_concurrency").is_number_integer()) {
    engine.max_concurrency = f.Int("max_concurrency");
  }
  if (f.Has("model_id") && f.Get("model_id").is_string()) engine.model = f.String("model_id");
}

// key[i] of v, a finite number >= 0; throws InputError naming key[i].
double BenchNumberAt(const std::string& path, const Json& v, const char* key, size_t i) {
  const std::string field = std::string(key) + "[" + std::to_string(i) + "]";
  if (!v[i].is_number()) throw InputError(path, 0, field, "must be a number");
  const double x = v[i].get<double>();
  if (!std::isfinite(x) || x < 0) throw InputError(path, 0, field, "must be finite and >= 0");
  return x;
}

// Whether request i failed in the run (a non-empty errors[i]).
bool BenchRequestFailed(const BenchArrays& a, size_t i) {
  return a.errors && !(*a.errors)[i].is_null() &&
         !((*a.errors)[i].is_string() && (*a.errors)[i].get<std::string>().empty());
}

// Request i's latency (s): latencies[i], or without latencies the first
// token's ttft plus every inter-token gap; throws InputError naming a bad one.
double BenchLatency(const std::string& path, const BenchArrays& a, size_t i, double ttft) {
  const std::string index = std::to_string(i);
  double latency = 0;
  if (a.latencies) {
    latency = BenchNumberAt(path, *a.latencies, "latencies", i);
  } else {
    // Versions without `latencies`: the last token arrives after the
    // first plus every inter-token gap.
    latency = ttft;
    for (size_t k = 0; k < a.itls[i].size(); ++k) {
      if (!a.itls[i][k].is_number()) {
        throw InputError(path, 0, "itls[" + index + "][" + std::to_string(k) + "]",
                         "must be a number");
      }
      latency += a.itls[i][k].get<double>();
    }
  }
  if (latency < ttft) throw InputError(path, 0, "latencies[" + index + "]", "shorter than ttfts[" + index + "]");
  return latency;
}

// Request i of a completed request, its send time relative to first_start;
// throws InputError naming the first bad field.
ServingRunRequest BenchRequest(const std::string& path, const BenchArrays& a, size_t i, double first_start) {
  const std::string index = std::to_string(i);
  if (!a.input_lens[i].is_number_integer() || a.input_lens[i].get<int64_t>() < 1) {
    throw InputError(path, 0, "input_lens[" + index + "]", "must be an integer >= 1");
  }
  if (!a.output_lens[i].is_number_integer() || a.output_lens[i].get<int64_t>() < 1) {
    throw InputError(path, 0, "output_lens[" + index + "]", "must be an integer >= 1");
  }
  ServingRunRequest r;
  r.id = index;
  r.prompt_tokens = a.input_lens[i].get<int64_t>();
  r.output_tokens = a.output_lens[i].get<int64_t>();
  const double ttft = BenchNumberAt(path, a.ttfts, "ttfts", i);
  if (!a.itls[i].is_array()) throw InputError(path, 0, "itls[" + index + "]", "must be an array");
  const double latency = BenchLatency(path, a, i, ttft);
  r.ttft_ms = ttft * 1000.0;
  r.e2e_ms = latency * 1000.0;
  // serve.py calculate_metrics: tpot = (latency - ttft) / (output_len - 1).
  r.has_tpot = r.output_tokens > 1;
  if (r.has_tpot) r.tpot_ms = (latency - ttft) / static_cast<double>(r.output_tokens - 1) * 1000.0;
  if (a.start_times) {
    r.engine_arrival_ns = SecondsToNs(BenchNumberAt(path, *a.start_times, "start_times", i) - first_start);
    r.workload_arrival_ns = r.engine_arrival_ns;
  }
  return r;
}

// Throws InputError when the run has no send times and a finite (or no)
// request rate: its arrivals cannot be replayed.
void CheckBenchSendTimes(const std::string& path, const BenchArrays& a, const ServingRunEngine& engine) {
  if (!a.start_times) {
    if (engine.request_rate && std::isinf(*engine.request_rate)) {
      // request_rate inf: every request was sent at once.
    } else {
      throw InputError(path, 0, "start_times",
                       "missing: the requests' send times are needed to replay a finite request "
                       "rate (vLLM versions that save start_times; or a run with --request-rate inf)");
    }
  }
}

// The files of an otel / guidellm run (traces/serving_run.h), by role.
struct SpansRunFiles {
  std::string spans, guidellm, log;
};

// What a file of a spans run is, from its name (*.log) or its first 4 KiB:
// "spans", "guidellm", "log", or "" for none of them.
std::string SpansRunRole(const std::string& path) {
  if (path.size() >= 4 && path.substr(path.size() - 4) == ".log") return "log";
  std::ifstream in(path, std::ios::binary);
  std::string head(4096, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(std::max<std::streamsize>(0, in.gcount())));
  if (head.find("\"resourceSpans\"") != std::string::npos) return "spans";
  if (head.find("\"guidellm_version\"") != std::string::npos) return "guidellm";
  return "";
}

// True when `paths` name a spans run (a folder holding traces.json or
// guidellm-results.json, or such files), its files in `files`; UsageError
// when some of several paths are and others are not.
bool FindSpansRunFiles(const std::vector<std::string>& paths, SpansRunFiles& files) {
  std::error_code ec;
  if (paths.size() == 1 && fs::is_directory(paths[0], ec)) {
    const fs::path dir(paths[0]);
    auto present = [&](const char* name) {
      return fs::is_regular_file(dir / name, ec) ? (dir / name).string() : std::string();
    };
    files = {present("traces.json"), present("guidellm-results.json"), present("vllm.log")};
    return !files.spans.empty() || !files.guidellm.empty();
  }
  std::vector<std::string> others;
  for (const std::string& path : paths) {
    const std::string role = fs::is_regular_file(path, ec) ? SpansRunRole(path) : "";
    std::string* slot = role == "spans" ? &files.spans : role == "guidellm" ? &files.guidellm
                        : role == "log" ? &files.log : nullptr;
    if (slot == nullptr) {
      others.push_back(path);
    } else if (!slot->empty()) {
      throw UsageError("validate-serving: two " + role + " files given ('" + *slot + "', '" + path + "')");
    } else {
      *slot = path;
    }
  }
  if (files.spans.empty() && files.guidellm.empty()) return false;
  if (!others.empty()) {
    throw UsageError("validate-serving: '" + others.front() + "' is neither vLLM's OpenTelemetry spans, "
                     "GuideLLM's results nor a vllm.log (with spans or GuideLLM results, give only those)");
  }
  return true;
}

}  // namespace

ServingRun ReadLlmServingSimRun(const std::string& meta_path, const std::string& requests_path,
                                const std::string& workload_path) {
  ServingRun run;
  run.format = "llmservingsim";
  const std::string meta_bytes = ReadBytes(meta_path);
  const std::string requests_bytes = ReadBytes(requests_path);
  const std::string workload_bytes = ReadBytes(workload_path);
  run.files = {meta_path, requests_path, workload_path};
  run.sha256 = {Sha256Hex(meta_bytes), Sha256Hex(requests_bytes), Sha256Hex(workload_bytes)};

  const Json meta_json = ParseJson(meta_bytes, meta_path, 0);
  const Fields meta(meta_json, meta_path, 0);
  run.engine = EngineFromMeta(meta);
  CheckDatasetHash(meta, meta_path, workload_path, run.sha256[2]);

  const std::vector<WorkloadLine> workload = ReadWorkload(workload_path, workload_bytes);
  if (meta.Has("num_requests") && meta.Int("num_requests") != static_cast<int64_t>(workload.size())) {
    throw InputError(meta_path, 0, "num_requests",
                     "is " + std::to_string(meta.Int("num_requests")) + " but " + workload_path +
                         " has " + std::to_string(workload.size()) + " requests");
  }

  LlmServingSimRequests requests(requests_path, workload_path, workload, run.requests);
  const auto lines = Lines(requests_bytes);
  for (const auto& [number, text] : lines) requests.Read(number, text);
  requests.CheckAllSeen(lines.size());
  MakeEngineArrivalsRelative(run.requests);
  run.description = "LLMServingSim bench run: vLLM " + run.engine.vllm_version + ", " +
                    run.engine.model + " on " + run.engine.device_name + ", " +
                    std::to_string(run.requests.size()) + " requests";
  return run;
}

ServingRun ReadVllmBenchResult(const std::string& path) {
  ServingRun run;
  run.format = "vllm-bench";
  run.timed_at = "client";  // serve.py times from each request's send
  const std::string bytes = ReadBytes(path);
  run.files = {path};
  run.sha256 = {Sha256Hex(bytes)};
  const Json json = ParseJson(bytes, path, 0);
  const Fields f(json, path, 0);
  const BenchArrays arrays = ReadBenchArrays(f, path);
  ReadBenchEngine(f, run.engine);

  double first_start = std::numeric_limits<double>::infinity();
  if (arrays.start_times) {
    for (size_t i = 0; i < arrays.n; ++i) {
      first_start = std::min(first_start, BenchNumberAt(path, *arrays.start_times, "start_times", i));
    }
  }
  for (size_t i = 0; i < arrays.n; ++i) {
    if (BenchRequestFailed(arrays, i)) {
      const std::string index = std::to_string(i);
      run.excluded.push_back("request " + index + ": failed in the run (errors[" + index + "])");
      continue;
    }
    run.requests.push_back(BenchRequest(path, arrays, i, first_start));
  }
  if (run.requests.empty()) throw InputError(path, 0, "errors", "every request failed");
  CheckBenchSendTimes(path, arrays, run.engine);
  std::stable_sort(run.requests.begin(), run.requests.end(),
                   [](const ServingRunRequest& a, const ServingRunRequest& b) {
                     return a.workload_arrival_ns < b.workload_arrival_ns;
                   });
  run.description = "vllm bench serve result: " + std::to_string(run.requests.size()) +
                    " requests" + (run.engine.model.empty() ? "" : ", model " + run.engine.model);
  return run;
}

ServingRun ReadServingRun(const std::vector<std::string>& paths, const std::string& workload_path) {
  std::error_code ec;
  if (paths.empty()) throw UsageError("validate-serving: give a run folder or its files");
  SpansRunFiles spans_run;
  if (FindSpansRunFiles(paths, spans_run)) {
    return ReadSpansRun(spans_run.spans, spans_run.guidellm, spans_run.log);
  }
  std::string meta, requests, workload = workload_path;
  if (paths.size() == 1 && fs::is_directory(paths[0], ec)) {
    const fs::path dir(paths[0]);
    for (const fs::path& candidate : {dir / "vllm", dir}) {
      if (fs::is_regular_file(candidate / "meta.json", ec) ||
          fs::is_regular_file(candidate / "requests.jsonl", ec)) {
        meta = (candidate / "meta.json").string();
        requests = (candidate / "requests.jsonl").string();
        break;
      }
    }
    if (meta.empty()) {
      throw InputError(paths[0], 0, "vllm/meta.json",
                       "missing: not an LLMServingSim bench run folder (expected vllm/meta.json "
                       "and vllm/requests.jsonl)");
    }
  } else if (paths.size() == 1) {
    if (!fs::exists(paths[0], ec)) throw InputError(paths[0], 0, "file", "missing");
    return ReadVllmBenchResult(paths[0]);
  } else {
    for (const std::string& p : paths) {
      const std::string name = fs::path(p).filename().string();
      if (name == "meta.json") meta = p;
      else if (name == "requests.jsonl") requests = p;
      else if (workload.empty()) workload = p;
      else throw UsageError("validate-serving: more than one workload file given ('" + workload +
                            "', '" + p + "')");
    }
    if (meta.empty() || requests.empty()) {
      throw UsageError("validate-serving: give meta.json, requests.jsonl and the workload JSONL");
    }
  }
  if (workload.empty()) {
    // meta.json's dataset_path is relative to the LLMServingSim checkout the
    // run was made in: try it against every folder above the run.
    const std::string bytes = ReadBytes(meta);
    const std::string dataset = DatasetPathFromMeta(ParseJson(bytes, meta, 0));
    if (dataset.empty()) {
      throw InputError(meta, 0, "dataset_path", "missing: give the workload with --workload-file FILE");
    }
    for (fs::path dir = fs::absolute(fs::path(meta)).parent_path();; dir = dir.parent_path()) {
      if (fs::is_regular_file(dir / dataset, ec)) {
        const fs::path relative = fs::relative(dir / dataset, ec);
        workload = (ec || relative.empty() ? dir / dataset : relative).string();
        break;
      }
      if (dir == dir.parent_path()) break;
    }
    if (workload.empty()) {
      throw InputError(meta, 0, "dataset_path",
                       "'" + dataset + "' not found in any folder above the run: give the workload "
                       "with --workload-file FILE");
    }
  }
  return ReadLlmServingSimRun(meta, requests, workload);
}

}  // namespace efimsim
