#pragma once
// The paged KV block pool of vLLM v1 (vllm/v1/core/block_pool.py, 0.9-0.10
// series), after LevelDB's cache.h: pinned entries (reference count > 0) and
// evictable ones, with the whole contract in this header.
//
// Invariants (CheckInvariants verifies them):
//  - Every block is either in use (ref_count > 0, not in the free queue) or
//    free (ref_count == 0, in the free queue exactly once).
//  - A block with a key is findable through the key map; a free block may
//    keep its key ("cached free") until it is taken again (lazy eviction).
//  - free blocks + used blocks == num_blocks.
//
// Free-queue order: new blocks are taken from the head; released blocks are
// appended to the tail in the order the caller gives (vLLM releases a
// request's blocks last-first). So the least recently freed block is evicted
// first, and within one request its deepest blocks go first.
//
// No de-duplication (as v1): several blocks may hold the same key; a lookup
// returns the earliest-registered one still holding it.

#include <cstdint>
#include <span>
#include <vector>

#include "sim/engine/vllm/block_id.h"
#include "sim/engine/vllm/block_key.h"
#include "sim/engine/vllm/block_key_index.h"
#include "sim/engine/vllm/free_block_queue.h"

namespace efimsim {

// Lifecycle of one block; every change goes through KvBlockPool::Transition.
enum class BlockState : uint8_t {
  kFree,        // in the free queue, no key
  kFreeCached,  // in the free queue, still holds a key: a hit revives it
  kInUse,       // referenced by one or more requests
};
const char* BlockStateName(BlockState state);

class KvBlockPool {
 public:
  explicit KvBlockPool(int32_t num_blocks);
  // The free queue keeps positions inside blocks_: not copyable or movable.
  KvBlockPool(const KvBlockPool&) = delete;
  KvBlockPool& operator=(const KvBlockPool&) = delete;

  int32_t num_blocks() const { return static_cast<int32_t>(blocks_.size()); }
  int32_t num_free_blocks() const { return free_.size(); }
  int32_t num_used_blocks() const { return num_blocks() - free_.size(); }

  // The earliest-registered block holding `key`, or kNoBlock.
  BlockId FindCached(BlockKey key) const;
  // Starts loading what FindCached(key) or Register(_, key) will read. A
  // hint for loops over many keys (the key index is larger than a core's
  // cache and each key lands on a random slot); it changes nothing.
  // Always inline (see BlockKeyIndex::PrefetchSlot).
  [[gnu::always_inline]] void PrefetchKey(BlockKey key) const { key_map_.Prefetch(key); }
  // How many blocks ahead loops over block or key lists start loading
  // memory (here and in PrefixCacheManager): enough misses in flight to
  // hide a last-level-cache latency, few enough that prefetched lines are
  // still in L1 when used.
  static constexpr int32_t kPrefetchDistance = 8;

  // Takes a reference on each block (a cache hit); a free block leaves the
  // free queue.
  void Touch(std::span<const BlockId> blocks);

  // Takes `count` blocks from the head of the free queue, evicting any key
  // they still hold, with reference count 1. Precondition: count <= free.
  void AllocateNew(int32_t count, std::vector<BlockId>& out);

  // Registers `block` (in use, no key yet) under `key` (caching at schedule
  // time: the block's KV may still be being computed). Inline: it runs for
  // every block a prompt fills.
  void Register(BlockId block, BlockKey key) {
    Block& b = blocks_[block];
    if (b.state != BlockState::kInUse || b.key_slot != kNoKeySlot) [[unlikely]] FailRegister();
    BlockKeyIndex::Place place;
    BlockKeyChain& chain = key_map_.FindOrInsert(key, place);
    b.key_slot = place.slot;
    b.key_displaced = place.displaced;
    b.prev_same_key = chain.tail;
    b.next_same_key = kNoBlock;
    if (chain.tail != kNoBlock) {
      blocks_[chain.tail].next_same_key = block;
    } else {
      chain.head = block;
    }
    chain.tail = block;
  }

  // Drops one reference from each block, then appends those that reached
  // zero to the free-queue tail in the given order. Precondition: the
  // blocks are distinct (a request's block table); a block listed twice
  // with one reference is an InternalError.
  void Release(std::span<const BlockId> blocks_in_release_order);

  int32_t ref_count(BlockId block) const { return blocks_[block].ref_count; }
  BlockState state(BlockId block) const { return blocks_[block].state; }
  bool has_key(BlockId block) const { return blocks_[block].has_key(); }
  int64_t evictions() const { return evictions_; }
  // Block ids in free-queue order, head first (tests and debugging).
  std::vector<BlockId> FreeQueueOrder() const;

  // Verifies the invariants above; throws InternalError on a violation.
  // O(num_blocks): for tests and --check-invariants, not the hot path.
  void CheckInvariants() const;

 private:
  static constexpr uint32_t kNoKeySlot = UINT32_MAX;
  // 24 bytes. A block's key is not kept here but found through its place
  // in the key index (BlockKeyIndex::KeyAt): evicting a key then clears
  // that slot without hashing the key or reading the index first. The
  // free queue keeps the block's position here too (free_position, owned
  // by free_): taking or freeing a block reads this one record, not the
  // record and a separate position array.
  struct Block {
    int32_t ref_count = 0;
    BlockId prev_same_key = kNoBlock;  // blocks sharing a key, registration order
    BlockId next_same_key = kNoBlock;
    uint32_t key_slot = kNoKeySlot;    // the key's BlockKeyIndex::Place, or kNoKeySlot: no key
    int32_t free_position = 0;         // FreeBlockQueue's slot for this block
    BlockState state = BlockState::kFree;
    bool key_displaced = false;
    bool has_key() const { return key_slot != kNoKeySlot; }
  };
  static_assert(sizeof(Block) == 24, "a block record is 24 bytes");
  // The one place a block's state changes. Legal: to kInUse from either
  // free state; from kInUse to kFreeCached when the block holds a key, to
  // kFree when it does not. Inline: it runs twice per block under churn.
  void Transition(BlockId block, BlockState to) {
    Block& b = blocks_[block];
    const bool legal = to == BlockState::kInUse
                           ? b.state != BlockState::kInUse
                           : b.state == BlockState::kInUse &&
                                 (to == BlockState::kFreeCached) == b.has_key();
    if (!legal) [[unlikely]] FailTransition(block, to);
    b.state = to;
  }
  [[noreturn]] void FailTransition(BlockId block, BlockState to) const;
  [[noreturn]] void FailRegister() const;
  // Forgets the key of `block` (it has one): erased from the key index when
  // the block is its only holder, else unlinked from the key's chain.
  // Inline: under thrash every block taken evicts a key.
  void DropKey(BlockId block) {
    Block& b = blocks_[block];
    if (b.prev_same_key == kNoBlock && b.next_same_key == kNoBlock) [[likely]] {
      key_map_.EraseAt({b.key_slot, b.key_displaced});  // the key's only holder
    } else {
      UnlinkFromChain(b);
    }
    b.prev_same_key = b.next_same_key = kNoBlock;
    b.key_slot = kNoKeySlot;
    b.key_displaced = false;
  }
  void UnlinkFromChain(Block& b);  // DropKey for a key other blocks also hold

  std::vector<Block> blocks_;  // constructed before free_, which points into it
  BlockKeyIndex key_map_;
  FreeBlockQueue free_;
  int64_t evictions_ = 0;
};

}  // namespace efimsim
