#include "sim/engine/vllm/free_block_queue.h"

#include "sim/base/check.h"

namespace efimsim {

FreeBlockQueue::FreeBlockQueue(int32_t num_blocks) : FreeBlockQueue(num_blocks, PositionSlots{}) {}

FreeBlockQueue::FreeBlockQueue(int32_t num_blocks, PositionSlots slots)
    : base_(slots.base), stride_(slots.stride) {
  EFIMSIM_CHECK(num_blocks > 0, "a free-block queue needs at least one block");
  if (base_ == nullptr) {
    own_positions_.resize(static_cast<size_t>(num_blocks));
    base_ = reinterpret_cast<std::byte*>(own_positions_.data());
    stride_ = sizeof(int32_t);
  }
  EFIMSIM_CHECK(stride_ >= sizeof(int32_t), "free-block queue: position slots overlap");
  size_t capacity = 4;
  while (capacity < 2 * static_cast<size_t>(num_blocks)) capacity *= 2;
  ring_.resize(capacity);
  mask_ = capacity - 1;
  for (BlockId b = 0; b < num_blocks; ++b) {
    SetPosition(b, b);
    ring_[static_cast<size_t>(b)] = b;
  }
  pending_ = static_cast<size_t>(num_blocks);
  size_ = num_blocks;
}

void FreeBlockQueue::Compact() {
  // The ring is full and at most num_blocks entries are live, so at least
  // half of it is stale: at least num_blocks Appends pass before the next
  // compaction. Live entries move to indices 0.. in queue order.
  const std::vector<BlockId> order = Order();
  for (size_t i = 0; i < order.size(); ++i) {
    ring_[i] = order[i];
    SetPosition(order[i], static_cast<int32_t>(i));
  }
  head_ = 0;
  pending_ = order.size();
}

std::vector<BlockId> FreeBlockQueue::Order() const {
  std::vector<BlockId> order;
  order.reserve(static_cast<size_t>(size_));
  for (size_t k = 0; k < pending_; ++k) {
    const size_t index = (head_ + k) & mask_;
    if (Position(ring_[index]) == static_cast<int32_t>(index)) order.push_back(ring_[index]);
  }
  return order;
}

}  // namespace efimsim
