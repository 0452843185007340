#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "traces/tokenizer/string_key_hash.h"

namespace efimsim::tokenizer {

// Thread-safe memo from a pre-token's bytes to its BPE token ids. Bounded:
// pre-tokens longer than kMaxPreTokenBytes are not stored, and the whole
// cache is dropped when it reaches max_entries (cheap, and code text
// re-warms it within a few kilobytes).
class PretokenCache {
 public:
  static constexpr std::size_t kMaxPreTokenBytes = 256;

  explicit PretokenCache(std::size_t max_entries) : max_entries_(max_entries) {}

  // Appends the cached ids of pre_token to out and returns true, or returns
  // false (out untouched) when it is not cached.
  bool AppendIfPresent(std::string_view pre_token, std::vector<int32_t>& out) const;

  // Remembers ids for pre_token (no-op when pre_token is too long).
  void Insert(std::string_view pre_token, std::span<const int32_t> ids);

 private:
  const std::size_t max_entries_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::vector<int32_t>, StringKeyHash, std::equal_to<>> ids_by_pre_token_;
};

}  // namespace efimsim::tokenizer
