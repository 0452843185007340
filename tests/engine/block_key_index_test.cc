#include "sim/engine/vllm/block_key_index.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

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

// Pool-like churn: the index stays near full while keys are replaced, with
// full-width keys and small integers (imported hash ids) mixed, so probe
// runs are long and erasures shift many of them; every key must stay
// findable throughout, and absent keys absent.
TEST(BlockKeyIndex, StaysExactUnderNearFullChurn) {
  constexpr int64_t kMaxKeys = 1000;
  BlockKeyIndex index(kMaxKeys);
  std::map<BlockKey, int32_t> reference;
  RandomStream rng = RandomStream::Derive(6, 0, "test.key_index_churn");
  std::vector<BlockKey> present;
  for (int i = 0; i < 300000; ++i) {
    if (static_cast<int64_t>(present.size()) == kMaxKeys || (!present.empty() && rng.UniformInt(0, 3) == 0)) {
      const size_t victim = static_cast<size_t>(rng.UniformInt(0, static_cast<int64_t>(present.size()) - 1));
      index.Erase(present[victim]);
      reference.erase(present[victim]);
      present[victim] = present.back();
      present.pop_back();
    } else {
      const BlockKey key = rng.UniformInt(0, 1) == 0 ? static_cast<BlockKey>(rng.UniformInt(0, 1 << 20))
                                                     : rng.NextU64();
      if (reference.count(key) > 0) continue;
      index.FindOrInsert(key).head = i;
      reference[key] = i;
      present.push_back(key);
    }
    if (i % 997 == 0) {
      for (const auto& [key, head] : reference) {
        const BlockKeyChain* found = index.Find(key);
        ASSERT_NE(found, nullptr) << "key " << key << " lost at operation " << i;
        ASSERT_EQ(found->head, head);
      }
      ASSERT_EQ(index.Find(rng.NextU64() | (BlockKey{1} << 63)), nullptr);
    }
  }
  EXPECT_EQ(index.size(), static_cast<int64_t>(reference.size()));
}

// The key whose bucket-picking product is `product`: the index multiplies
// keys by a fixed odd constant and takes the top bits, so inverting the
// multiply crafts keys with any home.
BlockKey KeyWithProduct(uint64_t product) {
  constexpr uint64_t kGolden = 0x9e3779b97f4a7c15ULL;
  uint64_t inverse = kGolden;  // Newton's iteration for the inverse mod 2^64
  for (int i = 0; i < 5; ++i) inverse *= 2 - kGolden * inverse;
  return product * inverse;
}

// Keys whose home is bucket 0 of any index (the product's top 20 bits are
// zero).
std::vector<BlockKey> KeysHomedAtBucketZero(int count) {
  std::vector<BlockKey> keys;
  for (int i = 1; i <= count; ++i) keys.push_back(KeyWithProduct(static_cast<uint64_t>(i)));
  return keys;
}

// Many keys with one home bucket overflow into the buckets after it, past
// the point where the overflow count saturates (255), and every one of
// them stays findable as they are erased in an interleaved order and
// inserted again; keys of other buckets are unaffected.
TEST(BlockKeyIndex, KeysSharingAHomeOverflowAndStayExact) {
  constexpr int kColliding = 1200;  // 300 buckets' worth
  BlockKeyIndex index(2000);
  const std::vector<BlockKey> colliding = KeysHomedAtBucketZero(kColliding);
  std::map<BlockKey, int32_t> reference;
  for (int i = 0; i < kColliding; ++i) {
    index.FindOrInsert(colliding[static_cast<size_t>(i)]).head = i;
    reference[colliding[static_cast<size_t>(i)]] = i;
  }
  for (BlockKey other = 1; other <= 500; ++other) {
    index.FindOrInsert(other).head = static_cast<int32_t>(other) + 100000;
    reference[other] = static_cast<int32_t>(other) + 100000;
  }
  auto check_all = [&](const char* when) {
    for (const auto& [key, head] : reference) {
      const BlockKeyChain* found = index.Find(key);
      ASSERT_NE(found, nullptr) << "key " << key << " lost " << when;
      ASSERT_EQ(found->head, head);
    }
    ASSERT_EQ(index.size(), static_cast<int64_t>(reference.size()));
  };
  check_all("after inserting");
  // Erase every third colliding key, the earliest (home bucket) first.
  for (int i = 0; i < kColliding; i += 3) {
    index.Erase(colliding[static_cast<size_t>(i)]);
    reference.erase(colliding[static_cast<size_t>(i)]);
    ASSERT_EQ(index.Find(colliding[static_cast<size_t>(i)]), nullptr);
  }
  check_all("after erasing a third");
  // Re-insert them: they fill the freed slots, nearest their home first.
  for (int i = 0; i < kColliding; i += 3) {
    index.FindOrInsert(colliding[static_cast<size_t>(i)]).head = 200000 + i;
    reference[colliding[static_cast<size_t>(i)]] = 200000 + i;
  }
  check_all("after re-inserting");
  // Erase all colliding keys, last first: the other keys stay.
  for (int i = kColliding - 1; i >= 0; --i) {
    index.Erase(colliding[static_cast<size_t>(i)]);
    reference.erase(colliding[static_cast<size_t>(i)]);
  }
  check_all("after erasing the colliding keys");
  EXPECT_THROW(index.Erase(colliding[0]), InternalError);
}

