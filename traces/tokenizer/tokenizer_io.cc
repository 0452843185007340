// The only file of the tokenizer that sees nlohmann/json.
#include "traces/tokenizer/tokenizer_io.h"

#include <cstdint>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string_view>

#include "traces/tokenizer/llama3_pre_tokenizer.h"
#include "traces/tokenizer/tokenizer_error.h"

namespace efimsim::tokenizer {
namespace {

using Json = nlohmann::json;

// Reads fields of one tokenizer.json, throwing TokenizerError(path, field, ...)
// on anything missing, mistyped or unsupported.
class TokenizerJsonReader {
 public:
  TokenizerJsonReader(std::string path, const StopPoll& poll) : path_(std::move(path)), poll_(poll) {}

  TokenizerData Read() {
    const Json root = Parse();
    if (!root.is_object()) Fail("", "top level is not a JSON object");
    TokenizerData data;
    data.source_path = path_;
    CheckNormalizer(root);
    CheckPreTokenizer(root);
    CheckDecoder(root);
    ReadModel(Member(root, "model", ""), data);
    ReadAddedTokens(root, data);
    return data;
  }

 private:
  [[noreturn]] void Fail(const std::string& field, const std::string& problem) const {
    throw TokenizerError(path_, field, problem);
  }

  Json Parse() const {
    std::ifstream in(path_, std::ios::binary);
    if (!in) Fail("", "cannot open file");
    std::ostringstream contents;
    contents << in.rdbuf();
    try {
      if (!poll_) return Json::parse(contents.str());
      int64_t events = 0;
      // The callback keeps every value (returns true); it only polls.
      return Json::parse(contents.str(), [this, &events](int, Json::parse_event_t, Json&) {
        if (++events % kItemsPerStopPoll == 0) poll_();
        return true;
      });
    } catch (const Json::exception& e) {  // parse_error, or out_of_range (a number like 1e400)
      Fail("", std::string("invalid JSON: ") + e.what());
    }
  }

  static std::string Join(const std::string& parent, const std::string& key) {
    return parent.empty() ? key : parent + "." + key;
  }

  const Json& Member(const Json& object, const char* key, const std::string& parent) const {
    const std::string field = Join(parent, key);
    if (!object.is_object()) Fail(parent, "expected a JSON object");
    const auto it = object.find(key);
    if (it == object.end()) Fail(field, "missing");
    return *it;
  }

  // Null or absent counts as "not set".
  static bool IsSet(const Json& object, const char* key) {
    const auto it = object.find(key);
    return it != object.end() && !it->is_null();
  }

  std::string String(const Json& value, const std::string& field) const {
    if (!value.is_string()) Fail(field, "expected a string");
    return value.get<std::string>();
  }

  bool Bool(const Json& value, const std::string& field) const {
    if (!value.is_boolean()) Fail(field, "expected true or false");
    return value.get<bool>();
  }

  int32_t Id(const Json& value, const std::string& field) const {
    if (!value.is_number_integer()) Fail(field, "expected an integer token id");
    const auto id = value.get<int64_t>();
    // Tables are sized by the largest id: a bound keeps a small file from
    // asking for gigabytes (real vocabularies are below 2^18).
    constexpr int64_t kMaxTokenId = (int64_t{1} << 24) - 1;
    if (id < 0 || id > kMaxTokenId) {
      Fail(field, "token id " + std::to_string(id) + " out of range [0, " +
                      std::to_string(kMaxTokenId) + "]");
    }
    return static_cast<int32_t>(id);
  }

  bool OptionalBool(const Json& object, const char* key, const std::string& parent, bool fallback) const {
    return IsSet(object, key) ? Bool(object[key], Join(parent, key)) : fallback;
  }

  void RequireFalse(const Json& object, const char* key, const std::string& parent) const {
    if (OptionalBool(object, key, parent, false)) Fail(Join(parent, key), "true is not supported");
  }

  void RequireUnset(const Json& object, const char* key, const std::string& parent) const {
    if (!IsSet(object, key)) return;
    const Json& value = object[key];
    if (value.is_string() && value.get<std::string>().empty()) return;
    Fail(Join(parent, key), "not supported (must be null or absent)");
  }

  void RequireString(const Json& object, const char* key, const std::string& parent,
                     std::string_view expected) const {
    const std::string field = Join(parent, key);
    if (String(Member(object, key, parent), field) != expected) {
      Fail(field, "unsupported value (supported: \"" + std::string(expected) + "\")");
    }
  }

  void CheckNormalizer(const Json& root) const {
    if (IsSet(root, "normalizer")) Fail("normalizer", "not supported (must be null)");
  }

