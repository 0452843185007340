#pragma once
// The free-block queue of vLLM v1 (FreeKVCacheBlockQueue in
// vllm/v1/core/kv_cache_utils.py): blocks are taken from the head, freed
// blocks are appended at the tail, and a cache hit on a free block removes
// it from wherever it is. Same order semantics as vLLM's doubly linked list,
// different layout:
//
// A ring of block ids, consumed at `head_`. Removing a block from the
// middle only forgets its position (lazy deletion); the stale entry is
// skipped when it reaches the head. So the blocks about to be taken are
// known in advance (`Ahead`), and a caller can load their memory before it
// needs it, which a linked list of scattered blocks does not allow (every
// step of walking it is a dependent cache miss).
//
// Invariants: a block is in the queue iff its position != kAbsent, and
// then ring_[position] == block, within the pending entries
// [head_, head_ + pending_) (indices mod the ring's size). Pending entries
// whose block's position differs are stale. Memory: the ring holds at least
// 2 * num_blocks entries and never grows; when an Append finds it full
// (more than num_blocks stale entries), the live entries are compacted,
// keeping their order, at a cost linear in the ring: amortized O(1) per
// Append, and never in a workload without cache hits on free blocks.
//
// Where positions live: in the queue's own array, or in a field of the
// caller's per-block records (PositionSlots), so that a caller that reads
// a block's record whenever it takes or frees the block (KvBlockPool)
// reads one cache line instead of two. Under cache churn every block
// taken and freed is a random read, and the core is limited by how many
// misses it has in flight, not by how early they start.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "sim/base/check.h"
#include "sim/engine/vllm/block_id.h"

namespace efimsim {

class FreeBlockQueue {
 public:
  // Where block b's position is kept: the int32_t at base + b * stride
  // bytes (a field of the caller's record for b).
  struct PositionSlots {
    std::byte* base = nullptr;
    size_t stride = 0;
  };
  // A queue over blocks [0, num_blocks), holding all of them in id order,
  // with positions in its own array.
  explicit FreeBlockQueue(int32_t num_blocks);
  // The same, with positions in the caller's memory, which must hold
  // num_blocks slots and outlive the queue; the queue initializes them.
  FreeBlockQueue(int32_t num_blocks, PositionSlots slots);
  // Positions may point into the queue itself: not copyable or movable.
  FreeBlockQueue(const FreeBlockQueue&) = delete;
  FreeBlockQueue& operator=(const FreeBlockQueue&) = delete;

  int32_t size() const { return size_; }
  bool contains(BlockId block) const { return Position(block) != kAbsent; }

  // Removes and returns the head block. Precondition: size() > 0.
  BlockId PopFront() {
    BlockId block = kNoBlock;
    PopFront(1, &block);
    return block;
  }
  // Removes the `count` head blocks into out[0, count), head first, in
  // one loop over the ring that skips stale entries. Precondition:
  // count <= size().
  void PopFront(int32_t count, BlockId* out) {
    EFIMSIM_CHECK(count >= 0 && count <= size_, "taking more blocks than the free queue holds");
    size_t head = head_;
    size_t pending = pending_;
    for (int32_t taken = 0; taken < count;) {
      const BlockId block = ring_[head];
      const bool live = Position(block) == static_cast<int32_t>(head);
      head = (head + 1) & mask_;
      --pending;
      if (!live) continue;  // stale: removed by a cache hit since appended
      SetPosition(block, kAbsent);
      out[taken++] = block;
    }
    head_ = head;
    pending_ = pending;
    size_ -= count;
  }
  // Appends `block` at the tail. Precondition: not in the queue.
  void Append(BlockId block) {
    EFIMSIM_CHECK(Position(block) == kAbsent, "appending a block already in the free queue");
    if (pending_ == ring_.size()) [[unlikely]] Compact();
    const size_t index = (head_ + pending_) & mask_;
    ring_[index] = block;
    SetPosition(block, static_cast<int32_t>(index));
    ++pending_;
    ++size_;
  }
  // Removes `block` from wherever it is. Precondition: in the queue.
  void Remove(BlockId block) {
    EFIMSIM_CHECK(Position(block) != kAbsent, "removing a block that is not in the free queue");
    SetPosition(block, kAbsent);  // its entry is now stale
    --size_;
  }

  // The block of the entry `distance` places after the head, or kNoBlock
  // past the end. The entry may be stale, so this is a hint for loading memory
  // early (the next PopFront calls return these blocks, minus any removed
  // since), never a statement about the queue.
  BlockId Ahead(int32_t distance) const {
    const size_t offset = static_cast<size_t>(distance);
    return offset < pending_ ? ring_[(head_ + offset) & mask_] : kNoBlock;
  }

  // Starts loading what PopFront, Append or Remove of `block` will read.
  // A hint; changes nothing. Always inline (see BlockKeyIndex::PrefetchSlot).
  [[gnu::always_inline]] void Prefetch(BlockId block) const { __builtin_prefetch(Slot(block)); }

  // Block ids in queue order, head first (tests and invariant checks).
  std::vector<BlockId> Order() const;

 private:
  static constexpr int32_t kAbsent = -1;

  void Compact();
  // Block `block`'s position, read and written through memcpy (the slot
  // may be a field of the caller's record; no alignment is assumed).
  std::byte* Slot(BlockId block) const { return base_ + static_cast<size_t>(block) * stride_; }
  int32_t Position(BlockId block) const {
    int32_t position;
    std::memcpy(&position, Slot(block), sizeof position);
    return position;
  }
  void SetPosition(BlockId block, int32_t position) { std::memcpy(Slot(block), &position, sizeof position); }

  std::vector<BlockId> ring_;      // size a power of two
  std::vector<int32_t> own_positions_;  // the positions when the caller gives no slots
  // Where each block's position lives (Slot): its live entry's ring index,
  // or kAbsent.
  std::byte* base_ = nullptr;
  size_t stride_ = 0;
  size_t mask_ = 0;                // ring_.size() - 1
  size_t head_ = 0;                // ring index of the oldest pending entry
  size_t pending_ = 0;             // entries from head_ on, live or stale
  int32_t size_ = 0;               // live entries
};

}  // namespace efimsim
