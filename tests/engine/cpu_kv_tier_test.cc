// One test per rule of the CPU KV tier (sim/engine/vllm/cpu_kv_tier.h,
// sim/README.md "CPU KV tier"), after vLLM's LRUOffloadingManager and
// OffloadingConnector.
#include "sim/engine/vllm/cpu_kv_tier.h"

#include <gtest/gtest.h>

#include <vector>

namespace efimsim {
namespace {

constexpr int64_t kBlockBytes = 1000;
constexpr double kBytesPerS = 1e9;  // 1 us per block

CpuKvTier Tier(int64_t blocks, Duration latency = Duration{0}) {
  return CpuKvTier(blocks, kBlockBytes, kBytesPerS, latency);
}

TEST(CpuKvTier, StoreIsWriteThroughAndSkipsHeldKeys) {
  CpuKvTier tier = Tier(8);
  const std::vector<BlockKey> keys = {1, 2, 3};
  tier.Store(keys, 0);
  EXPECT_EQ(tier.size(), 3);
  EXPECT_EQ(tier.stats().stored_blocks, 3);
  tier.Store(keys, 0);  // all held: nothing stored again
  EXPECT_EQ(tier.stats().stored_blocks, 3);
  tier.CheckInvariants();
}

TEST(CpuKvTier, StoreTouchesThePrefixWithBlockZeroMostRecent) {
  CpuKvTier tier = Tier(8);
  tier.Store(std::vector<BlockKey>{10, 11}, 0);
  tier.Store(std::vector<BlockKey>{20}, 0);
  // A later store of request 1's next block touches 10, 11, 12: 12 first, 10 last.
  tier.Store(std::vector<BlockKey>{10, 11, 12}, 2);
  EXPECT_EQ(tier.KeysInLruOrder(), (std::vector<BlockKey>{20, 12, 11, 10}));
}

TEST(CpuKvTier, StoreOfNothingNewTouchesNothing) {
  CpuKvTier tier = Tier(8);
  tier.Store(std::vector<BlockKey>{1}, 0);
  tier.Store(std::vector<BlockKey>{2}, 0);
  tier.Store(std::vector<BlockKey>{1}, 0);
  EXPECT_EQ(tier.KeysInLruOrder(), (std::vector<BlockKey>{1, 2}));
}

TEST(CpuKvTier, FullTierEvictsLeastRecentlyUsed) {
  CpuKvTier tier = Tier(3);
  tier.Store(std::vector<BlockKey>{1}, 0);
  tier.Store(std::vector<BlockKey>{2}, 0);
  tier.Store(std::vector<BlockKey>{3}, 0);
  tier.Lookup(std::vector<BlockKey>{1}, 0, 1);  // touches 1
  tier.Store(std::vector<BlockKey>{4}, 0);
  EXPECT_FALSE(tier.Contains(2));
  EXPECT_TRUE(tier.Contains(1));
  EXPECT_TRUE(tier.Contains(4));
  EXPECT_EQ(tier.stats().evictions, 1);
  tier.CheckInvariants();
}

TEST(CpuKvTier, BatchLargerThanTheTierStoresNothing) {
  CpuKvTier tier = Tier(2);
  tier.Store(std::vector<BlockKey>{1}, 0);
  tier.Store(std::vector<BlockKey>{5, 6, 7}, 0);
  EXPECT_EQ(tier.size(), 1);
  EXPECT_TRUE(tier.Contains(1));
  EXPECT_EQ(tier.stats().rejected_stores, 1);
}

TEST(CpuKvTier, LookupContinuesFromTheGpuHitAndStopsAtTheFirstMiss) {
  CpuKvTier tier = Tier(8);
  tier.Store(std::vector<BlockKey>{1, 2, 3, 5}, 0);  // 4 missing
  const std::vector<BlockKey> prompt = {1, 2, 3, 4, 5};
  EXPECT_EQ(tier.Lookup(prompt, 1, 5), 2);  // GPU hit 1 block: 2, 3 then miss at 4
  EXPECT_EQ(tier.Lookup(prompt, 0, 2), 2);  // the cap (limit) bounds the hit
  EXPECT_EQ(tier.Lookup(prompt, 3, 5), 0);
  EXPECT_EQ(tier.stats().lookups, 3);
  EXPECT_EQ(tier.stats().hit_blocks, 4);
}

TEST(CpuKvTier, LookupTouchesTheRequestsHeldBlocks) {
  CpuKvTier tier = Tier(8);
  tier.Store(std::vector<BlockKey>{1}, 0);
  tier.Store(std::vector<BlockKey>{9}, 0);
  tier.Lookup(std::vector<BlockKey>{1, 2}, 0, 2);
  EXPECT_EQ(tier.KeysInLruOrder(), (std::vector<BlockKey>{9, 1}));
}

TEST(CpuKvTier, LoadCostsLatencyPlusBytesOverTheLinkOneAtATime) {
  CpuKvTier tier = Tier(8, Nanoseconds(500));
  const TimePoint t0{};
  // 3 blocks x 1000 bytes at 1e9 B/s = 3 us, plus 0.5 us.
  const TimePoint first = tier.StartLoad(t0, 3);
  EXPECT_EQ(ToNanoseconds(first - t0), 3500);
  // A second load started meanwhile waits for the link.
  const TimePoint second = tier.StartLoad(t0 + Nanoseconds(1000), 1);
  EXPECT_EQ(ToNanoseconds(second - t0), 3500 + 500 + 1000);
  // After the link is free, a load starts at once.
  const TimePoint third = tier.StartLoad(t0 + Nanoseconds(10000), 2);
  EXPECT_EQ(ToNanoseconds(third - t0), 10000 + 500 + 2000);
  EXPECT_EQ(tier.stats().loads, 3);
  EXPECT_EQ(tier.stats().loaded_blocks, 6);
}

}  // namespace
}  // namespace efimsim
