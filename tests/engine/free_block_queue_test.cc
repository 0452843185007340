// The free-block queue against a plain linked list (the structure vLLM
// uses), through long random sequences of takes, appends and removals that
// wrap the ring and force compactions.
#include "sim/engine/vllm/free_block_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <list>

#include "sim/base/check.h"
#include "sim/core/random.h"

namespace efimsim {
namespace {

using Blocks = std::vector<BlockId>;

TEST(FreeBlockQueue, StartsWithEveryBlockInIdOrder) {
  FreeBlockQueue queue(5);
  EXPECT_EQ(queue.size(), 5);
  EXPECT_EQ(queue.Order(), (Blocks{0, 1, 2, 3, 4}));
  EXPECT_EQ(queue.Ahead(0), 0);
  EXPECT_EQ(queue.Ahead(4), 4);
  EXPECT_EQ(queue.Ahead(5), kNoBlock);
}

TEST(FreeBlockQueue, RemovedBlocksAreSkippedAndKeepTheOthersOrder) {
  FreeBlockQueue queue(5);
  queue.Remove(0);
  queue.Remove(2);
  EXPECT_FALSE(queue.contains(0));
  EXPECT_EQ(queue.Order(), (Blocks{1, 3, 4}));
  EXPECT_EQ(queue.PopFront(), 1);
  EXPECT_EQ(queue.PopFront(), 3);
  queue.Append(2);
  queue.Append(0);
  EXPECT_EQ(queue.Order(), (Blocks{4, 2, 0}));
  EXPECT_EQ(queue.size(), 3);
}

TEST(FreeBlockQueue, MisuseIsAnInternalError) {
  FreeBlockQueue queue(2);
  EXPECT_THROW(queue.Append(0), InternalError);  // already queued
  queue.Remove(1);
  EXPECT_THROW(queue.Remove(1), InternalError);  // not queued
  BlockId out[2];
  EXPECT_THROW(queue.PopFront(2, out), InternalError);  // more than it holds
  queue.PopFront();
  EXPECT_THROW(queue.PopFront(), InternalError);  // empty
}

// Random operations, checked step by step against std::list (takes of one
// block and of several at once). Removals of
// queued blocks are frequent, so stale entries fill the ring and compaction
// runs many times; takes and appends wrap it. `queue` is fresh, over
// num_blocks blocks.
void ExpectMatchesALinkedList(FreeBlockQueue& queue, int32_t num_blocks) {
  std::list<BlockId> model;
  for (BlockId b = 0; b < num_blocks; ++b) model.push_back(b);
  Blocks taken;  // blocks outside the queue
  RandomStream rng = RandomStream::Derive(7, static_cast<uint64_t>(num_blocks), "test.free_queue");
  for (int step = 0; step < 20000; ++step) {
    const int64_t op = rng.UniformInt(0, 2);
    if (op == 0 && !model.empty()) {  // take the head: one block, or several at once
      ASSERT_EQ(queue.Ahead(0) == kNoBlock, false);
      const int64_t count = rng.UniformInt(1, std::min<int64_t>(4, static_cast<int64_t>(model.size())));
      Blocks got(static_cast<size_t>(count));
      if (count == 1 && rng.UniformInt(0, 1) == 0) {
        got[0] = queue.PopFront();
      } else {
        queue.PopFront(static_cast<int32_t>(count), got.data());
      }
      for (const BlockId block : got) {
        ASSERT_EQ(block, model.front());
        model.pop_front();
        taken.push_back(block);
      }
    } else if (op == 1 && !model.empty()) {  // a cache hit on a free block
      auto it = model.begin();
      std::advance(it, rng.UniformInt(0, static_cast<int64_t>(model.size()) - 1));
      queue.Remove(*it);
      taken.push_back(*it);
      model.erase(it);
    } else if (!taken.empty()) {  // release a block
      const size_t i = static_cast<size_t>(rng.UniformInt(0, static_cast<int64_t>(taken.size()) - 1));
      queue.Append(taken[i]);
      model.push_back(taken[i]);
      taken.erase(taken.begin() + static_cast<int64_t>(i));
    }
    ASSERT_EQ(queue.size(), static_cast<int32_t>(model.size()));
    if (step % 97 == 0) {
      ASSERT_EQ(queue.Order(), Blocks(model.begin(), model.end())) << "step " << step;
      for (BlockId b = 0; b < num_blocks; ++b) {
        ASSERT_EQ(queue.contains(b), std::find(model.begin(), model.end(), b) != model.end());
      }
    }
  }
}

TEST(FreeBlockQueue, MatchesALinkedListUnderRandomOperations) {
  for (const int32_t num_blocks : {1, 3, 17, 200}) {
    FreeBlockQueue queue(num_blocks);
    ExpectMatchesALinkedList(queue, num_blocks);
  }
}

// Positions kept in a field of the caller's records, as KvBlockPool keeps
// them: the same behaviour, with a stride that is not a power of two, and
// the records' other fields never written.
TEST(FreeBlockQueue, PositionsInTheCallersRecordsBehaveTheSame) {
  struct Record {
    int32_t before = 0x11111111;
    int32_t position = 12345;
    int32_t after = 0x22222222;
  };
  for (const int32_t num_blocks : {1, 3, 17, 200}) {
    std::vector<Record> records(static_cast<size_t>(num_blocks));
    FreeBlockQueue queue(num_blocks, FreeBlockQueue::PositionSlots{
                                         reinterpret_cast<std::byte*>(records.data()) + offsetof(Record, position),
                                         sizeof(Record)});
    for (BlockId b = 0; b < num_blocks; ++b) ASSERT_EQ(records[static_cast<size_t>(b)].position, b);
    ExpectMatchesALinkedList(queue, num_blocks);
    for (BlockId b = 0; b < num_blocks; ++b) {
      const Record& r = records[static_cast<size_t>(b)];
      EXPECT_EQ(r.before, 0x11111111);
      EXPECT_EQ(r.after, 0x22222222);
      EXPECT_EQ(queue.contains(b), r.position != -1) << "block " << b;
    }
  }
}

}  // namespace
}  // namespace efimsim
