#include "traces/tokenizer/utf8.h"

namespace efimsim::tokenizer {
namespace {

// State of the WHATWG UTF-8 decoder between bytes.
struct Utf8DecoderState {
  char32_t code_point = 0;
  int bytes_seen = 0;
  int bytes_needed = 0;
  uint8_t lower_boundary = 0x80;
  uint8_t upper_boundary = 0xBF;
};

constexpr char32_t kReplacementCharacter = 0xFFFD;

}  // namespace

void AppendUtf8(char32_t code_point, std::string& out) {
  const auto put = [&](char32_t v) { out.push_back(static_cast<char>(static_cast<uint8_t>(v))); };
  if (code_point < 0x80) {
    put(code_point);
  } else if (code_point < 0x800) {
    put(0xC0 | (code_point >> 6));
    put(0x80 | (code_point & 0x3F));
  } else if (code_point < 0x10000) {
    put(0xE0 | (code_point >> 12));
    put(0x80 | ((code_point >> 6) & 0x3F));
    put(0x80 | (code_point & 0x3F));
  } else {
    put(0xF0 | (code_point >> 18));
    put(0x80 | ((code_point >> 12) & 0x3F));
    put(0x80 | ((code_point >> 6) & 0x3F));
    put(0x80 | (code_point & 0x3F));
  }
}

bool IsValidUtf8(std::string_view text) {
  const std::size_t size = text.size();
  std::size_t i = 0;
  while (i < size) {
    // ASCII fast path, 8 bytes at a time.
    while (i + 8 <= size) {
      uint64_t word = 0;
      for (std::size_t k = 0; k < 8; ++k) {
        word |= static_cast<uint64_t>(static_cast<uint8_t>(text[i + k])) << (8 * k);
      }
      if (word & 0x8080808080808080ULL) break;
      i += 8;
    }
    if (i >= size) break;
    const uint8_t b0 = static_cast<uint8_t>(text[i]);
    if (b0 < 0x80) {
      ++i;
      continue;
    }
    std::size_t length = 0;
    uint8_t lower = 0x80;
    uint8_t upper = 0xBF;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
      length = 2;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
      length = 3;
      if (b0 == 0xE0) lower = 0xA0;
      if (b0 == 0xED) upper = 0x9F;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
      length = 4;
      if (b0 == 0xF0) lower = 0x90;
      if (b0 == 0xF4) upper = 0x8F;
    } else {
      return false;
    }
    if (i + length > size) return false;
    const uint8_t b1 = static_cast<uint8_t>(text[i + 1]);
    if (b1 < lower || b1 > upper) return false;
    for (std::size_t k = 2; k < length; ++k) {
      const uint8_t b = static_cast<uint8_t>(text[i + k]);
      if (b < 0x80 || b > 0xBF) return false;
    }
    i += length;
  }
  return true;
}

std::string ReplaceInvalidUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 16);
  Utf8DecoderState state;
  std::size_t i = 0;
  while (i < text.size()) {
    const uint8_t byte = static_cast<uint8_t>(text[i]);
    if (state.bytes_needed == 0) {
      ++i;
      if (byte <= 0x7F) {
        out.push_back(static_cast<char>(byte));
      } else if (byte >= 0xC2 && byte <= 0xDF) {
        state.bytes_needed = 1;
        state.code_point = byte & 0x1F;
      } else if (byte >= 0xE0 && byte <= 0xEF) {
        if (byte == 0xE0) state.lower_boundary = 0xA0;
        if (byte == 0xED) state.upper_boundary = 0x9F;
        state.bytes_needed = 2;
        state.code_point = byte & 0x0F;
      } else if (byte >= 0xF0 && byte <= 0xF4) {
        if (byte == 0xF0) state.lower_boundary = 0x90;
        if (byte == 0xF4) state.upper_boundary = 0x8F;
        state.bytes_needed = 3;
        state.code_point = byte & 0x07;
      } else {
        AppendUtf8(kReplacementCharacter, out);
      }
      continue;
    }
    if (byte < state.lower_boundary || byte > state.upper_boundary) {
      // Ill-formed: emit U+FFFD and reprocess this byte from a fresh state.
      state = Utf8DecoderState{};
      AppendUtf8(kReplacementCharacter, out);
      continue;
    }
    ++i;
    state.lower_boundary = 0x80;
    state.upper_boundary = 0xBF;
    state.code_point = (state.code_point << 6) | (byte & 0x3F);
    if (++state.bytes_seen == state.bytes_needed) {
      AppendUtf8(state.code_point, out);
      state = Utf8DecoderState{};
    }
  }
  if (state.bytes_needed != 0) AppendUtf8(kReplacementCharacter, out);
  return out;
}

}  // namespace efimsim::tokenizer
