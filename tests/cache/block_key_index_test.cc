#include "sim/cache/block_key_index.h"

#include <gtest/gtest.h>

#include <map>

#include "sim/base/check.h"
#include "sim/core/random.h"

namespace efimsim {
namespace {

TEST(BlockKeyIndex, MatchesAMapUnderRandomInsertsAndErases) {
  BlockKeyIndex index(512);
  std::map<BlockKey, int32_t> reference;
  RandomStream rng = RandomStream::Derive(5, 0, "test.key_index");
  for (int i = 0; i < 200000; ++i) {
    // Small key range: many collisions of home slots, long probe runs.
    const BlockKey key = static_cast<BlockKey>(rng.UniformInt(0, 700));
    const bool present = reference.count(key) > 0;
    if (present && rng.UniformInt(0, 1) == 0) {
      index.Erase(key);
      reference.erase(key);
    } else if (!present && static_cast<int64_t>(reference.size()) < 512) {
      index.FindOrInsert(key).head = static_cast<int32_t>(i);
      reference[key] = i;
    }
    const BlockKeyChain* found = index.Find(key);
    ASSERT_EQ(found != nullptr, reference.count(key) > 0);
    if (found != nullptr) {
      ASSERT_EQ(found->head, reference[key]);
    }
  }
  EXPECT_EQ(index.size(), static_cast<int64_t>(reference.size()));
  int64_t visited = 0;
  index.ForEach([&](BlockKey key, const BlockKeyChain& chain) {
    EXPECT_EQ(chain.head, reference.at(key));
    ++visited;
  });
  EXPECT_EQ(visited, index.size());
}

TEST(BlockKeyIndex, RefusesMoreKeysThanItsCapacity) {
  BlockKeyIndex index(2);
  index.FindOrInsert(1).head = 0;
  index.FindOrInsert(2).head = 0;
  EXPECT_THROW(index.FindOrInsert(3), InternalError);
}

}  // namespace
}  // namespace efimsim
