// Rules of vLLM v1's KV cache manager with prefix caching (docs/semantics.md §3).
#include "sim/engine/vllm/prefix_cache_manager.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

namespace efimsim {
namespace {

constexpr int32_t kBlock = 16;

TokenVector Tokens(int64_t count, TokenId first) {
  TokenVector tokens(static_cast<size_t>(count));
  std::iota(tokens.begin(), tokens.end(), first);
  return tokens;
}

std::vector<BlockKey> Keys(const TokenVector& tokens) {
  std::vector<BlockKey> keys;
  AppendBlockKeys(tokens, kBlock, 0, keys);
  return keys;
}

// Admits a whole prompt in one step and returns its hit.
int64_t Admit(PrefixCacheManager& cache, KvSequence& seq, const TokenVector& tokens) {
  std::vector<BlockId> hits;
  const auto keys = Keys(tokens);
  const int64_t n = static_cast<int64_t>(tokens.size());
  const int64_t hit = cache.FindLongestHit(keys, n, hits);
  EXPECT_TRUE(cache.Allocate(seq, 0, n - hit, hits, keys));
  return hit;
}

TEST(BlockKey, EqualKeyAtBlockIImpliesEqualBlocksBeforeIt) {
  TokenVector a = Tokens(32, 1000);
  TokenVector b = a;
  b[0] = 5;  // differs only in block 0
  EXPECT_NE(Keys(a)[1], Keys(b)[1]);  // block 1's tokens are equal, its key is not
  EXPECT_EQ(Keys(a), Keys(a));
}

TEST(BlockKey, ExtraKeysSeparateOtherwiseEqualBlocks) {
  const TokenVector a = Tokens(16, 1);
  EXPECT_NE(HashBlock(kRootBlockKey, a, 0), HashBlock(kRootBlockKey, a, 1));
}

TEST(BlockKey, ParentOrderAndLengthAllChangeTheKey) {
  const TokenVector a = Tokens(16, 1);
  TokenVector swapped = a;
  std::swap(swapped[3], swapped[4]);
  const TokenVector shorter(a.begin(), a.end() - 1);
  const BlockKey key = HashBlock(kRootBlockKey, a);
  EXPECT_NE(key, HashBlock(kRootBlockKey + 1, a));
  EXPECT_NE(key, HashBlock(kRootBlockKey, swapped));
  EXPECT_NE(key, HashBlock(kRootBlockKey, shorter));
}

// Every block size (the 16-token path is unrolled, others loop over 4-token
// stripes and pad a partial one): any one token changed, two neighbours
// swapped, or a zero token appended changes the key, and AppendBlockKeys
// gives the keys HashBlock chains block by block.
TEST(BlockKey, EveryBlockSizeSeesEveryTokenAndItsPlace) {
  for (int32_t size = 1; size <= 40; ++size) {
    const TokenVector block = Tokens(size, 300);
    const BlockKey key = HashBlock(kRootBlockKey, block);
    for (int32_t i = 0; i < size; ++i) {
      TokenVector changed = block;
      changed[static_cast<size_t>(i)] += 1;
      EXPECT_NE(HashBlock(kRootBlockKey, changed), key) << "size " << size << " token " << i;
      if (i + 1 < size) {
        TokenVector swapped = block;
        std::swap(swapped[static_cast<size_t>(i)], swapped[static_cast<size_t>(i) + 1]);
        EXPECT_NE(HashBlock(kRootBlockKey, swapped), key) << "size " << size << " swap " << i;
      }
    }
    TokenVector padded = block;
    padded.push_back(0);
    EXPECT_NE(HashBlock(kRootBlockKey, padded), key) << "size " << size;

    const TokenVector prompt = Tokens(3 * size + 1, 7);
    std::vector<BlockKey> keys;
    AppendBlockKeys(prompt, size, 0, keys);
    ASSERT_EQ(keys.size(), size == 1 ? 4u : 3u);  // the extra token fills a block at size 1
    BlockKey parent = kRootBlockKey;
    for (size_t b = 0; b < keys.size(); ++b) {
      const size_t width = static_cast<size_t>(size);
      parent = HashBlock(parent, TokenSpan(prompt).subspan(b * width, width));
      EXPECT_EQ(keys[b], parent) << "size " << size << " block " << b;
    }
  }
}

// No collisions among 2^18 keys of near-identical blocks: every block
// differs from another in one token by one, or sits under a parent that
// differs in one bit; the structured inputs a weak mix fails on first.
TEST(BlockKey, NoCollisionsAmongStructuredBlocks) {
  std::vector<BlockKey> keys;
  TokenVector tokens(16, 0);
  for (int32_t position = 0; position < 16; ++position) {
    for (TokenId value = 0; value < 8192; ++value) {
      tokens.assign(16, 0);
      tokens[static_cast<size_t>(position)] = value;
      keys.push_back(HashBlock(kRootBlockKey, tokens));
    }
  }
  tokens.assign(16, 7);
  for (int bit = 0; bit < 64; ++bit) keys.push_back(HashBlock(BlockKey{1} << bit, tokens));
  std::sort(keys.begin(), keys.end());
  // Value 0 at every position is the same all-zero block: 15 repeats.
  EXPECT_EQ(std::unique(keys.begin(), keys.end()) - keys.begin(), 16 * 8192 - 15 + 64);
}

TEST(PrefixCacheManager, OnlyFullBlocksAreCached) {
  PrefixCacheManager cache(64, kBlock, true);
  KvSequence first;
  Admit(cache, first, Tokens(40, 1000));  // 2 full blocks + 8 tokens
  cache.Free(first);
  KvSequence second;
  EXPECT_EQ(Admit(cache, second, Tokens(60, 1000)), 32);  // the partial third block is not reused
}

TEST(PrefixCacheManager, LookupStopsAtTheFirstMiss) {
  PrefixCacheManager cache(64, kBlock, true);
  KvSequence first;
  TokenVector tokens = Tokens(64, 1000);
  Admit(cache, first, tokens);
  cache.Free(first);
  tokens[20] = 1;  // block 1 differs: blocks 2 and 3 have new keys too
  KvSequence second;
  EXPECT_EQ(Admit(cache, second, tokens), 16);
}

TEST(PrefixCacheManager, FullyCachedPromptRecomputesItsLastBlock) {
  PrefixCacheManager cache(64, kBlock, true);
  KvSequence first;
  const TokenVector tokens = Tokens(48, 1000);  // exactly 3 blocks
  Admit(cache, first, tokens);
  cache.Free(first);
  std::vector<BlockId> hits;
  // cap = (48 - 1) / 16 = 2 blocks
  EXPECT_EQ(cache.FindLongestHit(Keys(tokens), 48, hits), 32);
  EXPECT_EQ(hits.size(), 2u);
  // one token more: the cap allows all three
  TokenVector longer = Tokens(49, 1000);
  EXPECT_EQ(cache.FindLongestHit(Keys(longer), 49, hits), 48);
}

TEST(PrefixCacheManager, BlocksAreCachedAtScheduleTimeBeforeTheirKvIsComputed) {
  PrefixCacheManager cache(64, kBlock, true);
  const TokenVector tokens = Tokens(64, 1000);
  const auto keys = Keys(tokens);
  KvSequence running;
  std::vector<BlockId> none;
  // First chunk of 32 tokens scheduled: 2 blocks registered now.
  ASSERT_TRUE(cache.Allocate(running, 0, 32, none, keys));
  KvSequence later;
  std::vector<BlockId> hits;
  EXPECT_EQ(cache.FindLongestHit(keys, 64, hits), 32);
  EXPECT_EQ(hits, (std::vector<BlockId>{running.blocks[0], running.blocks[1]}));
}

TEST(PrefixCacheManager, GeneratedTokensBecomeCacheable) {
  PrefixCacheManager cache(64, kBlock, true);
  TokenVector tokens = Tokens(30, 1000);
  KvSequence seq;
  std::vector<BlockKey> keys = Keys(tokens);
  std::vector<BlockId> none;
  ASSERT_TRUE(cache.Allocate(seq, 0, 30, none, keys));
  // Two decode steps append tokens 30 and 31 (block 1 fills with output).
  tokens.push_back(5000);
  AppendBlockKeys(tokens, kBlock, 0, keys);
  ASSERT_TRUE(cache.Allocate(seq, 30, 1, none, keys));
  tokens.push_back(5001);
  AppendBlockKeys(tokens, kBlock, 0, keys);
  ASSERT_TRUE(cache.Allocate(seq, 31, 1, none, keys));
  cache.Free(seq);
  TokenVector next = tokens;
  next.push_back(1);
  KvSequence other;
  EXPECT_EQ(Admit(cache, other, next), 32);
}

TEST(PrefixCacheManager, FreeReleasesBlocksLastFirstSoDeepestAreEvictedFirst) {
  PrefixCacheManager cache(3, kBlock, true);
  KvSequence seq;
  Admit(cache, seq, Tokens(48, 1000));
  const std::vector<BlockId> blocks = seq.blocks;
  cache.Free(seq);
  EXPECT_EQ(cache.pool().FreeQueueOrder(), (std::vector<BlockId>{blocks[2], blocks[1], blocks[0]}));
}

TEST(PrefixCacheManager, HitOnFreeBlockCountsAgainstFreeCapacityWhenAdmitting) {
  PrefixCacheManager cache(4, kBlock, true);
  KvSequence a;
  const TokenVector tokens = Tokens(48, 1000);
  Admit(cache, a, tokens);  // 3 blocks
  cache.Free(a);
  // All 4 blocks are free; the 3 cached ones would be hits. A 97-token
  // prompt sharing them needs 7 blocks: 3 hits (taken from the free queue) +
  // 4 new ones, but only 4 - 3 = 1 other block is free.
  TokenVector longer = Tokens(97, 1000);
  std::vector<BlockId> hits;
  const auto keys = Keys(longer);
  ASSERT_EQ(cache.FindLongestHit(keys, 97, hits), 48);
  KvSequence b;
  EXPECT_FALSE(cache.Allocate(b, 0, 49, hits, keys));
  EXPECT_TRUE(b.blocks.empty());
  EXPECT_EQ(cache.pool().num_free_blocks(), 4);  // a failed allocation changes nothing
  // A 64-token prompt needs 3 hits + 1 new block: fits exactly.
  TokenVector fits = Tokens(64, 1000);
  const auto fit_keys = Keys(fits);
  ASSERT_EQ(cache.FindLongestHit(fit_keys, 64, hits), 48);
  EXPECT_TRUE(cache.Allocate(b, 0, 16, hits, fit_keys));
  EXPECT_EQ(cache.pool().num_free_blocks(), 0);
  cache.pool().CheckInvariants();
}

TEST(PrefixCacheManager, HitRateCountsTokensOfEveryLookup) {
  PrefixCacheManager cache(64, kBlock, true);
  KvSequence a, b;
  Admit(cache, a, Tokens(40, 1000));  // miss: 0 of 40
  Admit(cache, b, Tokens(40, 1000));  // hit 32 of 40 (a's blocks are shared while running)
  EXPECT_EQ(cache.stats().lookups, 2);
  EXPECT_EQ(cache.stats().query_tokens, 80);
  EXPECT_EQ(cache.stats().hit_tokens, 32);
}

TEST(PrefixCacheManager, CachingOffFindsNothingCountsNothingRegistersNothing) {
  PrefixCacheManager cache(64, kBlock, false);
  KvSequence a, b;
  Admit(cache, a, Tokens(64, 1000));
  cache.Free(a);
  EXPECT_EQ(Admit(cache, b, Tokens(64, 1000)), 0);
  EXPECT_EQ(cache.stats().lookups, 0);
  for (BlockId block : b.blocks) EXPECT_FALSE(cache.pool().has_key(block));
}

}  // namespace
}  // namespace efimsim

