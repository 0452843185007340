// vllm.log: the engine settings a vLLM server's start-up log prints, and
// its periodic stats' last prefix-cache hit rate (traces/serving_run.h,
// ReadVllmLog). Lines it does not recognise are
// skipped; a recognised line with a malformed value is an InputError naming
// the log, the line and the setting.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <string>

#include "sim/base/errors.h"
#include "traces/serving_run.h"
#include "traces/serving_run_detail.h"

namespace efimsim {
namespace {

using serving_run_detail::Lines;

// The value of `key` in a Python-repr dict ("'key': value, ...") or in a
// "key=value, ..." list, as raw text up to the next ", " at bracket depth
// 0 (or the closing brace); nullopt when absent.
std::optional<std::string> RawValue(const std::string& text, const std::string& key, bool python_dict) {
  const std::string marker = python_dict ? "'" + key + "': " : key + "=";
  size_t at = 0;
  while ((at = text.find(marker, at)) != std::string::npos) {
    // A whole key: at the start, or after "{", " " or ",".
    if (at == 0 || text[at - 1] == ' ' || text[at - 1] == '{' || text[at - 1] == ',') break;
    at += marker.size();
  }
  if (at == std::string::npos) return std::nullopt;
  const size_t start = at + marker.size();
  int depth = 0;
  size_t end = start;
  for (; end < text.size(); ++end) {
    const char c = text[end];
    if (c == '[' || c == '{' || c == '(') ++depth;
    if ((c == ']' || c == '}' || c == ')') && depth-- == 0) break;
    if (depth == 0 && c == ',') break;
  }
  return text.substr(start, end - start);
}

// `raw` without surrounding quotes and brackets: "['a/b']" -> "a/b".
std::string Unquote(std::string raw) {
  while (!raw.empty() && (raw.front() == '[' || raw.front() == '\'' || raw.front() == '"')) raw.erase(0, 1);
  while (!raw.empty() && (raw.back() == ']' || raw.back() == '\'' || raw.back() == '"')) raw.pop_back();
  return raw;
}

// A recognised setting's value parsed; InputError naming it when malformed.
class LogLine {
 public:
  LogLine(const std::string& path, int64_t line, const std::string& text, bool python_dict)
      : path_(path), line_(line), text_(text), python_dict_(python_dict) {}

  void Int(const std::string& key, std::optional<int64_t>& out) const {
    const auto raw = RawValue(text_, key, python_dict_);
    if (!raw) return;
    std::string digits = *raw;
    digits.erase(std::remove(digits.begin(), digits.end(), ','), digits.end());
    char* end = nullptr;
    const long long v = std::strtoll(digits.c_str(), &end, 10);
    if (digits.empty() || *end != '\0' || v < 1 || v > (1LL << 40)) {
      throw InputError(path_, line_, key, "'" + *raw + "' is not an integer >= 1");
    }
    out = v;
  }
  void Bool(const std::string& key, std::optional<bool>& out) const {
    const auto raw = RawValue(text_, key, python_dict_);
    if (!raw) return;
    if (*raw != "True" && *raw != "False") throw InputError(path_, line_, key, "'" + *raw + "' is not True or False");
    out = *raw == "True";
  }
  void Double(const std::string& key, std::optional<double>& out) const {
    const auto raw = RawValue(text_, key, python_dict_);
    if (!raw) return;
    char* end = nullptr;
    const double v = std::strtod(raw->c_str(), &end);
    if (raw->empty() || *end != '\0' || !(v > 0 && v <= 1)) {
      throw InputError(path_, line_, key, "'" + *raw + "' is not a number in (0, 1]");
    }
    out = v;
  }
  void String(const std::string& key, std::string& out) const {
    const auto raw = RawValue(text_, key, python_dict_);
    if (raw && !Unquote(*raw).empty()) out = Unquote(*raw);
  }

