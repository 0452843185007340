#include "traces/tokenizer/pretoken_cache.h"

namespace efimsim::tokenizer {

bool PretokenCache::AppendIfPresent(std::string_view pre_token, std::vector<int32_t>& out) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = ids_by_pre_token_.find(pre_token);
  if (it == ids_by_pre_token_.end()) return false;
  out.insert(out.end(), it->second.begin(), it->second.end());
  return true;
}

void PretokenCache::Insert(std::string_view pre_token, std::span<const int32_t> ids) {
  if (pre_token.size() > kMaxPreTokenBytes) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (ids_by_pre_token_.size() >= max_entries_) ids_by_pre_token_.clear();
  ids_by_pre_token_.emplace(std::string(pre_token), std::vector<int32_t>(ids.begin(), ids.end()));
}

}  // namespace efimsim::tokenizer
