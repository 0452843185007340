#include "traces/tokenizer/byte_level_alphabet.h"

#include <array>

#include "traces/tokenizer/utf8.h"

namespace efimsim::tokenizer {
namespace {

// bytes_to_unicode(): printable Latin-1 bytes map to themselves, the other
// 68 bytes map to U+0100.. in increasing byte order.
constexpr std::array<char32_t, 256> MakeByteToCodePoint() {
  std::array<char32_t, 256> table{};
  char32_t next_extra = 0x100;
  for (int b = 0; b < 256; ++b) {
    const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
    table[static_cast<std::size_t>(b)] = printable ? static_cast<char32_t>(b) : next_extra++;
  }
  return table;
}

constexpr std::array<char32_t, 256> kByteToCodePoint = MakeByteToCodePoint();

// Code points of the alphabet are all below 0x144; -1 marks "not in alphabet".
constexpr std::array<int16_t, 0x144> MakeCodePointToByte() {
  std::array<int16_t, 0x144> table{};
  for (auto& entry : table) entry = -1;
  for (int b = 0; b < 256; ++b) table[kByteToCodePoint[static_cast<std::size_t>(b)]] = static_cast<int16_t>(b);
  return table;
}

constexpr std::array<int16_t, 0x144> kCodePointToByte = MakeCodePointToByte();

}  // namespace

char32_t ByteLevelCodePoint(uint8_t b) { return kByteToCodePoint[b]; }

std::optional<std::string> ByteLevelTextToBytes(std::string_view byte_level_text) {
  if (!IsValidUtf8(byte_level_text)) return std::nullopt;
  std::string bytes;
  bytes.reserve(byte_level_text.size());
  for (std::size_t pos = 0; pos < byte_level_text.size();) {
    const DecodedCodePoint cp = DecodeValidUtf8(byte_level_text, pos);
    pos += cp.length;
    if (cp.value >= kCodePointToByte.size() || kCodePointToByte[cp.value] < 0) return std::nullopt;
    bytes.push_back(static_cast<char>(static_cast<uint8_t>(kCodePointToByte[cp.value])));
  }
  return bytes;
}

std::string BytesToByteLevelText(std::string_view bytes) {
  std::string text;
  text.reserve(bytes.size() * 2);
  for (char c : bytes) AppendUtf8(ByteLevelCodePoint(static_cast<uint8_t>(c)), text);
  return text;
}

}  // namespace efimsim::tokenizer
