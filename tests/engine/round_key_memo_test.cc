#include "sim/engine/vllm/round_key_memo.h"

#include <gtest/gtest.h>

#include <vector>

namespace efimsim {
namespace {

TEST(RoundKeyMemo, KeepsThePromptsKeysForTheNextRoundOnce) {
  RoundKeyMemo memo(8);
  memo.Keep(7, 2, std::vector<BlockKey>{1, 2, 3, 4, 5}, 3);  // 3 prompt blocks, 2 output blocks
  std::vector<BlockKey> keys{99};
  EXPECT_FALSE(memo.Take(6, 2, keys));  // another user
  EXPECT_EQ(keys, std::vector<BlockKey>{99});
  ASSERT_TRUE(memo.Take(7, 2, keys));
  EXPECT_EQ(keys, (std::vector<BlockKey>{1, 2, 3}));
  EXPECT_FALSE(memo.Take(7, 2, keys));  // taken
  EXPECT_EQ(memo.size(), 0u);
}

// A user whose round r-1 went elsewhere: the keys kept are round r-2's,
// another prompt's, and are dropped rather than given.
TEST(RoundKeyMemo, KeysOfAnotherRoundAreNotGivenAndAreForgotten) {
  RoundKeyMemo memo(8);
  memo.Keep(1, 0, std::vector<BlockKey>{1, 2}, 2);
  std::vector<BlockKey> keys;
  EXPECT_FALSE(memo.Take(1, 1, keys));
  EXPECT_TRUE(keys.empty());
  EXPECT_EQ(memo.size(), 0u);
}

TEST(RoundKeyMemo, HoldsAtMostItsBoundDroppingTheOldestFirst) {
  RoundKeyMemo memo(2);
  memo.Keep(1, 0, std::vector<BlockKey>{11}, 1);
  memo.Keep(2, 0, std::vector<BlockKey>{22}, 1);
  memo.Keep(1, 1, std::vector<BlockKey>{12}, 1);  // user 1 again: its newer keys replace the older
  memo.Keep(3, 0, std::vector<BlockKey>{33}, 1);  // over the bound: user 2 (the oldest) goes
  EXPECT_EQ(memo.size(), 2u);
  std::vector<BlockKey> keys;
  EXPECT_FALSE(memo.Take(2, 0, keys));
  ASSERT_TRUE(memo.Take(1, 1, keys));
  EXPECT_EQ(keys, std::vector<BlockKey>{12});
  ASSERT_TRUE(memo.Take(3, 0, keys));
  EXPECT_EQ(keys, std::vector<BlockKey>{33});
  // Many keeps and takes of one user: the queue of keep order stays bounded.
  for (int64_t round = 0; round < 1000; ++round) {
    memo.Keep(4, round, std::vector<BlockKey>{static_cast<BlockKey>(round)}, 1);
    if (round % 2 == 0) {
      ASSERT_TRUE(memo.Take(4, round, keys));
    }
  }
  EXPECT_LE(memo.size(), 2u);
}

TEST(RoundKeyMemo, ABoundOfZeroKeepsNothing) {
  RoundKeyMemo memo(0);
  memo.Keep(1, 0, std::vector<BlockKey>{1}, 1);
  std::vector<BlockKey> keys;
  EXPECT_FALSE(memo.Take(1, 0, keys));
}

}  // namespace
}  // namespace efimsim
