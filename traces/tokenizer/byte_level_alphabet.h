#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace efimsim::tokenizer {

// GPT-2's "bytes_to_unicode" alphabet used by byte-level BPE: every byte
// value maps to one printable code point (e.g. ' ' -> U+0120 'Ġ',
// '\n' -> U+010A 'Ċ'). Vocab and merge strings in tokenizer.json are written
// in this alphabet.

// The code point standing for byte b.
char32_t ByteLevelCodePoint(uint8_t b);

// Converts a string written in the byte-level alphabet (UTF-8 encoded) back
// to the raw bytes it stands for. nullopt when it contains invalid UTF-8 or
// a code point outside the alphabet.
std::optional<std::string> ByteLevelTextToBytes(std::string_view byte_level_text);

// Inverse of ByteLevelTextToBytes: raw bytes -> byte-level alphabet (UTF-8).
std::string BytesToByteLevelText(std::string_view bytes);

}  // namespace efimsim::tokenizer
