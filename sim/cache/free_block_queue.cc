#include "sim/cache/free_block_queue.h"

#include "sim/base/check.h"

namespace efimsim {

FreeBlockQueue::FreeBlockQueue(int32_t num_blocks) {
  EFIMSIM_CHECK(num_blocks > 0, "a free-block queue needs at least one block");
  size_t capacity = 4;
  while (capacity < 2 * static_cast<size_t>(num_blocks)) capacity *= 2;
  ring_.resize(capacity);
  mask_ = capacity - 1;
  position_.resize(static_cast<size_t>(num_blocks));
  for (BlockId b = 0; b < num_blocks; ++b) {
    position_[b] = b;
    ring_[static_cast<size_t>(b)] = b;
  }
  pending_ = static_cast<size_t>(num_blocks);
  size_ = num_blocks;
}

BlockId FreeBlockQueue::PopFront() {
  EFIMSIM_CHECK(size_ > 0, "taking a block from an empty free queue");
  // Skip stale entries; a live one is pending because size_ > 0.
  while (position_[ring_[head_]] != static_cast<int32_t>(head_)) {
    head_ = (head_ + 1) & mask_;
    --pending_;
  }
  const BlockId block = ring_[head_];
  head_ = (head_ + 1) & mask_;
  --pending_;
  position_[block] = kAbsent;
  --size_;
  return block;
}

void FreeBlockQueue::Append(BlockId block) {
  EFIMSIM_CHECK(position_[block] == kAbsent, "appending a block already in the free queue");
  if (pending_ == ring_.size()) Compact();
  const size_t index = (head_ + pending_) & mask_;
  ring_[index] = block;
  position_[block] = static_cast<int32_t>(index);
  ++pending_;
  ++size_;
}

void FreeBlockQueue::Remove(BlockId block) {
  EFIMSIM_CHECK(position_[block] != kAbsent, "removing a block that is not in the free queue");
  position_[block] = kAbsent;  // its entry is now stale
  --size_;
}

void FreeBlockQueue::Compact() {
  // The ring is full and at most num_blocks entries are live, so at least
  // half of it is stale: at least num_blocks Appends pass before the next
  // compaction. Live entries move to indices 0.. in queue order.
  const std::vector<BlockId> order = Order();
  for (size_t i = 0; i < order.size(); ++i) {
    ring_[i] = order[i];
    position_[order[i]] = static_cast<int32_t>(i);
  }
  head_ = 0;
  pending_ = order.size();
}

std::vector<BlockId> FreeBlockQueue::Order() const {
  std::vector<BlockId> order;
  order.reserve(static_cast<size_t>(size_));
  for (size_t k = 0; k < pending_; ++k) {
    const size_t index = (head_ + k) & mask_;
    if (position_[ring_[index]] == static_cast<int32_t>(index)) order.push_back(ring_[index]);
  }
  return order;
}

}  // namespace efimsim
