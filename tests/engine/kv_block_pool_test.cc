// Rules of vLLM v1's block pool (docs/semantics.md §3), one test each.
#include "sim/engine/vllm/kv_block_pool.h"

#include <gtest/gtest.h>

#include "sim/base/check.h"

namespace efimsim {
namespace {

using Blocks = std::vector<BlockId>;

TEST(KvBlockPool, NewBlocksComeFromTheHeadOfTheFreeQueue) {
  KvBlockPool pool(4);
  Blocks got;
  pool.AllocateNew(2, got);
  EXPECT_EQ(got, (Blocks{0, 1}));
  EXPECT_EQ(pool.FreeQueueOrder(), (Blocks{2, 3}));
  EXPECT_EQ(pool.num_free_blocks(), 2);
  pool.CheckInvariants();
}

TEST(KvBlockPool, ReleasedBlocksGoToTheTailInTheGivenOrder) {
  KvBlockPool pool(4);
  Blocks got;
  pool.AllocateNew(3, got);  // 0 1 2
  pool.Release(Blocks{2, 1, 0});  // a request releases last-first
  EXPECT_EQ(pool.FreeQueueOrder(), (Blocks{3, 2, 1, 0}));
  pool.CheckInvariants();
}

TEST(KvBlockPool, LeastRecentlyFreedBlockIsEvictedFirst) {
  KvBlockPool pool(3);
  Blocks a, b;
  pool.AllocateNew(1, a);  // block 0
  pool.AllocateNew(1, b);  // block 1
  pool.Register(a[0], 100);
  pool.Register(b[0], 200);
  pool.Release(a);  // freed first
  pool.Release(b);
  Blocks fresh;
  pool.AllocateNew(2, fresh);  // never-used block 2, then the least recently freed (0)
  EXPECT_EQ(fresh, (Blocks{2, 0}));
  EXPECT_EQ(pool.FindCached(100), kNoBlock);  // evicted lazily when taken
  EXPECT_EQ(pool.FindCached(200), 1);         // still cached while free
  EXPECT_EQ(pool.evictions(), 1);
  pool.CheckInvariants();
}

TEST(KvBlockPool, CachedFreeBlockKeepsItsKeyUntilTaken) {
  KvBlockPool pool(2);
  Blocks a;
  pool.AllocateNew(1, a);
  pool.Register(a[0], 42);
  pool.Release(a);
  EXPECT_EQ(pool.state(a[0]), BlockState::kFreeCached);
  EXPECT_EQ(pool.FindCached(42), a[0]);
  pool.CheckInvariants();
}

TEST(KvBlockPool, TouchingAFreeCachedBlockUnlinksItFromTheFreeQueue) {
  KvBlockPool pool(3);
  Blocks a;
  pool.AllocateNew(1, a);
  pool.Register(a[0], 7);
  pool.Release(a);
  ASSERT_EQ(pool.num_free_blocks(), 3);
  pool.Touch(a);
  EXPECT_EQ(pool.ref_count(a[0]), 1);
  EXPECT_EQ(pool.num_free_blocks(), 2);
  EXPECT_EQ(pool.state(a[0]), BlockState::kInUse);
  pool.CheckInvariants();
}

TEST(KvBlockPool, SharedBlockReturnsToFreeQueueOnlyWhenLastReferenceDrops) {
  KvBlockPool pool(2);
  Blocks a;
  pool.AllocateNew(1, a);
  pool.Register(a[0], 9);
  pool.Touch(a);  // a second request hits it
  EXPECT_EQ(pool.ref_count(a[0]), 2);
  pool.Release(a);
  EXPECT_EQ(pool.num_free_blocks(), 1);
  pool.Release(a);
  EXPECT_EQ(pool.num_free_blocks(), 2);
  pool.CheckInvariants();
}

TEST(KvBlockPool, NoDeduplicationLookupReturnsEarliestRegisteredHolder) {
  KvBlockPool pool(3);
  Blocks a, b;
  pool.AllocateNew(1, a);
  pool.AllocateNew(1, b);
  pool.Register(a[0], 5);
  pool.Register(b[0], 5);  // the same content computed twice: both stay
  EXPECT_EQ(pool.FindCached(5), a[0]);
  pool.Release(a);
  Blocks evict;
  pool.AllocateNew(2, evict);  // block 2, then a[0] (evicting its key)
  EXPECT_EQ(pool.FindCached(5), b[0]);
  pool.CheckInvariants();
}

TEST(KvBlockPool, IllegalUseIsAnInternalError) {
  KvBlockPool pool(1);
  Blocks a;
  EXPECT_THROW(pool.AllocateNew(2, a), InternalError);
  pool.AllocateNew(1, a);
  pool.Release(a);
  EXPECT_THROW(pool.Release(a), InternalError);
  // Release's precondition: distinct blocks. One listed twice is caught
  // when its only reference is already gone.
  KvBlockPool two(2);
  Blocks b;
  two.AllocateNew(1, b);
  EXPECT_THROW(two.Release(Blocks{b[0], b[0]}), InternalError);
}

}  // namespace
}  // namespace efimsim
