#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "traces/tokenizer/string_key_hash.h"

namespace efimsim::tokenizer {

// Where an added token's content occurs in a text.
struct AddedTokenMatch {
  std::size_t position;  // byte offset of the first byte
  std::size_t length;    // bytes
  int32_t id;
};

// Finds added tokens (special tokens such as "<|begin_of_text|>" or FIM
// sentinels) in text, the way the JS reference's DictionarySplitter does:
// scanning left to right, the first position where some content starts
// wins, and at that position the longest such content.
class AddedTokenMatcher {
 public:
  // Registers a content (non-empty); re-adding a content replaces its id.
  void Add(const std::string& content, int32_t id);

  // The next match starting at or after `from`, or nullopt.
  std::optional<AddedTokenMatch> FindNext(std::string_view text, std::size_t from) const;

  // The id of exactly this content, or nullopt.
  std::optional<int32_t> IdOf(std::string_view content) const;

  bool empty() const { return ids_by_content_.empty(); }

 private:
  std::unordered_map<std::string, int32_t, StringKeyHash, std::equal_to<>> ids_by_content_;
  std::array<bool, 256> is_first_byte_{};
  std::vector<std::size_t> lengths_descending_;  // distinct content lengths
};

}  // namespace efimsim::tokenizer
