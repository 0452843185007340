// Token ids rebuilt from prompt text (traces/shared_prefix_token_ids.h):
// equal leading text gets equal ids, at the prompt's tokens per character.
#include <algorithm>

#include <gtest/gtest.h>

#include "traces/shared_prefix_token_ids.h"

namespace efimsim {
namespace {

int64_t CommonLeadingIds(const TokenVector& a, const TokenVector& b) {
  int64_t n = 0;
  while (n < static_cast<int64_t>(std::min(a.size(), b.size())) && a[n] == b[n]) ++n;
  return n;
}

TEST(SharedPrefixTokenIds, LeadingTextSharedBecomesLeadingIdsShared) {
  // 10 characters at 10 tokens a character; the second shares 6 of its 20
  // characters (600 of its 2000 tokens), the third nothing.
  const std::vector<PromptText> prompts = {
      {std::string("abcdefghij"), 100},
      {std::string("abcdefXYZWVUTSRQPONM"), 2000},
      {std::string("zzzz"), 40},
  };
  const SharedPrefixTokenIds r = RebuildSharedPrefixTokenIds(prompts);
  ASSERT_EQ(r.token_ids.size(), 3u);
  EXPECT_EQ(r.token_ids[0].size(), 100u);
  EXPECT_EQ(r.token_ids[1].size(), 2000u);
  EXPECT_EQ(r.token_ids[2].size(), 40u);
  // The second's density makes its 6 shared characters 600 tokens, capped
  // at the earlier prompt's 100.
  EXPECT_EQ(CommonLeadingIds(r.token_ids[0], r.token_ids[1]), 100);
  EXPECT_EQ(CommonLeadingIds(r.token_ids[0], r.token_ids[2]), 0);
  EXPECT_EQ(r.with_text, 3);
  EXPECT_EQ(r.sharing, 1);
  EXPECT_EQ(r.shared_tokens, 100);
}

TEST(SharedPrefixTokenIds, TheEarlierPromptSharingMostIsChosen) {
  const std::vector<PromptText> prompts = {
      {std::string("aaaa"), 4},
      {std::string("abcd"), 4},
      {std::string("abcz"), 4},   // 3 with "abcd", 1 with "aaaa"
      {std::string("abcz"), 4},   // all of an identical earlier prompt
  };
  const SharedPrefixTokenIds r = RebuildSharedPrefixTokenIds(prompts);
  EXPECT_EQ(CommonLeadingIds(r.token_ids[0], r.token_ids[1]), 1);
  EXPECT_EQ(CommonLeadingIds(r.token_ids[1], r.token_ids[2]), 3);
  EXPECT_EQ(r.token_ids[2], r.token_ids[3]);
  EXPECT_EQ(r.sharing, 3);
  // Unshared tokens never repeat an id used before.
  EXPECT_NE(r.token_ids[2][3], r.token_ids[1][3]);
}

TEST(SharedPrefixTokenIds, PromptsWithoutTextKeepNoIdsAndShareNothing) {
  const std::vector<PromptText> prompts = {
      {std::nullopt, 50},
      {std::string("same"), 8},
      {std::nullopt, 8},
      {std::string("other"), 10},
  };
  const SharedPrefixTokenIds r = RebuildSharedPrefixTokenIds(prompts);
  EXPECT_TRUE(r.token_ids[0].empty());
  EXPECT_TRUE(r.token_ids[2].empty());
  EXPECT_EQ(r.token_ids[1].size(), 8u);
  EXPECT_EQ(CommonLeadingIds(r.token_ids[1], r.token_ids[3]), 0);
  EXPECT_EQ(r.with_text, 2);
  EXPECT_EQ(r.sharing, 0);
}

TEST(SharedPrefixTokenIds, PromptsPastTheHeldBoundKeepNoIds) {
  const std::vector<PromptText> prompts = {
      {std::string("aaaa"), 6}, {std::string("aabb"), 4}, {std::string("aacc"), 4}};
  const SharedPrefixTokenIds r = RebuildSharedPrefixTokenIds(prompts, /*max_held_tokens=*/10);
  EXPECT_EQ(r.token_ids[0].size(), 6u);
  EXPECT_EQ(r.token_ids[1].size(), 4u);
  EXPECT_TRUE(r.token_ids[2].empty());  // 6 + 4 + 4 > 10
  EXPECT_EQ(r.with_text, 2);
}

TEST(SharedPrefixTokenIds, SameInputSameIds) {
  const std::vector<PromptText> prompts = {{std::string("x y z"), 3}, {std::string("x y w"), 3}};
  EXPECT_EQ(RebuildSharedPrefixTokenIds(prompts).token_ids, RebuildSharedPrefixTokenIds(prompts).token_ids);
}

}  // namespace
}  // namespace efimsim