// Overflow counts can be non-zero in every bucket at once, within the
// index's load limit: five keys each pass 14 full buckets of 64, and the
// keys that filled them are erased. A lookup of an absent key must still
// end (it may go no further than any key was ever stored from its home).
TEST(BlockKeyIndex, AbsentKeyLookupEndsWhenEveryBucketHasOverflowed) {
  constexpr int kBuckets = 64;  // an index for 64 keys has 64 buckets of 4 slots
  constexpr int kSpan = 14;     // buckets each passing key goes past
  BlockKeyIndex index(kBuckets);
  uint64_t serial = 1;
  auto key_homed_at = [&](int bucket) {
    return KeyWithProduct((static_cast<uint64_t>(bucket % kBuckets) << 58) | serial++);
  };
  std::vector<int> passers_in(kBuckets, 0);  // passing keys stored in each bucket
  std::vector<BlockKey> passers;
  for (int home = 0; home < kBuckets; home += kSpan) {
    std::vector<BlockKey> fillers;
    for (int bucket = home; bucket < home + kSpan; ++bucket) {
      for (int slot = passers_in[bucket % kBuckets]; slot < 4; ++slot) {
        fillers.push_back(key_homed_at(bucket));
        index.FindOrInsert(fillers.back()).head = 1;
      }
    }
    passers.push_back(key_homed_at(home));
    index.FindOrInsert(passers.back()).head = 2;
    ++passers_in[(home + kSpan) % kBuckets];
    for (const BlockKey filler : fillers) index.Erase(filler);
  }
  ASSERT_EQ(index.size(), static_cast<int64_t>(passers.size()));
  for (const BlockKey passer : passers) ASSERT_NE(index.Find(passer), nullptr);
  for (int bucket = 0; bucket < kBuckets; ++bucket) {
    EXPECT_EQ(index.Find(key_homed_at(bucket)), nullptr) << "bucket " << bucket;
  }
  EXPECT_THROW(index.Erase(key_homed_at(3)), InternalError);
}

TEST(BlockKeyIndex, RefusesMoreKeysThanItsCapacity) {
  BlockKeyIndex index(2);
  index.FindOrInsert(1).head = 0;
  index.FindOrInsert(2).head = 0;
  EXPECT_THROW(index.FindOrInsert(3), InternalError);
}

// A key's Place (what the KV pool keeps per block) stays valid while the
// key is present, whatever else is inserted and erased, and EraseAt at it
// is Erase: under churn with keys sharing a home, so that some places are
// displaced and their erasure must undo overflow counts, every key stays
// findable at its place and erased keys are gone.
TEST(BlockKeyIndex, AKeysPlaceStaysValidAndEraseAtIsErase) {
  constexpr int64_t kMaxKeys = 600;
  BlockKeyIndex index(kMaxKeys);
  const std::vector<BlockKey> colliding = KeysHomedAtBucketZero(40);
  std::map<BlockKey, BlockKeyIndex::Place> places;
  std::vector<BlockKey> present;
  RandomStream rng = RandomStream::Derive(8, 0, "test.key_index_places");
  int64_t displaced_erasures = 0;
  for (int i = 0; i < 100000; ++i) {
    if (static_cast<int64_t>(present.size()) == kMaxKeys || (!present.empty() && rng.UniformInt(0, 2) == 0)) {
      const size_t victim = static_cast<size_t>(rng.UniformInt(0, static_cast<int64_t>(present.size()) - 1));
      const BlockKey key = present[victim];
      const BlockKeyIndex::Place place = places.at(key);
      displaced_erasures += place.displaced ? 1 : 0;
      if (rng.UniformInt(0, 3) == 0) {
        index.Erase(key);
      } else {
        index.EraseAt(place);
      }
      places.erase(key);
      present[victim] = present.back();
      present.pop_back();
      ASSERT_EQ(index.Find(key), nullptr);
    } else {
      const BlockKey key = rng.UniformInt(0, 1) == 0
                               ? colliding[static_cast<size_t>(rng.UniformInt(0, 39))]
                               : rng.NextU64();
      BlockKeyIndex::Place place;
      BlockKeyChain& chain = index.FindOrInsert(key, place);
      if (places.count(key) > 0) {  // present: the same place
        ASSERT_EQ(place.slot, places.at(key).slot);
        ASSERT_EQ(place.displaced, places.at(key).displaced);
        continue;
      }
      chain.head = i;
      places[key] = place;
      present.push_back(key);
    }
    if (i % 499 == 0) {
      for (const auto& [key, place] : places) {
        BlockKeyIndex::Place found;
        ASSERT_TRUE(index.FindPlace(key, found)) << "key " << key << " lost at operation " << i;
        ASSERT_EQ(found.slot, place.slot);
        ASSERT_EQ(found.displaced, place.displaced);
        ASSERT_EQ(index.KeyAt(place.slot), key);
        ASSERT_EQ(&index.ChainAt(place.slot), index.Find(key));
      }
      ASSERT_EQ(index.size(), static_cast<int64_t>(places.size()));
    }
  }
  EXPECT_GT(displaced_erasures, 100);  // the overflow path ran
}

}  // namespace
}  // namespace efimsim
