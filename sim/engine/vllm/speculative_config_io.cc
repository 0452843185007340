// --speculative-config's JSON (nlohmann/json stays in *_io.cc files).
#include <cmath>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/base/errors.h"
#include "sim/engine/vllm/spec_decode_counters.h"
#include "sim/engine/vllm/speculative_config.h"

namespace efimsim {
namespace {

using Json = nlohmann::json;

[[noreturn]] void Refuse(const std::string& why) {
  throw UsageError("--speculative-config: " + why);
}

// A key's value as an integer in [min, max] (whole JSON numbers only).
int64_t IntKey(const Json& value, const std::string& key, int64_t min, int64_t max) {
  if (!value.is_number_integer()) Refuse("'" + key + "' must be an integer");
  const int64_t n = value.get<int64_t>();
  if (n < min || n > max) {
    Refuse("'" + key + "' must be in [" + std::to_string(min) + ", " + std::to_string(max) +
           "] (got " + std::to_string(n) + ")");
  }
  return n;
}

double NumberKey(const Json& value, const std::string& key, double min, double max) {
  if (!value.is_number()) Refuse("'" + key + "' must be a number");
  const double x = value.get<double>();
  if (!std::isfinite(x) || x < min || x > max) {
    Refuse("'" + key + "' must be in [" + FormatDouble(min) + ", " + FormatDouble(max) + "]");
  }
  return x;
}

SpecMethod MethodOf(const std::string& name) {
  if (name == "ngram") return SpecMethod::kNgram;
  if (name == "suffix") return SpecMethod::kSuffix;
  if (name == "eagle") return SpecMethod::kEagle;
  if (name == "eagle3") return SpecMethod::kEagle3;
  if (name == "mtp") return SpecMethod::kMtp;
  if (name == "draft_model") return SpecMethod::kDraftModel;
  Refuse("unknown method '" + name + "' (one of: ngram, suffix, eagle, eagle3, mtp, draft_model)");
}

// The keys each method reads, besides method, num_speculative_tokens, model.
bool KeyApplies(SpecMethod method, const std::string& key) {
  if (key == "method" || key == "num_speculative_tokens" || key == "model") return true;
  if (key == "prompt_lookup_min" || key == "prompt_lookup_max") return method == SpecMethod::kNgram;
  if (key.rfind("suffix_decoding_", 0) == 0) return method == SpecMethod::kSuffix;
  if (key == "lookup_host_us") return DraftsComparedByToken(method);
  if (key == "acceptance_rates" || key == "acceptance_counters") return !DraftsComparedByToken(method);
  if (key == "drafter_layers") return !DraftsComparedByToken(method) && method != SpecMethod::kDraftModel;
  return false;
}

// j[key] as an int32 in [min, max], when present.
std::optional<int32_t> Int32At(const Json& j, const char* key, int64_t min, int64_t max) {
  if (!j.contains(key)) return std::nullopt;
  return static_cast<int32_t>(IntKey(j[key], key, min, max));
}

// j[key] as a float in [min, max], when present.
std::optional<float> FloatAt(const Json& j, const char* key, double min, double max) {
  if (!j.contains(key)) return std::nullopt;
  return static_cast<float>(NumberKey(j[key], key, min, max));
}

void ReadNgram(const Json& j, SpeculativeConfig& c) {
  NgramProposerOptions options;
  options.prompt_lookup_min = Int32At(j, "prompt_lookup_min", 1, 1 << 20);
  options.prompt_lookup_max = Int32At(j, "prompt_lookup_max", 1, 1 << 20);
  options.num_speculative_tokens = c.num_speculative_tokens;
  options.max_model_len = c.max_model_len;
  const std::string error = ResolveNgramProposerConfig(options, c.ngram);
  if (!error.empty()) Refuse(error);
}

void ReadSuffix(const Json& j, SpeculativeConfig& c) {
  SuffixDecodingConfig& s = c.suffix;
  if (c.num_speculative_tokens > 0) s.num_speculative_tokens = c.num_speculative_tokens;
  s.max_tree_depth =
      Int32At(j, "suffix_decoding_max_tree_depth", 1, 1 << 16).value_or(s.max_tree_depth);
  s.max_cached_requests =
      Int32At(j, "suffix_decoding_max_cached_requests", 0, 1 << 30).value_or(s.max_cached_requests);
  s.max_spec_factor =
      FloatAt(j, "suffix_decoding_max_spec_factor", 0, 1e6).value_or(s.max_spec_factor);
  s.min_token_prob = FloatAt(j, "suffix_decoding_min_token_prob", 0, 1).value_or(s.min_token_prob);
  const std::string error = ValidateSuffixDecodingConfig(s);
  if (!error.empty()) Refuse(error);
  c.num_speculative_tokens = s.EffectiveNumSpeculativeTokens();
}

void ReadModelDrafter(const Json& j, SpeculativeConfig& c) {
  c.drafter_layers = Int32At(j, "drafter_layers", 1, 1024).value_or(c.drafter_layers);
  if (j.contains("acceptance_counters")) {
    if (j.contains("acceptance_rates")) {
      Refuse("give 'acceptance_rates' or 'acceptance_counters', not both");
    }
    if (!j["acceptance_counters"].is_string() || j["acceptance_counters"].get<std::string>().empty()) {
      Refuse("'acceptance_counters' must be the path of a vLLM /metrics dump");
    }
    c.acceptance_counters = j["acceptance_counters"].get<std::string>();
    c.acceptance_rates = ReadSpecDecodeAcceptanceRates(c.acceptance_counters);
    return;
  }
  if (!j.contains("acceptance_rates")) {
    Refuse("method '" + c.method_name + "' needs \"acceptance_rates\": [P(draft 1 accepted), "
           "P(draft 2 | draft 1), ...], one per position, or \"acceptance_counters\": a vLLM "
           "server's /metrics dump (efimsim has no measured default for model drafters; see "
           "docs/speculative-decoding.md)");
  }
  const Json& rates = j["acceptance_rates"];
  if (!rates.is_array() || rates.empty()) Refuse("'acceptance_rates' must be a non-empty list");
  for (const Json& rate : rates) {
    c.acceptance_rates.push_back(NumberKey(rate, "acceptance_rates", 0, 1));
  }
}

}  // namespace

SpeculativeConfig ParseSpeculativeConfig(const std::string& text, int64_t max_model_len) {
  SpeculativeConfig c;
  if (text.empty()) return c;
  Json j;
  try {
    j = Json::parse(text);
  } catch (const Json::exception& error) {
    Refuse(std::string("not valid JSON: ") + error.what());
  }
  if (!j.is_object()) Refuse("expected a JSON object such as {\"method\": \"ngram\", ...}");
  if (!j.contains("method") || !j["method"].is_string()) Refuse("'method' (a string) is required");
  c.method_name = j["method"].get<std::string>();
  c.method = MethodOf(c.method_name);
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!KeyApplies(c.method, it.key())) {
      Refuse("key '" + it.key() + "' is not read for method '" + c.method_name + "'");
    }
  }
  if (j.contains("model")) {
    if (!j["model"].is_string()) Refuse("'model' must be a string");
    c.model = j["model"].get<std::string>();
  }
  c.num_speculative_tokens = Int32At(j, "num_speculative_tokens", 1, 1024).value_or(0);
  if (c.num_speculative_tokens == 0 && c.method != SpecMethod::kSuffix) {
    Refuse("'num_speculative_tokens' is required for method '" + c.method_name + "'");
  }
  if (j.contains("lookup_host_us")) {
    c.lookup_host_us = NumberKey(j["lookup_host_us"], "lookup_host_us", 0, 1e6);
  }
  c.max_model_len = max_model_len;
  c.ngram.max_model_len = max_model_len;
  c.suffix.max_model_len = max_model_len;
  if (c.method == SpecMethod::kNgram) ReadNgram(j, c);
  if (c.method == SpecMethod::kSuffix) ReadSuffix(j, c);
  if (!DraftsComparedByToken(c.method)) ReadModelDrafter(j, c);
  if (c.method == SpecMethod::kDraftModel && c.model.empty()) {
    Refuse("method 'draft_model' needs \"model\": the draft model, a built-in spec name (efimsim "
           "models) or a spec or config.json path, sharing the target's vocabulary");
  }
  return c;
}

}  // namespace efimsim
