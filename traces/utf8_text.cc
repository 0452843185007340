#include "traces/utf8_text.h"

namespace efimsim {
namespace {

bool IsContinuation(unsigned char byte) { return (byte & 0xC0) == 0x80; }

}  // namespace

bool IsValidUtf8(std::string_view text) {
  size_t i = 0;
  const size_t n = text.size();
  while (i < n) {
    const auto b0 = static_cast<unsigned char>(text[i]);
    if (b0 < 0x80) {
      ++i;
      continue;
    }
    size_t length = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (b0 >= 0xC2 && b0 <= 0xDF) {
      length = 2;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
      length = 3;
      if (b0 == 0xE0) lo = 0xA0;  // no overlongs
      if (b0 == 0xED) hi = 0x9F;  // no surrogates
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
      length = 4;
      if (b0 == 0xF0) lo = 0x90;  // no overlongs
      if (b0 == 0xF4) hi = 0x8F;  // <= U+10FFFF
    } else {
      return false;
    }
    if (n - i < length) return false;
    const auto b1 = static_cast<unsigned char>(text[i + 1]);
    if (b1 < lo || b1 > hi) return false;
    for (size_t k = 2; k < length; ++k) {
      if (!IsContinuation(static_cast<unsigned char>(text[i + k]))) return false;
    }
    i += length;
  }
  return true;
}

bool IsUtf8Boundary(std::string_view text, size_t offset) {
  if (offset > text.size()) return false;
  if (offset == text.size()) return true;
  return !IsContinuation(static_cast<unsigned char>(text[offset]));
}

int64_t CountCodePoints(std::string_view text) {
  int64_t count = 0;
  for (const char c : text) {
    if (!IsContinuation(static_cast<unsigned char>(c))) ++count;
  }
  return count;
}

size_t ByteOffsetOfCodePoint(std::string_view text, int64_t index) {
  int64_t seen = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (IsContinuation(static_cast<unsigned char>(text[i]))) continue;
    if (seen == index) return i;
    ++seen;
  }
  return text.size();
}

size_t Utf8SequenceLength(std::string_view text, size_t offset) {
  size_t end = offset + 1;
  while (end < text.size() && IsContinuation(static_cast<unsigned char>(text[end]))) ++end;
  return end - offset;
}

}  // namespace efimsim
