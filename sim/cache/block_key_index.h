#pragma once
// BlockKey -> (first, last) block holding it: the prefix cache's lookup
// table, as an open-addressing hash table with linear probing and
// backward-shift deletion. Its capacity is fixed at construction (a power of
// two at least four times the most keys it will hold: one per block), so it
// never rehashes and a lookup touches one or two cache lines.
//
// Why a load factor of at most 1/4 (16 bytes per slot, so 64 bytes of table
// per block): under cache thrash every block taken erases one key and
// registers another, and the probe and backward-shift loops' lengths are
// unpredictable branches. At 1/2, BM_PoolChurn spent ~75 ns per block; at
// 1/4, ~50-58 ns (pools of 4,096 and 28,019 blocks). A SwissTable-style
// layout (8 control bytes per group, tombstones) was tried: fewer
// mispredictions, but more instructions and periodic purges of tombstones
// cost the 2,000-user paper run 12% more instructions, for no measurable
// gain in wall time.

#include <cstdint>
#include <vector>

#include "sim/cache/block_key.h"

namespace efimsim {

struct BlockKeyChain {
  int32_t head = -1;  // earliest-registered block holding the key
  int32_t tail = -1;  // latest-registered
};

class BlockKeyIndex {
 public:
  // Room for `max_keys` keys at a load factor of at most 1/4.
  explicit BlockKeyIndex(int64_t max_keys);

  // The chain of `key`, or nullptr.
  const BlockKeyChain* Find(BlockKey key) const;
  BlockKeyChain* Find(BlockKey key);
  // The chain of `key`, inserted empty if absent. Precondition: fewer than
  // max_keys keys are present.
  BlockKeyChain& FindOrInsert(BlockKey key);
  // Removes `key`. Precondition: present.
  void Erase(BlockKey key);
  // Starts loading the slot where `key` would be found, so that a Find,
  // FindOrInsert or Erase of it a little later does not wait for memory.
  // A hint only: it changes nothing.
  void Prefetch(BlockKey key) const { __builtin_prefetch(&slots_[Home(key)]); }

  int64_t size() const { return size_; }

  // Visits every (key, chain), in slot order (tests and invariant checks).
  template <class Visitor>
  void ForEach(Visitor&& visit) const {
    for (const Slot& slot : slots_) {
      if (slot.chain.head != -1) visit(slot.key, slot.chain);
    }
  }

 private:
  struct Slot {
    BlockKey key = 0;
    BlockKeyChain chain;  // chain.head == -1 marks an empty slot
  };
  size_t Home(BlockKey key) const {
    // Keys are hashes already, but imported ones may be small integers:
    // one multiply spreads them (Fibonacci hashing).
    return static_cast<size_t>((key * 0x9e3779b97f4a7c15ULL) >> 20) & mask_;
  }
  size_t SlotOf(BlockKey key) const;  // its slot, or an empty one where it would go

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  int64_t size_ = 0;
  int64_t max_keys_ = 0;
};

}  // namespace efimsim
