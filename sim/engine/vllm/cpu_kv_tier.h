#pragma once
// A second, host-memory tier of KV blocks behind the GPU prefix cache,
// modelled after vLLM's CPU offloading connector (OffloadingConnector with
// the CPU spec and LRUOffloadingManager, vLLM 0.11-0.12 series; the rules
// and what is left out are in sim/README.md, "CPU KV tier").
//
// Contract:
//  - Blocks are keyed by the GPU cache's block keys (same block size), so a
//    key names the same tokens, and the same prefix, in both tiers.
//  - Store (write-through): every block the GPU cache registers is offered
//    to the tier; keys already held are not stored again. If any new key
//    was stored, every key of the request's prefix is touched, block 0 last
//    (most recently used). Room is made by evicting least recently used
//    keys; a batch larger than the whole tier stores nothing.
//  - Lookup at admission (after the GPU prefix cache's hit): touches every
//    given key that is held, then counts the keys held consecutively from
//    `first`. The tier never holds a key that is not also a leading run of
//    its own chain, so a hit implies its parents are cached in one tier or
//    the other.
//  - Loads travel over one host-to-device link, one transfer at a time in
//    the order they start: a load of n blocks takes transfer_latency +
//    n x bytes_per_block / bytes_per_s after the later of now and the end of
//    the previous load.
//  - Nothing is pinned: a block being loaded may be evicted meanwhile
//    (vLLM pins it with a reference count; here its data is already
//    accounted for by the load).
// Switched off, the tier does not exist: nothing calls it.

#include <cstdint>
#include <span>
#include <vector>

#include "sim/base/time.h"
#include "sim/engine/vllm/block_key.h"
#include "sim/engine/vllm/block_key_index.h"

namespace efimsim {

struct CpuKvTierStats {
  int64_t lookups = 0;         // admissions that looked the tier up
  int64_t hit_blocks = 0;      // blocks found by lookups (loaded or not)
  int64_t loads = 0;           // transfers started
  int64_t loaded_blocks = 0;   // blocks transferred host -> GPU
  int64_t stored_blocks = 0;   // blocks written GPU -> host
  int64_t evictions = 0;       // blocks dropped to make room
  int64_t rejected_stores = 0; // store batches larger than the tier
  Duration load_time{0};       // sum over loads of (ready - start), link queueing included
};

class CpuKvTier {
 public:
  // capacity_blocks >= 1, bytes_per_block >= 1, bytes_per_s > 0.
  CpuKvTier(int64_t capacity_blocks, int64_t bytes_per_block, double bytes_per_s,
            Duration transfer_latency);

  // Stores keys[first, size) that are not held; touches keys[0, size) if
  // anything was stored. Precondition: 0 <= first <= keys.size().
  void Store(std::span<const BlockKey> keys, int64_t first);
  // Touches every held key of `keys` (the request's full blocks, block 0
  // last), then returns how many of keys[first, limit) are held
  // consecutively from `first`. Counts one lookup and its hit blocks.
  int64_t Lookup(std::span<const BlockKey> keys, int64_t first, int64_t limit);
  // Starts loading `blocks` blocks at `now`; returns when they are on the GPU.
  TimePoint StartLoad(TimePoint now, int64_t blocks);

  bool Contains(BlockKey key) const { return index_.Find(key) != nullptr; }
  int64_t size() const { return index_.size(); }
  int64_t capacity_blocks() const { return capacity_; }
  int64_t bytes_per_block() const { return bytes_per_block_; }
  // Keys from least to most recently used (for tests and checks).
  std::vector<BlockKey> KeysInLruOrder() const;
  // The list and the index agree, and size <= capacity. Throws otherwise.
  void CheckInvariants() const;
  const CpuKvTierStats& stats() const { return stats_; }

 private:
  static constexpr int32_t kNil = -1;
  struct Node {
    BlockKey key = 0;
    int32_t prev = kNil;  // towards least recently used
    int32_t next = kNil;  // towards most recently used
  };
  void Unlink(int32_t node);
  void PushMostRecent(int32_t node);
  void Touch(BlockKey key);
  // Touches keys[size-1] .. keys[0] in that order (block 0 ends most recent).
  void TouchAllDeepestFirst(std::span<const BlockKey> keys);
  void EvictLeastRecent();

  int64_t capacity_;
  int64_t bytes_per_block_;
  double bytes_per_s_;
  Duration transfer_latency_;
  std::vector<Node> nodes_;            // one slot per block of capacity
  std::vector<int32_t> free_slots_;
  // key -> its node: the chain's head is the node's slot (tail unused).
  // The GPU cache's index type: one cache line per lookup, sized for the
  // whole tier up front, never rehashed.
  BlockKeyIndex index_;
  int32_t least_recent_ = kNil;
  int32_t most_recent_ = kNil;
  TimePoint link_free_{};              // when the last started load ends
  CpuKvTierStats stats_;
};

}  // namespace efimsim
