// SGLang's RadixCache rules (sim/engine/sglang/radix_cache.h), one test per rule,
// each also checking the tree invariants (free + tree + held slots are the
// pool's, lock counts equal holders).
#include "sim/engine/sglang/radix_cache.h"

#include <gtest/gtest.h>

#include <numeric>

#include "sim/core/random.h"

namespace efimsim {
namespace {

TokenVector Seq(std::initializer_list<TokenId> t) { return TokenVector(t); }

// Allocates slots for `tokens`, inserts them, frees the duplicates: what a
// finished request with no prior prefix does (a partial last page's slots
// stay taken).
int64_t InsertFresh(RadixCache& cache, const TokenVector& tokens) {
  EXPECT_TRUE(cache.Allocate(static_cast<int64_t>(tokens.size())));
  const int64_t present = cache.Insert(tokens);
  cache.Free(present);
  return present;
}

void CheckNoHolders(const RadixCache& cache) { cache.CheckInvariants({}, {}); }

TEST(RadixCache, MatchReturnsTheLongestCachedPrefixAtTokenLevel) {
  RadixCache cache(64, 1, true);
  InsertFresh(cache, Seq({1, 2, 3, 4, 5}));
  const RadixMatch m = cache.Match(Seq({1, 2, 3, 9, 9}), 5);
  EXPECT_EQ(m.length, 3);  // no block rounding: 3 of 5 tokens
  CheckNoHolders(cache);
}

TEST(RadixCache, MatchInsideANodeSplitsItAtTheBoundary) {
  RadixCache cache(64, 1, true);
  InsertFresh(cache, Seq({1, 2, 3, 4, 5}));
  EXPECT_EQ(cache.num_nodes(), 1);
  const RadixMatch m = cache.Match(Seq({1, 2, 7}), 3);
  EXPECT_EQ(m.length, 2);
  EXPECT_EQ(cache.num_nodes(), 2);  // [1,2] -> [3,4,5]
  EXPECT_EQ(m.last->key, Seq({1, 2}));
  EXPECT_EQ(m.last->children.size(), 1u);
  CheckNoHolders(cache);
}

// Long keys are compared in runs (radix_cache.cc, MatchLength): a first
// difference anywhere, inside or after a run, ends the match there (page
// aligned).
TEST(RadixCache, MatchFindsTheFirstDifferenceInLongKeys) {
  for (const int32_t page : {1, 16}) {
    for (const int64_t differ : {0, 1, 63, 64, 65, 150, 199}) {
      RadixCache cache(1024, page, true);
      TokenVector stored(208);
      std::iota(stored.begin(), stored.end(), 1000);
      InsertFresh(cache, stored);
      TokenVector asked = stored;
      asked[static_cast<size_t>(differ)] = 7;
      EXPECT_EQ(cache.Match(asked, 208).length, differ / page * page) << page << " " << differ;
      EXPECT_EQ(cache.Match(stored, 207).length, 207 / page * page);
      CheckNoHolders(cache);
    }
  }
}

TEST(RadixCache, MatchStopsAtTheLimit) {
  RadixCache cache(64, 1, true);
  InsertFresh(cache, Seq({1, 2, 3, 4}));
  // A fully cached prompt still computes its last token (limit n - 1).
  EXPECT_EQ(cache.Match(Seq({1, 2, 3, 4}), 3).length, 3);
  CheckNoHolders(cache);
}

TEST(RadixCache, InsertReturnsTheLengthAlreadyPresentAndAddsTheRestAsALeaf) {
  RadixCache cache(64, 1, true);
  EXPECT_EQ(InsertFresh(cache, Seq({1, 2, 3})), 0);
  EXPECT_EQ(InsertFresh(cache, Seq({1, 2, 3, 4, 5})), 3);
  EXPECT_EQ(InsertFresh(cache, Seq({1, 2, 9})), 2);  // splits [1,2,3] at 2
  EXPECT_EQ(cache.cached_tokens(), 6);              // 1 2 | 3 4 5 | 9
  EXPECT_EQ(cache.available(), 64 - 6);             // duplicates went back
  CheckNoHolders(cache);
}

TEST(RadixCache, LockedPathIsProtectedAndNotEvicted) {
  RadixCache cache(8, 1, true);
  InsertFresh(cache, Seq({1, 2, 3, 4}));
  const RadixMatch m = cache.Match(Seq({1, 2, 3, 4}), 4);
  cache.IncLock(m.last);
  EXPECT_EQ(cache.protected_size(), 4);
  EXPECT_EQ(cache.evictable(), 0);
  EXPECT_EQ(cache.Evict(4), 0);
  const RadixNode* holder = m.last;
  cache.CheckInvariants(std::span<const RadixNode* const>(&holder, 1), {});
  cache.DecLock(m.last);
  EXPECT_EQ(cache.evictable(), 4);
  EXPECT_EQ(cache.Evict(4), 4);
  CheckNoHolders(cache);
}

TEST(RadixCache, EvictionTakesTheLeastRecentlyUsedLeafFirstThenMovesInward) {
  RadixCache cache(64, 1, true);
  InsertFresh(cache, Seq({1, 2, 3}));     // [1] -> {[2,3], [5,6]} after the next insert
  InsertFresh(cache, Seq({1, 5, 6}));
  cache.Match(Seq({1, 2, 3}), 3);  // [2,3] is now more recent than [5,6]
  EXPECT_EQ(cache.Evict(1), 2);             // the whole LRU leaf [5,6]
  EXPECT_EQ(cache.Match(Seq({1, 5, 6}), 3).length, 1);
  EXPECT_EQ(cache.Match(Seq({1, 2, 3}), 3).length, 3);
  EXPECT_EQ(cache.Evict(3), 3);             // [2,3], then its parent [1]
  EXPECT_EQ(cache.cached_tokens(), 0);
  CheckNoHolders(cache);
}

TEST(RadixCache, AllocateEvictsWhenFreeSlotsRunOutAndFailsBeyondEvictable) {
  RadixCache cache(8, 1, true);
  InsertFresh(cache, Seq({1, 2, 3, 4, 5, 6}));
  EXPECT_TRUE(cache.Allocate(4));  // 2 free + evicts the leaf
  EXPECT_EQ(cache.cached_tokens(), 0);
  EXPECT_FALSE(cache.Allocate(5));  // nothing taken
  EXPECT_EQ(cache.available(), 4);
  cache.CheckInvariants({}, std::vector<int64_t>{4});
  EXPECT_THROW(cache.CheckInvariants({}, std::vector<int64_t>{3}), std::exception);  // a slot leaked
}

TEST(RadixCache, PagesMatchOnlyWholePages) {
  RadixCache cache(64, 4, true);
  EXPECT_EQ(InsertFresh(cache, Seq({1, 2, 3, 4, 5, 6, 7, 8, 9})), 0);
  EXPECT_EQ(cache.cached_tokens(), 8);  // the partial last page is not inserted
  EXPECT_EQ(cache.Match(Seq({1, 2, 3, 4, 5, 6, 0, 0, 0}), 9).length, 4);
  EXPECT_EQ(cache.Match(Seq({1, 2, 3, 4, 5, 6, 7, 8}), 8).length, 8);
  // InsertFresh kept the partial last page's slot: held, not leaked.
  cache.CheckInvariants({}, std::vector<int64_t>{1});
}

TEST(RadixCache, DisabledCacheSharesNothing) {
  RadixCache cache(16, 1, false);
  ASSERT_TRUE(cache.Allocate(3));
  EXPECT_EQ(cache.Insert(Seq({1, 2, 3})), 0);
  EXPECT_EQ(cache.Match(Seq({1, 2, 3}), 3).length, 0);
  cache.Free(3);
  CheckNoHolders(cache);
}

TEST(RadixCache, InvariantCheckerCatchesAWrongLockCount) {
  RadixCache cache(16, 1, true);
  InsertFresh(cache, Seq({1, 2, 3}));
  const RadixMatch m = cache.Match(Seq({1, 2, 3}), 3);
  cache.IncLock(m.last);
  EXPECT_THROW(CheckNoHolders(cache), std::exception);  // a lock nobody holds
  cache.DecLock(m.last);
  CheckNoHolders(cache);
}

TEST(RadixCache, RandomOperationsConserveSlots) {
  RadixCache cache(512, 1, true);
  RandomStream random = RandomStream::Derive(7, 0, "radix-test");
  std::vector<std::pair<RadixNode*, int64_t>> holders;  // locked node, slots held outside the tree
  for (int round = 0; round < 400; ++round) {
    TokenVector tokens;
    const int64_t length = 1 + static_cast<int64_t>(random.NextU64() % 40);
    for (int64_t i = 0; i < length; ++i) tokens.push_back(static_cast<TokenId>(random.NextU64() % 3));
    const RadixMatch m = cache.Match(tokens, length);
    cache.IncLock(m.last);
    if (!cache.Allocate(length - m.length)) {
      cache.DecLock(m.last);
      continue;
    }
    const int64_t present = cache.Insert(tokens);
    cache.Free(present - m.length);
    cache.DecLock(m.last);
    if (round % 3 == 0 && length > 2) {  // a request holding a locked prefix
      const RadixMatch h = cache.Match(tokens, length - 1);
      cache.IncLock(h.last);
      if (cache.Allocate(2)) {
        holders.push_back({h.last, 2});
      } else {
        cache.DecLock(h.last);
      }
    }
    if (holders.size() > 5) {
      cache.DecLock(holders.front().first);
      cache.Free(holders.front().second);
      holders.erase(holders.begin());
    }
    std::vector<const RadixNode*> nodes;
    std::vector<int64_t> own;
    for (const auto& [node, n] : holders) {
      nodes.push_back(node);
      own.push_back(n);
    }
    cache.CheckInvariants(nodes, own);
  }
}

}  // namespace
}  // namespace efimsim
