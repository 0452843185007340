#pragma once
// vLLM v1's KV cache manager with automatic prefix caching
// (vllm/v1/core/kv_cache_manager.py, 0.9-0.10 series: no block
// preallocation, no sliding window, one KV cache group).
//
// Rules reproduced (docs/semantics.md §3):
//  - Lookup (FindLongestHit) only when a waiting request is admitted; walks
//    block keys left to right, stops at the first miss, and is capped at
//    (num_tokens - 1) / block_tokens blocks so at least one token is computed.
//  - Every lookup counts queries += num_tokens, hits += hit tokens
//    (Prometheus prefix_cache_queries / prefix_cache_hits).
//  - Allocate registers, at schedule time, every block that will be full
//    after the step.
//  - A hit on a free block takes it out of the free queue and counts against
//    free capacity when admitting.
//  - Free releases a request's blocks last-first.
// With caching disabled (the paper's baseline) lookups find nothing, count
// nothing, and no block is ever registered.

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "sim/base/check.h"
#include "sim/engine/vllm/cpu_kv_tier.h"
#include "sim/engine/vllm/kv_block_pool.h"

namespace efimsim {

// The per-request state the manager keeps inside each request.
struct KvSequence {
  std::vector<BlockId> blocks;      // block table, in token order
  int32_t num_registered_blocks = 0;  // leading blocks whose key is registered
};

struct PrefixCacheStats {
  int64_t lookups = 0;        // admissions that looked up the cache
  int64_t query_tokens = 0;   // sum of num_tokens over lookups
  int64_t hit_tokens = 0;     // sum of hit tokens over lookups
};

class PrefixCacheManager {
 public:
  PrefixCacheManager(int32_t num_blocks, int32_t block_tokens, bool caching_enabled);

  // The longest cached run of leading full blocks of a sequence of
  // `num_tokens` tokens whose full-block keys are `keys`, written to
  // `hit_blocks` (cleared first). Returns the hit in tokens.
  int64_t FindLongestHit(std::span<const BlockKey> keys, int64_t num_tokens,
                         std::vector<BlockId>& hit_blocks);

  // vLLM allocate_slots: makes room for `num_new_tokens` more tokens after
  // `num_computed_tokens` already-computed ones plus `hit_blocks` (non-empty
  // only at admission). Returns false, changing nothing, if the pool lacks
  // free blocks. On success, registers every block that will be full after
  // the step, using `keys` (keys of the sequence's full blocks).
  // Inline for the common decode step, which takes and registers nothing:
  // it runs for every running request in every step.
  // `cacheable_tokens`: blocks are registered only up to this many tokens
  // (speculative decoding's drafts are computed but not cached until
  // verified: vLLM caches up to request.num_tokens).
  bool Allocate(KvSequence& sequence, int64_t num_computed_tokens, int64_t num_new_tokens,
                std::span<const BlockId> hit_blocks, std::span<const BlockKey> keys,
                int64_t cacheable_tokens = INT64_MAX) {
    EFIMSIM_CHECK(num_new_tokens > 0, "Allocate needs at least one new token");
    if (hit_blocks.empty()) {
      const int64_t total = num_computed_tokens + num_new_tokens;
      const bool fits_in_held_blocks =
          FullBlocks(total + block_tokens_ - 1) <= static_cast<int64_t>(sequence.blocks.size());
      if (fits_in_held_blocks &&
          (!caching_enabled_ ||
           FullBlocks(std::min(total, cacheable_tokens)) <= sequence.num_registered_blocks)) {
        return true;  // nothing to take or register
      }
    }
    return AllocateSlots(sequence, num_computed_tokens, num_new_tokens, hit_blocks, keys,
                         cacheable_tokens);
  }

  // Releases every block of `sequence` (last-first) and resets it.
  void Free(KvSequence& sequence);

  // Optional CPU KV tier (must outlive the manager; null: none, the
  // default). Every call that registers blocks offers the sequence's full
  // blocks to it (write-through store, CpuKvTier::Store), from block 0 at
  // admission and from the first newly registered block after it.
  void set_cpu_tier(CpuKvTier* tier) { cpu_tier_ = tier; }
  CpuKvTier* cpu_tier() const { return cpu_tier_; }

  int32_t block_tokens() const { return block_tokens_; }
  bool caching_enabled() const { return caching_enabled_; }
  const PrefixCacheStats& stats() const { return stats_; }
  const KvBlockPool& pool() const { return pool_; }

 private:
  // Full blocks in `tokens` tokens (tokens >= 0): a shift when the block
  // size is a power of two, as it nearly always is. A 64-bit division
  // costs tens of cycles, and Allocate runs for every running request in
  // every step.
  int64_t FullBlocks(int64_t tokens) const {
    return block_shift_ >= 0 ? tokens >> block_shift_ : tokens / block_tokens_;
  }
  // Allocate when it may take or register blocks.
  bool AllocateSlots(KvSequence& sequence, int64_t num_computed_tokens, int64_t num_new_tokens,
                     std::span<const BlockId> hit_blocks, std::span<const BlockKey> keys,
                     int64_t cacheable_tokens);

  KvBlockPool pool_;
  int32_t block_tokens_;
  int32_t block_shift_ = -1;  // log2(block_tokens_), or -1 if not a power of two
  bool caching_enabled_;
  PrefixCacheStats stats_;
  std::vector<BlockId> scratch_;
  CpuKvTier* cpu_tier_ = nullptr;
};

}  // namespace efimsim
