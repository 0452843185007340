#include "traces/guidellm_prompt.h"

#include <cstdint>

#include "traces/tokenizer/utf8.h"

namespace efimsim {
namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The Python string literal starting at repr[i] (an optional b/r/u prefix is
// not expected in a repr and is refused), decoded into `out`; i is left past
// its closing quote. False when malformed.
bool ReadStringLiteral(const std::string& repr, size_t& i, std::string& out) {
  const char quote = repr[i++];
  out.clear();
  while (i < repr.size()) {
    const char c = repr[i++];
    if (c == quote) return true;
    if (c != '\\') {
      out += c;
      continue;
    }
    if (i >= repr.size()) return false;
    const char e = repr[i++];
    int digits = 0;
    switch (e) {
      case '\\': out += '\\'; break;
      case '\'': out += '\''; break;
      case '"': out += '"'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case '0': out += '\0'; break;
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'v': out += '\v'; break;
      case '\n': break;
      case 'x': digits = 2; break;
      case 'u': digits = 4; break;
      case 'U': digits = 8; break;
      default: return false;
    }
    if (digits == 0) continue;
    if (i + static_cast<size_t>(digits) > repr.size()) return false;
    uint32_t code = 0;
    for (int d = 0; d < digits; ++d) {
      const int v = HexDigit(repr[i++]);
      if (v < 0) return false;
      code = code * 16 + static_cast<uint32_t>(v);
    }
    if (code >= 0x110000) return false;  // no code point
    tokenizer::AppendUtf8(static_cast<char32_t>(code), out);
  }
  return false;  // unterminated
}

}  // namespace

std::optional<std::string> PythonReprStringValue(const std::string& repr, const std::string& key) {
  // Walk the literal's tokens: string literals are read whole, so a key's
  // text inside another string's value is never taken for the key.
  std::string literal;
  bool previous_was_key = false;  // the last token was the string `key`
  bool after_colon = false;       // ... followed by ':'
  size_t i = 0;
  while (i < repr.size()) {
    const char c = repr[i];
    if (c == '\'' || c == '"') {
      if (!ReadStringLiteral(repr, i, literal)) return std::nullopt;
      if (after_colon) return literal;
      previous_was_key = literal == key;
      continue;
    }
    ++i;
    if (c == ' ' || c == '\n' || c == '\t') continue;
    after_colon = previous_was_key && c == ':';
    previous_was_key = false;
  }
  return std::nullopt;
}

std::optional<std::string> GuidellmPromptText(const nlohmann::json& request_args) {
  if (request_args.is_string()) {
    return PythonReprStringValue(request_args.get<std::string>(), "prompt");
  }
  if (!request_args.is_object() || !request_args.contains("body")) return std::nullopt;
  const nlohmann::json& body = request_args.at("body");
  if (!body.is_object() || !body.contains("prompt") || !body.at("prompt").is_string()) return std::nullopt;
  return body.at("prompt").get<std::string>();
}

}  // namespace efimsim
