#include "traces/tokenizer/added_token_matcher.h"

#include <algorithm>
#include <functional>

namespace efimsim::tokenizer {

void AddedTokenMatcher::Add(const std::string& content, int32_t id) {
  ids_by_content_[content] = id;
  is_first_byte_[static_cast<uint8_t>(content[0])] = true;
  if (std::find(lengths_descending_.begin(), lengths_descending_.end(), content.size()) ==
      lengths_descending_.end()) {
    lengths_descending_.push_back(content.size());
    std::sort(lengths_descending_.begin(), lengths_descending_.end(), std::greater<>());
  }
}

std::optional<AddedTokenMatch> AddedTokenMatcher::FindNext(std::string_view text, std::size_t from) const {
  if (ids_by_content_.empty()) return std::nullopt;
  for (std::size_t pos = from; pos < text.size(); ++pos) {
    if (!is_first_byte_[static_cast<uint8_t>(text[pos])]) continue;
    for (std::size_t length : lengths_descending_) {
      if (length > text.size() - pos) continue;
      const auto it = ids_by_content_.find(text.substr(pos, length));
      if (it != ids_by_content_.end()) return AddedTokenMatch{pos, length, it->second};
    }
  }
  return std::nullopt;
}

std::optional<int32_t> AddedTokenMatcher::IdOf(std::string_view content) const {
  const auto it = ids_by_content_.find(content);
  if (it == ids_by_content_.end()) return std::nullopt;
  return it->second;
}

}  // namespace efimsim::tokenizer
