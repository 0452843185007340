#pragma once
// Helpers shared by the readers of real serving runs (serving_run_io.cc:
// LLMServingSim, vllm bench; serving_run_spans_io.cc: GuideLLM, vLLM
// OpenTelemetry spans, vllm.log). Internal to traces/; errors are
// InputError(file, line, field, message), line 0 = the whole file.

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/base/errors.h"

namespace efimsim::serving_run_detail {

using Json = nlohmann::json;

// The bytes of a regular file; InputError when missing or unreadable.
std::string ReadBytes(const std::string& path);

// `text` parsed; InputError naming file and line when it is not JSON.
Json ParseJson(const std::string& text, const std::string& file, int64_t line);

// A text file's non-blank lines with their 1-based line numbers ("\r\n" too).
std::vector<std::pair<int64_t, std::string>> Lines(const std::string& bytes);

// Seconds (as a run records them) to integer nanoseconds, rounded.
int64_t SecondsToNs(double seconds);

// Field access with errors naming file, line and the dotted field path.
class Fields {
 public:
  Fields(const Json& object, std::string file, int64_t line, std::string prefix = "")
      : object_(object), file_(std::move(file)), line_(line), prefix_(std::move(prefix)) {
    if (!object_.is_object()) throw InputError(file_, line_, Name(""), "must be a JSON object");
  }
  bool Has(const std::string& key) const {
    return object_.contains(key) && !object_.at(key).is_null();
  }
  const Json& Get(const std::string& key) const {
    if (!object_.contains(key)) throw InputError(file_, line_, Name(key), "missing");
    return object_.at(key);
  }
  Fields Object(const std::string& key) const {
    return Fields(Get(key), file_, line_, Name(key));
  }
  int64_t Int(const std::string& key) const {
    const Json& v = Get(key);
    if (!v.is_number_integer()) throw InputError(file_, line_, Name(key), "must be an integer");
    return v.get<int64_t>();
  }
  double Number(const std::string& key) const {
    const Json& v = Get(key);
    if (!v.is_number()) throw InputError(file_, line_, Name(key), "must be a number");
    const double x = v.get<double>();
    if (!std::isfinite(x)) throw InputError(file_, line_, Name(key), "must be finite");
    return x;
  }
  bool Bool(const std::string& key) const {
    const Json& v = Get(key);
    if (!v.is_boolean()) throw InputError(file_, line_, Name(key), "must be true or false");
    return v.get<bool>();
  }
  std::string String(const std::string& key) const {
    const Json& v = Get(key);
    if (!v.is_string()) throw InputError(file_, line_, Name(key), "must be a string");
    return v.get<std::string>();
  }
  std::string Name(const std::string& key) const {
    if (prefix_.empty()) return key;
    if (key.empty()) return prefix_;
    return prefix_ + "." + key;
  }
  const Json& json() const { return object_; }
  const std::string& file() const { return file_; }
  int64_t line() const { return line_; }

 private:
  const Json& object_;
  std::string file_;
  int64_t line_;
  std::string prefix_;
};

}  // namespace efimsim::serving_run_detail
