#include "sim/engine/vllm/prefix_cache_manager.h"

#include <algorithm>
#include <bit>

#include "sim/base/check.h"

namespace efimsim {
namespace {
constexpr int64_t kPrefetchDistance = KvBlockPool::kPrefetchDistance;
}  // namespace

PrefixCacheManager::PrefixCacheManager(int32_t num_blocks, int32_t block_tokens,
                                       bool caching_enabled)
    : pool_(num_blocks), block_tokens_(block_tokens), caching_enabled_(caching_enabled) {
  EFIMSIM_CHECK(block_tokens > 0, "block size must be positive");
  const auto size = static_cast<uint32_t>(block_tokens);
  if (std::has_single_bit(size)) block_shift_ = std::countr_zero(size);
}

int64_t PrefixCacheManager::FindLongestHit(std::span<const BlockKey> keys, int64_t num_tokens,
                                           std::vector<BlockId>& hit_blocks) {
  hit_blocks.clear();
  if (!caching_enabled_) return 0;
  // At least one token is always computed, to produce logits.
  const int64_t max_hit_blocks = num_tokens > 0 ? FullBlocks(num_tokens - 1) : 0;
  const int64_t limit = std::min<int64_t>(max_hit_blocks, static_cast<int64_t>(keys.size()));
  for (int64_t i = 0; i < std::min(limit, kPrefetchDistance); ++i) pool_.PrefetchKey(keys[i]);
  for (int64_t i = 0; i < limit; ++i) {
    if (i + kPrefetchDistance < limit) pool_.PrefetchKey(keys[i + kPrefetchDistance]);
    const BlockId block = pool_.FindCached(keys[i]);
    if (block == kNoBlock) break;
    hit_blocks.push_back(block);
  }
  const int64_t hit_tokens = static_cast<int64_t>(hit_blocks.size()) * block_tokens_;
  ++stats_.lookups;
  stats_.query_tokens += num_tokens;
  stats_.hit_tokens += hit_tokens;
  return hit_tokens;
}

bool PrefixCacheManager::AllocateSlots(KvSequence& sequence, int64_t num_computed_tokens,
                                       int64_t num_new_tokens,
                                       std::span<const BlockId> hit_blocks,
                                       std::span<const BlockKey> keys,
                                       int64_t cacheable_tokens) {
  EFIMSIM_CHECK(hit_blocks.empty() || sequence.blocks.empty(),
                "cache hits are only taken at admission");
  const int64_t computed =
      num_computed_tokens + static_cast<int64_t>(hit_blocks.size()) * block_tokens_;
  const int64_t total = computed + num_new_tokens;
  const int64_t required_blocks = FullBlocks(total + block_tokens_ - 1);
  const int64_t new_blocks = required_blocks - static_cast<int64_t>(sequence.blocks.size()) -
                             static_cast<int64_t>(hit_blocks.size());
  int64_t evictable_hits = 0;
  for (const BlockId block : hit_blocks) evictable_hits += pool_.ref_count(block) == 0 ? 1 : 0;
  if (new_blocks > pool_.num_free_blocks() - evictable_hits) return false;

  const bool admitting = sequence.blocks.empty();
  pool_.Touch(hit_blocks);
  sequence.blocks.insert(sequence.blocks.end(), hit_blocks.begin(), hit_blocks.end());
  if (admitting) sequence.num_registered_blocks = static_cast<int32_t>(hit_blocks.size());
  // Blocks [first, full_blocks) are registered below. Their first
  // kPrefetchDistance key slots start loading now, so that the misses
  // overlap each other and AllocateNew; the loop then loads ahead.
  const int64_t first = sequence.num_registered_blocks;
  const int64_t full_blocks = caching_enabled_ ? FullBlocks(std::min(total, cacheable_tokens)) : 0;
  for (int64_t i = first; i < std::min(full_blocks, first + kPrefetchDistance); ++i) {
    if (i < static_cast<int64_t>(keys.size())) pool_.PrefetchKey(keys[static_cast<size_t>(i)]);
  }
  if (new_blocks > 0) pool_.AllocateNew(static_cast<int32_t>(new_blocks), sequence.blocks);

  if (caching_enabled_) {
    EFIMSIM_CHECK(full_blocks <= static_cast<int64_t>(keys.size()),
                  "keys missing for blocks about to be full");
    for (int64_t i = first; i < full_blocks; ++i) {
      if (i + kPrefetchDistance < full_blocks) {
        pool_.PrefetchKey(keys[static_cast<size_t>(i + kPrefetchDistance)]);
      }
      pool_.Register(sequence.blocks[static_cast<size_t>(i)], keys[static_cast<size_t>(i)]);
    }
    sequence.num_registered_blocks =
        std::max<int32_t>(sequence.num_registered_blocks, static_cast<int32_t>(full_blocks));
    if (cpu_tier_ != nullptr && full_blocks > first) {
      // vLLM offers a new request's blocks from block 0 (GPU hits included).
      cpu_tier_->Store(keys.first(static_cast<size_t>(full_blocks)), admitting ? 0 : first);
    }
  }
  return true;
}

void PrefixCacheManager::Free(KvSequence& sequence) {
  // vLLM frees last-first when caching (deepest blocks are evicted first).
  if (caching_enabled_) {
    scratch_.assign(sequence.blocks.rbegin(), sequence.blocks.rend());
  } else {
    scratch_.assign(sequence.blocks.begin(), sequence.blocks.end());
  }
  pool_.Release(scratch_);
  sequence.blocks.clear();
  sequence.num_registered_blocks = 0;
}

}  // namespace efimsim
