#include "sim/engine/vllm/round_key_memo.h"

#include <utility>

namespace efimsim {

void RoundKeyMemo::Keep(int64_t user, int64_t round, std::vector<BlockKey>&& keys,
                        size_t prompt_blocks) {
  if (max_users_ == 0) return;
  if (keys.size() > prompt_blocks) keys.resize(prompt_blocks);
  Kept& kept = kept_[user];
  kept.keys = std::move(keys);
  kept.round = round;
  kept.serial = next_serial_++;
  order_.push_back({user, kept.serial});
  // The queue holds at most two entries per kept user, taken ones included.
  while (kept_.size() > max_users_ || order_.size() > 2 * max_users_) DropOldest();
}

bool RoundKeyMemo::Take(int64_t user, int64_t round, std::vector<BlockKey>& keys) {
  const auto it = kept_.find(user);
  if (it == kept_.end()) return false;
  const bool found = it->second.round == round;
  if (found) keys = std::move(it->second.keys);
  kept_.erase(it);
  return found;
}

size_t RoundKeyMemo::KeptKeys(int64_t user, int64_t round) const {
  const auto it = kept_.find(user);
  return it == kept_.end() || it->second.round != round ? 0 : it->second.keys.size();
}

void RoundKeyMemo::DropOldest() {
  const Queued oldest = order_.front();
  order_.pop_front();
  const auto it = kept_.find(oldest.user);
  if (it != kept_.end() && it->second.serial == oldest.serial) kept_.erase(it);
}

}  // namespace efimsim
