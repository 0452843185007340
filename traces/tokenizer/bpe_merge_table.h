#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace efimsim::tokenizer {

// What merging an adjacent (left, right) token pair produces.
struct BpeMerge {
  int32_t rank;       // position in tokenizer.json's merge list: lower merges first
  int32_t merged_id;  // id of the concatenated token
};

// Open-addressing hash map from a pair of token ids (both >= 0) to its
// BpeMerge. Built once, then read-only (safe to share between threads).
class BpeMergeTable {
 public:
  // Sizes the table for `count` pairs; must be called before Insert.
  void Reserve(std::size_t count);
  // Adds or replaces the merge of (left, right).
  void Insert(int32_t left, int32_t right, BpeMerge merge);
  // The merge of (left, right), or nullptr when the pair never merges.
  const BpeMerge* Find(int32_t left, int32_t right) const {
    const uint64_t key = Key(left, right);
    for (std::size_t slot = Hash(key) & mask_;; slot = (slot + 1) & mask_) {
      const Slot& s = slots_[slot];
      if (s.key == key) return &s.merge;
      if (s.key == kEmptyKey) return nullptr;
    }
  }
  std::size_t size() const { return size_; }

 private:
  struct Slot {
    uint64_t key;
    BpeMerge merge;
  };
  static constexpr uint64_t kEmptyKey = ~uint64_t{0};  // ids are >= 0, so never a real key

  static uint64_t Key(int32_t left, int32_t right) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right);
  }
  static std::size_t Hash(uint64_t key) {
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return static_cast<std::size_t>(key);
  }

  std::vector<Slot> slots_{Slot{kEmptyKey, {0, 0}}};
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

}  // namespace efimsim::tokenizer
