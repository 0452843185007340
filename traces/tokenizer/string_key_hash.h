#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace efimsim::tokenizer {

// Transparent hash for unordered maps keyed by std::string, so lookups can
// use std::string_view without building a string (use with std::equal_to<>).
// FNV-1a over 8-byte words: fast on the short keys tokenizers use.
struct StringKeyHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view key) const {
    uint64_t hash = 0xcbf29ce484222325ULL ^ key.size();
    std::size_t i = 0;
    for (; i + 8 <= key.size(); i += 8) {
      uint64_t word = 0;
      for (std::size_t k = 0; k < 8; ++k) word |= static_cast<uint64_t>(static_cast<uint8_t>(key[i + k])) << (8 * k);
      hash = (hash ^ word) * 0x100000001b3ULL;
      hash ^= hash >> 29;
    }
    for (; i < key.size(); ++i) hash = (hash ^ static_cast<uint8_t>(key[i])) * 0x100000001b3ULL;
    hash ^= hash >> 32;
    return static_cast<std::size_t>(hash);
  }
};

}  // namespace efimsim::tokenizer
