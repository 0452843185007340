#pragma once
// UTF-8 helpers for trace text. Offsets in traces are UTF-8 byte offsets;
// "characters" (the paper's L) are Unicode code points, like Python's len(str).

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace efimsim {

// True when text is well-formed UTF-8 (no overlongs, no surrogates, <= U+10FFFF).
bool IsValidUtf8(std::string_view text);

// True when byte offset `offset` (0 <= offset <= text.size()) does not split a
// multi-byte sequence, i.e. offset == text.size() or text[offset] is not a
// continuation byte (10xxxxxx). False for offset > text.size().
bool IsUtf8Boundary(std::string_view text, size_t offset);

// Number of code points in valid UTF-8 text (counts non-continuation bytes).
int64_t CountCodePoints(std::string_view text);

// Byte offset of code point `index` (0 <= index <= CountCodePoints(text));
// text.size() for index == CountCodePoints(text). Linear in the offset.
size_t ByteOffsetOfCodePoint(std::string_view text, int64_t index);

// Length in bytes of the code point starting at text[offset] (1-4); 1 for a
// stray continuation byte. Precondition: offset < text.size().
size_t Utf8SequenceLength(std::string_view text, size_t offset);

}  // namespace efimsim
