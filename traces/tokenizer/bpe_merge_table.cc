#include "traces/tokenizer/bpe_merge_table.h"

#include <stdexcept>

namespace efimsim::tokenizer {

void BpeMergeTable::Reserve(std::size_t count) {
  std::size_t capacity = 16;
  while (capacity < 2 * count) capacity *= 2;  // load factor <= 0.5
  slots_.assign(capacity, Slot{kEmptyKey, {0, 0}});
  mask_ = capacity - 1;
  size_ = 0;
}

void BpeMergeTable::Insert(int32_t left, int32_t right, BpeMerge merge) {
  if (2 * (size_ + 1) > slots_.size()) throw std::logic_error("BpeMergeTable: Reserve() too small");
  const uint64_t key = Key(left, right);
  for (std::size_t slot = Hash(key) & mask_;; slot = (slot + 1) & mask_) {
    Slot& s = slots_[slot];
    if (s.key == key) {
      s.merge = merge;
      return;
    }
    if (s.key == kEmptyKey) {
      s = Slot{key, merge};
      ++size_;
      return;
    }
  }
}

}  // namespace efimsim::tokenizer