namespace efimsim {
namespace {

// Block arithmetic for any block size: powers of two take a shift, others a
// division; both must give ceil for blocks needed and floor for full blocks
// (and the lookup cap of (n - 1) / size full blocks).
TEST(PrefixCacheManager, BlockCountsForAnyBlockSize) {
  for (const int32_t size : {1, 3, 12, 16, 32, 48}) {
    for (const int64_t n : {1, 2, 15, 16, 17, 47, 48, 49, 100}) {
      PrefixCacheManager cache(400, size, true);
      const TokenVector tokens = Tokens(n, 500);
      std::vector<BlockKey> keys;
      AppendBlockKeys(tokens, size, 0, keys);
      ASSERT_EQ(static_cast<int64_t>(keys.size()), n / size);
      KvSequence first;
      ASSERT_TRUE(cache.Allocate(first, 0, n, {}, keys));
      EXPECT_EQ(static_cast<int64_t>(first.blocks.size()), (n + size - 1) / size) << size << " " << n;
      EXPECT_EQ(first.num_registered_blocks, n / size) << size << " " << n;
      std::vector<BlockId> hits;
      EXPECT_EQ(cache.FindLongestHit(keys, n, hits), (n - 1) / size * size) << size << " " << n;
      cache.Free(first);
    }
  }
}

}  // namespace
}  // namespace efimsim
