// Readers of real serving runs recorded by vLLM's OpenTelemetry tracing
// (engine side), GuideLLM (client side) and the server's vllm.log
// (traces/serving_run.h: formats otel, guidellm, guidellm+otel).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>

#include "sim/base/errors.h"
#include "sim/base/sha256.h"
#include "traces/guidellm_prompt.h"
#include "traces/serving_run.h"
#include "traces/serving_run_detail.h"
#include "traces/shared_prefix_token_ids.h"

namespace efimsim {
namespace {

using namespace serving_run_detail;

// One llm_request span's figures (seconds as recorded, tokens).
struct SpanRequest {
  std::string id;
  int64_t line = 0;
  int64_t start_ns = 0;  // unix ns
  double ttft_s = 0, e2e_s = 0, queue_s = -1;
  int64_t prompt_tokens = 0, output_tokens = 0;
};

// An OTLP/JSON integer: a JSON integer or a decimal string (OTLP writes
// int64 as strings); nullopt otherwise.
std::optional<int64_t> OtlpInt(const Json& v) {
  if (v.is_number_integer()) return v.get<int64_t>();
  if (!v.is_string()) return std::nullopt;
  const std::string s = v.get<std::string>();
  int64_t value = 0;
  const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || error != std::errc() || end != s.data() + s.size() || value < 0) return std::nullopt;
  return value;  // unix ns need 19 digits
}

// A span's attributes by key: each value's single typed member.
std::map<std::string, const Json*> Attributes(const Json& span, const std::string& path, int64_t line) {
  std::map<std::string, const Json*> out;
  if (!span.contains("attributes")) return out;
  const Json& attributes = span.at("attributes");
  if (!attributes.is_array()) throw InputError(path, line, "attributes", "must be an array");
  for (const Json& a : attributes) {
    if (!a.is_object() || !a.contains("key") || !a.at("key").is_string() || !a.contains("value") ||
        !a.at("value").is_object() || a.at("value").size() != 1) {
      throw InputError(path, line, "attributes", "each must be {key, value: {<type>Value: ...}}");
    }
    out[a.at("key").get<std::string>()] = &a.at("value").begin().value();
  }
  return out;
}

// Attribute `key` of attrs as a finite number >= 0 (required unless
// `optional`, then -1 when absent); InputError naming it.
double SpanSeconds(const std::map<std::string, const Json*>& attrs, const char* key, const std::string& path,
                   int64_t line, bool optional = false) {
  const auto it = attrs.find(key);
  if (it == attrs.end()) {
    if (optional) return -1;
    throw InputError(path, line, key, "missing");
  }
  if (!it->second->is_number() || !std::isfinite(it->second->get<double>()) || it->second->get<double>() < 0) {
    throw InputError(path, line, key, "must be a finite number >= 0 (seconds)");
  }
  return it->second->get<double>();
}

int64_t SpanTokens(const std::map<std::string, const Json*>& attrs, const char* key, const std::string& path,
                   int64_t line) {
  const auto it = attrs.find(key);
  if (it == attrs.end()) throw InputError(path, line, key, "missing");
  const std::optional<int64_t> v = OtlpInt(*it->second);
  if (!v || *v < 1 || *v > (int64_t{1} << 40)) throw InputError(path, line, key, "must be an integer >= 1");
  return *v;
}

// One llm_request span into a SpanRequest; InputError naming the field.
SpanRequest ReadSpan(const Json& span, const std::string& path, int64_t line) {
  const auto attrs = Attributes(span, path, line);
  SpanRequest r;
  r.line = line;
  const auto id = attrs.find("gen_ai.request.id");
  if (id == attrs.end() || !id->second->is_string()) {
    throw InputError(path, line, "gen_ai.request.id", "missing or not a string");
  }
  r.id = id->second->get<std::string>();
  const std::optional<int64_t> start = span.contains("startTimeUnixNano") ? OtlpInt(span.at("startTimeUnixNano"))
                                                                           : std::nullopt;
  if (!start) throw InputError(path, line, "startTimeUnixNano", "missing or not an integer");
  r.start_ns = *start;
  r.ttft_s = SpanSeconds(attrs, "gen_ai.latency.time_to_first_token", path, line);
  r.e2e_s = SpanSeconds(attrs, "gen_ai.latency.e2e", path, line);
  r.queue_s = SpanSeconds(attrs, "gen_ai.latency.time_in_queue", path, line, /*optional=*/true);
  if (r.e2e_s < r.ttft_s) throw InputError(path, line, "gen_ai.latency.e2e", "shorter than time_to_first_token");
  if (r.queue_s > r.ttft_s) throw InputError(path, line, "gen_ai.latency.time_in_queue", "longer than time_to_first_token");
  r.prompt_tokens = SpanTokens(attrs, "gen_ai.usage.prompt_tokens", path, line);
  r.output_tokens = SpanTokens(attrs, "gen_ai.usage.completion_tokens", path, line);
  return r;
}

// `key` of `object` as an array (an absent key: empty); InputError if not.
const Json& ArrayAt(const Json& object, const char* key, const std::string& path, int64_t line) {
  static const Json kEmpty = Json::array();
  if (!object.is_object()) throw InputError(path, line, key, "the enclosing value must be an object");
  if (!object.contains(key)) return kEmpty;
  if (!object.at(key).is_array()) throw InputError(path, line, key, "must be an array");
  return object.at(key);
}

// Every llm_request span of an OTLP/JSON file (one export per line).
std::vector<SpanRequest> ReadSpans(const std::string& path, const std::string& bytes) {
  std::vector<SpanRequest> out;
  for (const auto& [number, text] : Lines(bytes)) {
    const Json json = ParseJson(text, path, number);
    for (const Json& resource : ArrayAt(json, "resourceSpans", path, number)) {
      for (const Json& scope : ArrayAt(resource, "scopeSpans", path, number)) {
        for (const Json& span : ArrayAt(scope, "spans", path, number)) {
          if (!span.is_object() || !span.contains("name") || span.at("name") != "llm_request") continue;
          out.push_back(ReadSpan(span, path, number));
        }
      }
    }
  }
  if (out.empty()) throw InputError(path, 0, "spans", "no llm_request span");
  return out;
}

// One GuideLLM request: its ids, tokens and client timings.
struct GuidellmRequest {
  std::string id;  // response_id (the server's), else request_id
  int64_t prompt_tokens = 0, output_tokens = 0;
  double start_s = 0, ttft_ms = 0, latency_s = 0;
  std::optional<std::string> prompt;  // request_args' body.prompt, when recorded
};

constexpr double kMaxUnixSeconds = 4e9;

GuidellmRequest ReadGuidellmRequest(const Fields& f) {
  GuidellmRequest r;
  r.id = f.Has("response_id") ? f.String("response_id") : f.String("request_id");
  r.prompt_tokens = f.Int("prompt_tokens");
  r.output_tokens = f.Int("output_tokens");
  r.start_s = f.Number("request_start_time");
  r.ttft_ms = f.Number("time_to_first_token_ms");
  r.latency_s = f.Number("request_latency");
  if (f.Has("request_args")) r.prompt = GuidellmPromptText(f.Get("request_args"));
  if (r.prompt_tokens < 1) throw InputError(f.file(), 0, f.Name("prompt_tokens"), "must be >= 1");
  if (r.output_tokens < 1) throw InputError(f.file(), 0, f.Name("output_tokens"), "must be >= 1");
  // Unix seconds; bounded so that differences in nanoseconds fit int64
  // (fuzz finding 11: 1e300 overflowed the arrival offset).
  if (r.start_s > kMaxUnixSeconds) {
    throw InputError(f.file(), 0, f.Name("request_start_time"),
                     "must be a unix time in seconds of at most 4e9 (the year 2096)");
  }
  if (r.ttft_ms < 0 || r.start_s < 0 || r.latency_s * 1000.0 < r.ttft_ms) {
    throw InputError(f.file(), 0, f.Name("request_latency"),
                     "times must be >= 0 and the latency at least the time to first token");
  }
  return r;
}

// GuideLLM's successful requests of every benchmark (a sweep's strategies in
// order); the others named in `excluded`.
std::vector<GuidellmRequest> ReadGuidellm(const std::string& path, const std::string& bytes,
                                          std::vector<std::string>& excluded) {
  const Json json = ParseJson(bytes, path, 0);
  const Fields root(json, path, 0);
  const Json& benchmarks = root.Get("benchmarks");
  if (!benchmarks.is_array()) throw InputError(path, 0, "benchmarks", "must be an array");
  std::vector<GuidellmRequest> out;
  for (size_t b = 0; b < benchmarks.size(); ++b) {
    const std::string prefix = "benchmarks[" + std::to_string(b) + "].requests";
    const Fields requests(Fields(benchmarks[b], path, 0, "benchmarks[" + std::to_string(b) + "]").Get("requests"),
                          path, 0, prefix);
    const Json& ok = requests.Get("successful");
    if (!ok.is_array()) throw InputError(path, 0, prefix + ".successful", "must be an array");
    for (size_t i = 0; i < ok.size(); ++i) {
      out.push_back(ReadGuidellmRequest(Fields(ok[i], path, 0, prefix + ".successful[" + std::to_string(i) + "]")));
    }
    for (const char* kind : {"errored", "incomplete"}) {
      if (requests.Has(kind) && requests.Get(kind).is_array() && !requests.Get(kind).empty()) {
        excluded.push_back(std::to_string(requests.Get(kind).size()) + " " + kind + " request(s) of " + prefix);
      }
    }
  }
  if (out.empty()) throw InputError(path, 0, "benchmarks", "no successful request");
  return out;
}

// The span id GuideLLM's response_id names: vLLM appends "-<choice>".
std::string BaseId(const std::string& span_id) {
  const size_t dash = span_id.find_last_of('-');
  if (dash == std::string::npos || dash + 1 == span_id.size()) return span_id;
  const bool digits = std::all_of(span_id.begin() + static_cast<ptrdiff_t>(dash) + 1, span_id.end(),
                                  [](char c) { return c >= '0' && c <= '9'; });
  return digits ? span_id.substr(0, dash) : span_id;
}

ServingRunRequest FromSpan(const SpanRequest& s, int64_t first_start_ns) {
  ServingRunRequest r;
  r.id = s.id;
  r.prompt_tokens = s.prompt_tokens;
  r.output_tokens = s.output_tokens;
  r.engine_arrival_ns = s.start_ns - first_start_ns;
  r.workload_arrival_ns = r.engine_arrival_ns;
  r.scheduled_ms = s.queue_s >= 0 ? s.queue_s * 1000.0 : -1;
  r.ttft_ms = s.ttft_s * 1000.0;
  r.e2e_ms = s.e2e_s * 1000.0;
  r.has_tpot = r.output_tokens > 1;
  if (r.has_tpot) r.tpot_ms = (r.e2e_ms - r.ttft_ms) / static_cast<double>(r.output_tokens - 1);
  return r;
}

ServingRunRequest FromGuidellm(const GuidellmRequest& g, double first_start_s) {
  ServingRunRequest r;
  r.id = g.id;
  r.prompt_tokens = g.prompt_tokens;
  r.output_tokens = g.output_tokens;
  // Unix seconds near 1.7e9 hold a double's ~0.2 us resolution: the
  // difference is kept to whole microseconds, not to noise in the last bits.
  r.engine_arrival_ns = 1000 * std::llround((g.start_s - first_start_s) * 1e6);
  r.workload_arrival_ns = r.engine_arrival_ns;
  r.ttft_ms = g.ttft_ms;
  r.e2e_ms = g.latency_s * 1000.0;
  r.has_tpot = r.output_tokens > 1;
  if (r.has_tpot) r.tpot_ms = (r.e2e_ms - r.ttft_ms) / static_cast<double>(r.output_tokens - 1);
  return r;
}

// The spans as requests, each given its GuideLLM client timings where the
// results have its id; InputError when a pair disagrees on token counts or
// an id repeats. GuideLLM requests without a span go to `excluded`.
std::vector<ServingRunRequest> PairRequests(const std::string& spans_path, const std::vector<SpanRequest>& spans,
                                            const std::string& guidellm_path,
                                            const std::vector<GuidellmRequest>& guidellm,
                                            std::vector<std::string>& excluded) {
  int64_t first = std::numeric_limits<int64_t>::max();
  for (const SpanRequest& s : spans) first = std::min(first, s.start_ns);
  std::map<std::string, size_t> by_id;
  std::vector<ServingRunRequest> out;
  for (const SpanRequest& s : spans) {
    if (!by_id.emplace(BaseId(s.id), out.size()).second) {
      throw InputError(spans_path, s.line, "gen_ai.request.id", "'" + s.id + "' repeats");
    }
    out.push_back(FromSpan(s, first));
  }
  int64_t unpaired = 0;
  for (const GuidellmRequest& g : guidellm) {
    const auto it = by_id.find(g.id);
    if (it == by_id.end()) {
      ++unpaired;
      continue;
    }
    ServingRunRequest& r = out[it->second];
    if (r.client_ttft_ms >= 0) throw InputError(guidellm_path, 0, "response_id", "'" + g.id + "' repeats");
    if (r.prompt_tokens != g.prompt_tokens || r.output_tokens != g.output_tokens) {
      throw InputError(guidellm_path, 0, "prompt_tokens",
                       "request '" + g.id + "': " + std::to_string(g.prompt_tokens) + " + " +
                           std::to_string(g.output_tokens) + " tokens but its span has " +
                           std::to_string(r.prompt_tokens) + " + " + std::to_string(r.output_tokens));
    }
    r.client_ttft_ms = g.ttft_ms;
    r.client_e2e_ms = g.latency_s * 1000.0;
  }
  if (unpaired > 0) excluded.push_back(std::to_string(unpaired) + " GuideLLM request(s) without an engine span");
  return out;
}

void SortByArrival(std::vector<ServingRunRequest>& requests) {
  std::stable_sort(requests.begin(), requests.end(), [](const ServingRunRequest& a, const ServingRunRequest& b) {
    return a.engine_arrival_ns < b.engine_arrival_ns;
  });
}

// Token ids rebuilt from GuideLLM's prompt texts (shared_prefix_token_ids.h)
// for the requests, in arrival order; run.token_ids_rule says so.
void RebuildTokenIds(const std::vector<GuidellmRequest>& guidellm, ServingRun& run) {
  std::map<std::string, const GuidellmRequest*> by_id;
  for (const GuidellmRequest& g : guidellm) by_id.emplace(g.id, &g);
  std::vector<PromptText> prompts;
  prompts.reserve(run.requests.size());
  for (const ServingRunRequest& r : run.requests) {
    auto it = by_id.find(r.id);
    if (it == by_id.end()) it = by_id.find(BaseId(r.id));
    prompts.push_back({it == by_id.end() ? std::nullopt : it->second->prompt, r.prompt_tokens});
  }
  SharedPrefixTokenIds rebuilt = RebuildSharedPrefixTokenIds(prompts);
  if (rebuilt.with_text == 0) return;
  for (size_t i = 0; i < run.requests.size(); ++i) run.requests[i].token_ids = std::move(rebuilt.token_ids[i]);
  run.token_ids_rule =
      "token ids rebuilt from GuideLLM's prompt texts (synthetic ids; equal ids mean equal leading text): " +
      std::to_string(rebuilt.sharing) + " of " + std::to_string(rebuilt.with_text) +
      " prompts begin with text an earlier one has, " +
      std::to_string(rebuilt.sharing > 0 ? rebuilt.shared_tokens / rebuilt.sharing : 0) +
      " tokens on average (shared characters at the prompt's tokens per character)";
}

}  // namespace

