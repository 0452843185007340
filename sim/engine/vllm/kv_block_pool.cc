#include "sim/engine/vllm/kv_block_pool.h"

#include <algorithm>
#include <cstddef>
#include <string>

#include "sim/base/check.h"

namespace efimsim {

const char* BlockStateName(BlockState state) {
  switch (state) {
    case BlockState::kFree: return "free";
    case BlockState::kFreeCached: return "free_cached";
    case BlockState::kInUse: return "in_use";
  }
  return "unknown";
}

KvBlockPool::KvBlockPool(int32_t num_blocks)
    : blocks_(static_cast<size_t>(std::max(num_blocks, 1))),
      key_map_(std::max(num_blocks, 1)),
      free_(std::max(num_blocks, 1),
            FreeBlockQueue::PositionSlots{
                reinterpret_cast<std::byte*>(blocks_.data()) + offsetof(Block, free_position),
                sizeof(Block)}) {
  EFIMSIM_CHECK(num_blocks > 0, "a block pool needs at least one block");
}

void KvBlockPool::FailTransition(BlockId block, BlockState to) const {
  FailCheck(__FILE__, __LINE__, "legal transition",
            std::string("illegal block transition ") + BlockStateName(blocks_[block].state) +
                " -> " + BlockStateName(to) + " for block " + std::to_string(block));
}

BlockId KvBlockPool::FindCached(BlockKey key) const {
  const BlockKeyChain* chain = key_map_.Find(key);
  return chain == nullptr ? kNoBlock : chain->head;
}

void KvBlockPool::Touch(std::span<const BlockId> blocks) {
  for (size_t i = 0; i < blocks.size(); ++i) {
    if (i + kPrefetchDistance < blocks.size()) __builtin_prefetch(&blocks_[blocks[i + kPrefetchDistance]]);
    const BlockId block = blocks[i];
    Block& b = blocks_[block];
    if (b.ref_count == 0) {
      free_.Remove(block);
      Transition(block, BlockState::kInUse);
    }
    ++b.ref_count;
  }
}

void KvBlockPool::AllocateNew(int32_t count, std::vector<BlockId>& out) {
  EFIMSIM_CHECK(count >= 0 && count <= free_.size(), "AllocateNew beyond the free blocks");
  // The blocks leave the free queue first, in one pass over its ring, so
  // their ids are known before any is evicted. Under cache pressure every
  // block taken then evicts a key: its record (a random read: in the
  // 2,000-user paper run only a quarter of consecutive blocks taken have
  // adjacent ids) and a store to its key-index slot, each likely a cache
  // miss. Records are loaded kPrefetchDistance blocks ahead and, once
  // there, their key slots half as far ahead.
  const size_t first = out.size();
  out.resize(first + static_cast<size_t>(count));
  BlockId* const taken = out.data() + first;
  free_.PopFront(count, taken);
  constexpr int32_t kKeyDistance = kPrefetchDistance / 2;
  for (int32_t i = 0; i < std::min(count, kPrefetchDistance); ++i) __builtin_prefetch(&blocks_[taken[i]]);
  for (int32_t i = 0; i < std::min(count, kKeyDistance); ++i) {
    if (blocks_[taken[i]].has_key()) key_map_.PrefetchSlot(blocks_[taken[i]].key_slot);
  }
  for (int32_t i = 0; i < count; ++i) {
    if (i + kPrefetchDistance < count) __builtin_prefetch(&blocks_[taken[i + kPrefetchDistance]]);
    if (i + kKeyDistance < count) {
      const Block& ahead = blocks_[taken[i + kKeyDistance]];
      if (ahead.has_key()) key_map_.PrefetchSlot(ahead.key_slot);
    }
    const BlockId block = taken[i];
    Block& b = blocks_[block];
    EFIMSIM_CHECK(b.ref_count == 0, "a free block was referenced");
    if (b.has_key()) {
      DropKey(block);  // lazy eviction
      ++evictions_;
    }
    Transition(block, BlockState::kInUse);
    b.ref_count = 1;
  }
  // A call takes ~16 blocks (a prefill chunk's worth) and the next one,
  // usually within the same step, takes the blocks now at the head: their
  // records and queue positions start loading now (a position lies in its
  // record, but a 24-byte record may cross into a second cache line).
  for (int32_t k = 0; k < kPrefetchDistance; ++k) {
    const BlockId next = free_.Ahead(k);
    if (next == kNoBlock) break;
    __builtin_prefetch(&blocks_[next]);
    free_.Prefetch(next);
  }
}

void KvBlockPool::Release(std::span<const BlockId> blocks_in_release_order) {
  const std::span<const BlockId> blocks = blocks_in_release_order;
  // One pass: the blocks are distinct, so a block's count reaches zero at
  // its only place in the list, where vLLM's second pass (append those at
  // zero, in list order) would append it. Records and queue positions are
  // random reads, loaded kPrefetchDistance blocks ahead (a position lies
  // in its record, but a 24-byte record may cross into a second line).
  for (size_t i = 0; i < std::min<size_t>(blocks.size(), kPrefetchDistance); ++i) {
    __builtin_prefetch(&blocks_[blocks[i]]);
    free_.Prefetch(blocks[i]);
  }
  for (size_t i = 0; i < blocks.size(); ++i) {
    if (i + kPrefetchDistance < blocks.size()) {
      __builtin_prefetch(&blocks_[blocks[i + kPrefetchDistance]]);
      free_.Prefetch(blocks[i + kPrefetchDistance]);
    }
    const BlockId block = blocks[i];
    Block& b = blocks_[block];
    EFIMSIM_CHECK(b.ref_count > 0, "releasing a block that is not referenced");
    if (--b.ref_count == 0) {
      Transition(block, b.has_key() ? BlockState::kFreeCached : BlockState::kFree);
      free_.Append(block);
    }
  }
}

void KvBlockPool::UnlinkFromChain(Block& b) {
  BlockKeyChain* chain = &key_map_.ChainAt(b.key_slot);
  if (b.prev_same_key != kNoBlock) {
    blocks_[b.prev_same_key].next_same_key = b.next_same_key;
  } else {
    chain->head = b.next_same_key;
  }
  if (b.next_same_key != kNoBlock) {
    blocks_[b.next_same_key].prev_same_key = b.prev_same_key;
  } else {
    chain->tail = b.prev_same_key;
  }
}

void KvBlockPool::FailRegister() const {
  FailCheck(__FILE__, __LINE__, "state == kInUse && !has_key",
            "only an in-use block without a key can be registered");
}

std::vector<BlockId> KvBlockPool::FreeQueueOrder() const { return free_.Order(); }

void KvBlockPool::CheckInvariants() const {
  std::vector<char> in_queue(blocks_.size(), 0);
  int32_t walked = 0;
  for (const BlockId b : free_.Order()) {
    EFIMSIM_CHECK(!in_queue[b], "block twice in the free queue");
    in_queue[b] = 1;
    ++walked;
  }
  EFIMSIM_CHECK(walked == free_.size(), "free count does not match the free queue");
  size_t keyed = 0;
  for (BlockId b = 0; b < num_blocks(); ++b) {
    EFIMSIM_CHECK(free_.contains(b) == (in_queue[b] != 0), "free-queue membership broken");
    const Block& block = blocks_[b];
    if (block.ref_count > 0) {
      EFIMSIM_CHECK(!in_queue[b] && block.state == BlockState::kInUse, "used block in free queue");
    } else {
      EFIMSIM_CHECK(in_queue[b], "unreferenced block missing from the free queue");
      EFIMSIM_CHECK(block.state == (block.has_key() ? BlockState::kFreeCached : BlockState::kFree),
                    "free block in the wrong state");
    }
    if (block.has_key()) ++keyed;
  }
  // Every chained block holds the place where a lookup of its chain's key
  // finds it (so a key), and as many blocks are chained as hold a key: a
  // block has one successor, so no block is in two chains, and every keyed
  // block is in its key's chain. (The index is walked in slot order and a
  // key mostly lies in its home bucket, so the lookups are near-sequential;
  // a lookup per keyed block, in block order, was a random read each.)
  size_t chained = 0;
  key_map_.ForEach([&](BlockKey key, const BlockKeyChain& chain) {
    BlockKeyIndex::Place place;
    EFIMSIM_CHECK(key_map_.FindPlace(key, place), "a key the index holds is not found");
    EFIMSIM_CHECK(chain.head != kNoBlock, "a key without blocks");
    for (BlockId b = chain.head; b != kNoBlock; b = blocks_[b].next_same_key) {
      EFIMSIM_CHECK(blocks_[b].key_slot == place.slot && blocks_[b].key_displaced == place.displaced,
                    "key chain holds a block whose place in the key map is wrong");
      ++chained;
    }
  });
  EFIMSIM_CHECK(chained == keyed, "key map and keyed blocks disagree");
}

}  // namespace efimsim
