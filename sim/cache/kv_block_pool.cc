#include "sim/cache/kv_block_pool.h"

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

KvBlockPool::KvBlockPool(int32_t num_blocks) : key_map_(num_blocks > 0 ? num_blocks : 1) {
  EFIMSIM_CHECK(num_blocks > 0, "a block pool needs at least one block");
  blocks_.resize(static_cast<size_t>(num_blocks));
  for (BlockId b = 0; b < num_blocks; ++b) AppendFree(b);
}

void KvBlockPool::Transition(BlockId block, BlockState to) {
  Block& b = blocks_[block];
  const BlockState from = b.state;
  const bool legal = (from == BlockState::kFree && to == BlockState::kInUse) ||
                     (from == BlockState::kFreeCached && to == BlockState::kInUse) ||
                     (from == BlockState::kInUse && to == BlockState::kFree && !b.has_key) ||
                     (from == BlockState::kInUse && to == BlockState::kFreeCached && b.has_key);
  EFIMSIM_CHECK(legal, std::string("illegal block transition ") + BlockStateName(from) + " -> " +
                           BlockStateName(to) + " for block " + std::to_string(block));
  b.state = to;
}

BlockId KvBlockPool::FindCached(BlockKey key) const {
  const BlockKeyChain* chain = key_map_.Find(key);
  return chain == nullptr ? kNoBlock : chain->head;
}

void KvBlockPool::Touch(std::span<const BlockId> blocks) {
  for (const BlockId block : blocks) {
    Block& b = blocks_[block];
    if (b.ref_count == 0) {
      UnlinkFree(block);
      Transition(block, BlockState::kInUse);
    }
    ++b.ref_count;
  }
}

void KvBlockPool::AllocateNew(int32_t count, std::vector<BlockId>& out) {
  EFIMSIM_CHECK(count >= 0 && count <= free_count_, "AllocateNew beyond the free blocks");
  for (int32_t i = 0; i < count; ++i) {
    const BlockId block = free_head_;
    UnlinkFree(block);
    Block& b = blocks_[block];
    EFIMSIM_CHECK(b.ref_count == 0, "a free block was referenced");
    if (b.has_key) {
      DropKey(block);  // lazy eviction
      ++evictions_;
    }
    Transition(block, BlockState::kInUse);
    b.ref_count = 1;
    out.push_back(block);
  }
}

void KvBlockPool::Register(BlockId block, BlockKey key) {
  Block& b = blocks_[block];
  EFIMSIM_CHECK(b.state == BlockState::kInUse && !b.has_key,
                "only an in-use block without a key can be registered");
  b.key = key;
  b.has_key = true;
  BlockKeyChain& chain = key_map_.FindOrInsert(key);
  b.prev_same_key = chain.tail;
  b.next_same_key = kNoBlock;
  if (chain.tail != kNoBlock) {
    blocks_[chain.tail].next_same_key = block;
  } else {
    chain.head = block;
  }
  chain.tail = block;
}

void KvBlockPool::Release(std::span<const BlockId> blocks_in_release_order) {
  for (const BlockId block : blocks_in_release_order) {
    Block& b = blocks_[block];
    EFIMSIM_CHECK(b.ref_count > 0, "releasing a block that is not referenced");
    --b.ref_count;
  }
  for (const BlockId block : blocks_in_release_order) {
    Block& b = blocks_[block];
    if (b.ref_count == 0 && b.state == BlockState::kInUse) {
      Transition(block, b.has_key ? BlockState::kFreeCached : BlockState::kFree);
      AppendFree(block);
    }
  }
}

void KvBlockPool::UnlinkFree(BlockId block) {
  Block& b = blocks_[block];
  if (b.prev_free != kNoBlock) {
    blocks_[b.prev_free].next_free = b.next_free;
  } else {
    free_head_ = b.next_free;
  }
  if (b.next_free != kNoBlock) {
    blocks_[b.next_free].prev_free = b.prev_free;
  } else {
    free_tail_ = b.prev_free;
  }
  b.prev_free = b.next_free = kNoBlock;
  --free_count_;
}

void KvBlockPool::AppendFree(BlockId block) {
  Block& b = blocks_[block];
  b.prev_free = free_tail_;
  b.next_free = kNoBlock;
  if (free_tail_ != kNoBlock) {
    blocks_[free_tail_].next_free = block;
  } else {
    free_head_ = block;
  }
  free_tail_ = block;
  ++free_count_;
}

void KvBlockPool::DropKey(BlockId block) {
  Block& b = blocks_[block];
  if (b.prev_same_key == kNoBlock && b.next_same_key == kNoBlock) {
    key_map_.Erase(b.key);  // the key's only holder
  } else {
    BlockKeyChain* chain = key_map_.Find(b.key);
    EFIMSIM_CHECK(chain != nullptr, "a keyed block missing from the key map");
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
  b.prev_same_key = b.next_same_key = kNoBlock;
  b.has_key = false;
  b.key = 0;
}

std::vector<BlockId> KvBlockPool::FreeQueueOrder() const {
  std::vector<BlockId> order;
  order.reserve(static_cast<size_t>(free_count_));
  for (BlockId b = free_head_; b != kNoBlock; b = blocks_[b].next_free) order.push_back(b);
  return order;
}

void KvBlockPool::CheckInvariants() const {
  std::vector<char> in_queue(blocks_.size(), 0);
  int32_t walked = 0;
  BlockId previous = kNoBlock;
  for (BlockId b = free_head_; b != kNoBlock; b = blocks_[b].next_free) {
    EFIMSIM_CHECK(!in_queue[b], "block twice in the free queue");
    EFIMSIM_CHECK(blocks_[b].prev_free == previous, "free-queue back link broken");
    in_queue[b] = 1;
    previous = b;
    ++walked;
  }
  EFIMSIM_CHECK(walked == free_count_, "free count does not match the free queue");
  EFIMSIM_CHECK(free_tail_ == previous, "free-queue tail broken");
  size_t keyed = 0;
  for (BlockId b = 0; b < num_blocks(); ++b) {
    const Block& block = blocks_[b];
    if (block.ref_count > 0) {
      EFIMSIM_CHECK(!in_queue[b] && block.state == BlockState::kInUse, "used block in free queue");
    } else {
      EFIMSIM_CHECK(in_queue[b], "unreferenced block missing from the free queue");
      EFIMSIM_CHECK(block.state == (block.has_key ? BlockState::kFreeCached : BlockState::kFree),
                    "free block in the wrong state");
    }
    if (block.has_key) {
      ++keyed;
      EFIMSIM_CHECK(key_map_.Find(block.key) != nullptr, "keyed block not in the key map");
    }
  }
  size_t chained = 0;
  key_map_.ForEach([&](BlockKey key, const BlockKeyChain& chain) {
    for (BlockId b = chain.head; b != kNoBlock; b = blocks_[b].next_same_key) {
      EFIMSIM_CHECK(blocks_[b].has_key && blocks_[b].key == key, "key chain holds a wrong block");
      ++chained;
    }
  });
  EFIMSIM_CHECK(chained == keyed, "key map and keyed blocks disagree");
}

}  // namespace efimsim