  void CheckPreTokenizer(const Json& root) const {
    const std::string field = "pre_tokenizer";
    const Json& pre = Member(root, "pre_tokenizer", "");
    if (pre.is_null()) Fail(field, "null is not supported (expected the Llama-3 Sequence)");
    RequireString(pre, "type", field, "Sequence");
    const std::string list_field = field + ".pretokenizers";
    const Json& steps = Member(pre, "pretokenizers", field);
    if (!steps.is_array() || steps.size() != 2) {
      Fail(list_field, "expected exactly [Split, ByteLevel] (the Llama-3 pre-tokenizer)");
    }
    const std::string split = list_field + "[0]";
    RequireString(steps[0], "type", split, "Split");
    const Json& pattern = Member(steps[0], "pattern", split);
    if (!IsSet(pattern, "Regex")) Fail(split + ".pattern", "only {\"Regex\": ...} patterns are supported");
    if (String(pattern["Regex"], split + ".pattern.Regex") != kLlama3SplitPattern) {
      Fail(split + ".pattern.Regex", "unsupported split pattern (only the Llama-3 pattern is implemented)");
    }
    RequireString(steps[0], "behavior", split, "Isolated");
    RequireFalse(steps[0], "invert", split);
    const std::string byte_level = list_field + "[1]";
    RequireString(steps[1], "type", byte_level, "ByteLevel");
    RequireFalse(steps[1], "add_prefix_space", byte_level);
    RequireFalse(steps[1], "use_regex", byte_level);
  }

  void CheckDecoder(const Json& root) const {
    if (!IsSet(root, "decoder")) return;
    RequireString(root["decoder"], "type", "decoder", "ByteLevel");
  }

  void ReadModel(const Json& model, TokenizerData& data) const {
    const std::string field = "model";
    if (!model.is_object()) Fail(field, "expected a JSON object");
    RequireString(model, "type", field, "BPE");
    RequireUnset(model, "dropout", field);
    RequireUnset(model, "unk_token", field);
    RequireUnset(model, "continuing_subword_prefix", field);
    RequireUnset(model, "end_of_word_suffix", field);
    RequireFalse(model, "byte_fallback", field);
    data.ignore_merges = OptionalBool(model, "ignore_merges", field, false);

    const Json& vocab = Member(model, "vocab", field);
    if (!vocab.is_object()) Fail("model.vocab", "expected an object of token -> id");
    data.vocab.reserve(vocab.size());
    for (const auto& [token, id] : vocab.items()) {
      data.vocab.emplace_back(token, Id(id, "model.vocab[\"" + token + "\"]"));
    }

    const Json& merges = Member(model, "merges", field);
    if (!merges.is_array()) Fail("model.merges", "expected an array");
    data.merges.reserve(merges.size());
    for (std::size_t i = 0; i < merges.size(); ++i) {
      const std::string merge_field = "model.merges[" + std::to_string(i) + "]";
      const Json& merge = merges[i];
      if (merge.is_string()) {
        // Legacy "left right" form; like the JS reference, split at the
        // first space and take the next space-free part.
        const std::string text = merge.get<std::string>();
        const std::size_t space = text.find(' ');
        if (space == std::string::npos) Fail(merge_field, "expected \"left right\"");
        const std::size_t right_end = text.find(' ', space + 1);
        data.merges.emplace_back(text.substr(0, space), text.substr(space + 1, right_end - (space + 1)));
      } else if (merge.is_array() && merge.size() == 2) {
        data.merges.emplace_back(String(merge[0], merge_field + "[0]"), String(merge[1], merge_field + "[1]"));
      } else {
        Fail(merge_field, "expected \"left right\" or [\"left\", \"right\"]");
      }
    }
  }

  void ReadAddedTokens(const Json& root, TokenizerData& data) const {
    if (!IsSet(root, "added_tokens")) return;
    const Json& tokens = root["added_tokens"];
    if (!tokens.is_array()) Fail("added_tokens", "expected an array");
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      const std::string field = "added_tokens[" + std::to_string(i) + "]";
      const Json& token = tokens[i];
      AddedTokenSpec spec;
      spec.content = String(Member(token, "content", field), field + ".content");
      if (spec.content.empty()) Fail(field + ".content", "empty content");
      spec.id = Id(Member(token, "id", field), field + ".id");
      spec.special = OptionalBool(token, "special", field, false);
      RequireFalse(token, "lstrip", field);
      RequireFalse(token, "rstrip", field);
      RequireFalse(token, "single_word", field);
      data.added_tokens.push_back(std::move(spec));
    }
  }

  std::string path_;
  const StopPoll& poll_;
};

}  // namespace

TokenizerData ReadTokenizerJson(const std::string& path, const StopPoll& poll) {
  return TokenizerJsonReader(path, poll).Read();
}

}  // namespace efimsim::tokenizer
