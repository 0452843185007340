#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace efimsim::tokenizer {

// One code point decoded from UTF-8: its value and its length in bytes (1-4).
struct DecodedCodePoint {
  char32_t value;
  std::size_t length;
};

// Decodes the code point starting at text[pos].
// Precondition: pos < text.size() and text is valid UTF-8 (IsValidUtf8).
inline DecodedCodePoint DecodeValidUtf8(std::string_view text, std::size_t pos) {
  const auto byte = [&](std::size_t i) { return static_cast<char32_t>(static_cast<uint8_t>(text[i])); };
  const char32_t b0 = byte(pos);
  if (b0 < 0x80) return {b0, 1};
  if (b0 < 0xE0) return {((b0 & 0x1F) << 6) | (byte(pos + 1) & 0x3F), 2};
  if (b0 < 0xF0) {
    return {((b0 & 0x0F) << 12) | ((byte(pos + 1) & 0x3F) << 6) | (byte(pos + 2) & 0x3F), 3};
  }
  return {((b0 & 0x07) << 18) | ((byte(pos + 1) & 0x3F) << 12) | ((byte(pos + 2) & 0x3F) << 6) |
              (byte(pos + 3) & 0x3F),
          4};
}

// True when text is well-formed UTF-8 (no overlongs, no surrogates, <= U+10FFFF).
bool IsValidUtf8(std::string_view text);

// Returns text with every ill-formed sequence replaced by U+FFFD, using the
// WHATWG Encoding Standard's UTF-8 decoder ("maximal subpart" replacement),
// which is what Node's Buffer.toString("utf8") does. Valid input is returned
// unchanged.
std::string ReplaceInvalidUtf8(std::string_view text);

// Appends the UTF-8 encoding of code_point (must be <= U+10FFFF) to out.
void AppendUtf8(char32_t code_point, std::string& out);

}  // namespace efimsim::tokenizer
