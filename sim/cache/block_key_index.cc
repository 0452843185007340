#include "sim/cache/block_key_index.h"

#include "sim/base/check.h"

namespace efimsim {

BlockKeyIndex::BlockKeyIndex(int64_t max_keys) : max_keys_(max_keys) {
  EFIMSIM_CHECK(max_keys >= 1, "a key index needs room for a key");
  size_t capacity = 4;
  while (capacity < static_cast<size_t>(max_keys) * 4) capacity *= 2;
  slots_.resize(capacity);
  mask_ = capacity - 1;
}

size_t BlockKeyIndex::SlotOf(BlockKey key) const {
  size_t i = Home(key);
  while (slots_[i].chain.head != -1 && slots_[i].key != key) i = (i + 1) & mask_;
  return i;
}

const BlockKeyChain* BlockKeyIndex::Find(BlockKey key) const {
  const Slot& slot = slots_[SlotOf(key)];
  return slot.chain.head == -1 ? nullptr : &slot.chain;
}

BlockKeyChain* BlockKeyIndex::Find(BlockKey key) {
  Slot& slot = slots_[SlotOf(key)];
  return slot.chain.head == -1 ? nullptr : &slot.chain;
}

BlockKeyChain& BlockKeyIndex::FindOrInsert(BlockKey key) {
  Slot& slot = slots_[SlotOf(key)];
  if (slot.chain.head == -1) {
    EFIMSIM_CHECK(size_ < max_keys_, "key index full");
    slot.key = key;
    ++size_;
  }
  return slot.chain;
}

void BlockKeyIndex::Erase(BlockKey key) {
  size_t hole = SlotOf(key);
  EFIMSIM_CHECK(slots_[hole].chain.head != -1, "erasing a key that is not present");
  // Backward-shift deletion: move later members of the probe run into the
  // hole while that keeps them reachable from their home slot.
  size_t next = (hole + 1) & mask_;
  while (slots_[next].chain.head != -1) {
    const size_t home = Home(slots_[next].key);
    const bool movable = ((next - home) & mask_) >= ((next - hole) & mask_);
    if (movable) {
      slots_[hole] = slots_[next];
      hole = next;
    }
    next = (next + 1) & mask_;
  }
  slots_[hole] = Slot{};
  --size_;
}

}  // namespace efimsim