 private:
  const std::string& path_;
  int64_t line_;
  const std::string& text_;
  bool python_dict_;
};

// The integer after `marker` in text ("num_gpu_blocks is: 2790"), thousands
// separators allowed; nullopt when the marker is absent.
std::optional<int64_t> IntAfter(const std::string& text, const std::string& marker, const std::string& path,
                                int64_t line, const char* field) {
  const size_t at = text.find(marker);
  if (at == std::string::npos) return std::nullopt;
  std::string digits;
  for (size_t i = at + marker.size(); i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == ','); ++i) {
    if (text[i] != ',') digits += text[i];
  }
  if (digits.empty() || digits.size() > 12) throw InputError(path, line, field, "not an integer after '" + marker + "'");
  return std::stoll(digits);
}

// The text after `marker` up to the end of the line (trimmed).
std::optional<std::string> RestAfter(const std::string& text, const std::string& marker) {
  const size_t at = text.find(marker);
  if (at == std::string::npos) return std::nullopt;
  std::string rest = text.substr(at + marker.size());
  while (!rest.empty() && (rest.back() == ' ' || rest.back() == '\r')) rest.pop_back();
  return rest;
}

// The percentage after `marker` ("Prefix cache hit rate: 30.7%") as a
// fraction; nullopt when the marker is absent. InputError naming `field`
// when it is not a number in [0, 100] followed by '%'.
std::optional<double> PercentAfter(const std::string& text, const std::string& marker,
                                   const std::string& path, int64_t line, const char* field) {
  const size_t at = text.find(marker);
  if (at == std::string::npos) return std::nullopt;
  const char* start = text.c_str() + at + marker.size();
  char* end = nullptr;
  const double percent = std::strtod(start, &end);
  if (end == start || *end != '%' || !(percent >= 0 && percent <= 100)) {
    throw InputError(path, line, field, "not a percentage in [0, 100] after '" + marker + "'");
  }
  return percent / 100.0;
}

// The engine config line ("Initializing a V1 LLM engine (v0.11.0) with
// config: model='...', ..."): vLLM's resolved settings.
void ReadEngineConfigLine(const LogLine& l, ServingRunEngine& e) {
  l.String("served_model_name", e.model);
  l.Int("tensor_parallel_size", e.tensor_parallel_size);
  l.Int("data_parallel_size", e.data_parallel_size);
  l.Int("max_seq_len", e.max_model_len);
  l.Bool("enforce_eager", e.enforce_eager);
  l.Bool("enable_prefix_caching", e.enable_prefix_caching);
  l.Bool("chunked_prefill_enabled", e.enable_chunked_prefill);
  std::string dtype, kv_dtype;
  l.String("dtype", dtype);
  l.String("kv_cache_dtype", kv_dtype);
  if (!dtype.empty()) e.dtype = dtype;
  if (!kv_dtype.empty()) e.kv_cache_dtype = kv_dtype;
}

}  // namespace

void ReadVllmLog(const std::string& path, const std::string& bytes, ServingRunEngine& e) {
  // -1: not printed since the last start (plain integers: g++ 12 warns,
  // wrongly, that an optional's value may be read uninitialized here).
  int64_t kv_tokens = -1;
  int64_t blocks = -1;
  for (const auto& [number, text] : Lines(bytes)) {
    if (const auto version = RestAfter(text, "vLLM API server version ")) {
      // A (re)start: what earlier starts printed no longer holds.
      e = ServingRunEngine{};
      kv_tokens = -1;
      blocks = -1;
      e.vllm_version = *version;
    }
    if (text.find("non-default args: {") != std::string::npos) {
      const LogLine l(path, number, text, /*python_dict=*/true);
      std::string model;
      l.String("model", model);
      l.String("served_model_name", model);  // wins: the name clients use
      if (!model.empty()) e.model = model;
      l.Int("max_num_seqs", e.max_num_seqs);
      l.Int("max_num_batched_tokens", e.max_num_batched_tokens);
      l.Int("max_model_len", e.max_model_len);
      l.Int("tensor_parallel_size", e.tensor_parallel_size);
      l.Int("block_size", e.block_size);
      l.Double("gpu_memory_utilization", e.gpu_memory_utilization);
      l.Bool("enable_prefix_caching", e.enable_prefix_caching);
      l.Bool("enforce_eager", e.enforce_eager);
    }
    if (text.find("LLM engine (v") != std::string::npos && text.find("with config: ") != std::string::npos) {
      ReadEngineConfigLine(LogLine(path, number, text, /*python_dict=*/false), e);
    }
    if (const auto n = IntAfter(text, "Chunked prefill is enabled with max_num_batched_tokens=", path, number,
                                "max_num_batched_tokens")) {
      e.max_num_batched_tokens = *n;
    }
    if (const auto n = IntAfter(text, "GPU KV cache size: ", path, number, "GPU KV cache size")) kv_tokens = *n;
    if (const auto n = IntAfter(text, "num_gpu_blocks is: ", path, number, "num_gpu_blocks")) blocks = *n;
    if (const auto rate = PercentAfter(text, "Prefix cache hit rate: ", path, number,
                                       "Prefix cache hit rate")) {
      e.logged_prefix_cache_hit_rate = *rate;
    }
  }
  if (blocks >= 1) e.num_gpu_blocks = blocks;
  if (kv_tokens >= 0) e.kv_cache_tokens = kv_tokens;
  // The block size, when the log gives tokens and blocks but not the size.
  if (!e.block_size && kv_tokens >= 0 && blocks >= 1 && kv_tokens % blocks == 0) {
    e.block_size = kv_tokens / blocks;
  }
}

}  // namespace efimsim