ServingRun ReadSpansRun(const std::string& spans_path, const std::string& guidellm_path,
                        const std::string& log_path) {
  if (spans_path.empty() && guidellm_path.empty()) {
    throw UsageError("validate-serving: give vLLM's spans (traces.json) or GuideLLM's results");
  }
  ServingRun run;
  std::vector<SpanRequest> spans;
  std::vector<GuidellmRequest> guidellm;
  for (const std::string& path : {spans_path, guidellm_path, log_path}) {
    if (path.empty()) continue;
    const std::string bytes = ReadBytes(path);
    run.files.push_back(path);
    run.sha256.push_back(Sha256Hex(bytes));
    if (path == spans_path) spans = ReadSpans(path, bytes);
    else if (path == guidellm_path) guidellm = ReadGuidellm(path, bytes, run.excluded);
    else ReadVllmLog(path, bytes, run.engine);
  }
  if (!spans.empty()) {
    run.format = guidellm.empty() ? "otel" : "guidellm+otel";
    run.requests = PairRequests(spans_path, spans, guidellm_path, guidellm, run.excluded);
  } else {
    run.format = "guidellm";
    run.timed_at = "client";
    double first = std::numeric_limits<double>::infinity();
    for (const GuidellmRequest& g : guidellm) first = std::min(first, g.start_s);
    for (const GuidellmRequest& g : guidellm) run.requests.push_back(FromGuidellm(g, first));
  }
  SortByArrival(run.requests);
  if (!guidellm.empty()) RebuildTokenIds(guidellm, run);
  int64_t paired = 0;
  for (const ServingRunRequest& r : run.requests) paired += r.client_ttft_ms >= 0 ? 1 : 0;
  run.description = std::string(run.format == "otel" ? "vLLM OpenTelemetry request spans"
                                : run.format == "guidellm" ? "GuideLLM results"
                                                           : "vLLM OpenTelemetry request spans with GuideLLM results") +
                    (run.engine.vllm_version.empty() ? "" : ", vLLM " + run.engine.vllm_version) +
                    (run.engine.model.empty() ? "" : ", " + run.engine.model + " (vllm.log)") + ": " +
                    std::to_string(run.requests.size()) + " requests" +
                    (run.format == "guidellm+otel" ? ", " + std::to_string(paired) + " with client timings" : "");
  return run;
}

}  // namespace efimsim
