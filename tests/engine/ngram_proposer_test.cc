// vLLM v1's n-gram proposer (sim/engine/spec_decode/ngram_proposer.h). Each
// expected value is worked out by hand from vLLM's
// _find_longest_matched_ngram_and_propose_tokens
// (vllm/v1/spec_decode/ngram_proposer.py): reverse the history, run KMP's
// failure function over it with matches capped at prompt_lookup_max, keep
// the longest match (ties: the last one in reversed order, i.e. the earliest
// in the history), draft min(k, max_model_len - n, tokens left) tokens after
// it. In history terms: m(s) is the longest suffix (<= max) occurring at
// start s and ending before the last token.
#include "sim/engine/spec_decode/ngram_proposer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace efimsim {
namespace {

NgramProposerConfig Config(int32_t min_n, int32_t max_n, int32_t k) {
  NgramProposerConfig config;
  config.prompt_lookup_min = min_n;
  config.prompt_lookup_max = max_n;
  config.num_speculative_tokens = k;
  return config;
}

TokenVector Propose(const TokenVector& history, const NgramProposerConfig& config) {
  return ProposeNgramDraft(TokenSpan(history), config);
}

// The example in NgramProposer.propose's docstring: [4,2,3] cannot be found
// earlier; [2,3] is found at s=1, and only three tokens follow it, so three
// tokens are returned although k = 4.
TEST(NgramProposer, UpstreamDocstringExample) {
  EXPECT_EQ(Propose({1, 2, 3, 4, 2, 3}, Config(2, 3, 4)), (TokenVector{4, 2, 3}));
}

// The last token 5 never occurs earlier, so every m(s) is 0 < min: no draft.
TEST(NgramProposer, NoMatchGivesNoDraft) {
  EXPECT_TRUE(Propose({1, 2, 3, 4, 5}, Config(1, 3, 3)).empty());
  // Same tokens occur, but never followed the way the suffix needs: the
  // suffix [4,1] (min 2) does not occur before the end.
  EXPECT_TRUE(Propose({1, 4, 2, 4, 1}, Config(2, 2, 3)).empty());
}

// Suffix [1,2,3]. m(0) = 2 ([2,3] at s=0, followed by 10), m(3) = 3
// ([1,2,3] at s=3, followed by 20). The longest (3) wins although the
// 2-gram occurs earlier: draft starts at 3+3 = 6.
TEST(NgramProposer, LongestNgramWinsOverEarlierShorterOne) {
  const TokenVector history = {2, 3, 10, 1, 2, 3, 20, 9, 1, 2, 3};
  EXPECT_EQ(Propose(history, Config(2, 3, 3)), (TokenVector{20, 9, 1}));
}

// With max = 2 the 3-gram cannot be used: the 2-gram [2,3] occurs at s=0 and
// s=4 (m = 2 both), the earliest (s=0) is taken, draft starts at 2.
TEST(NgramProposer, MaxCapsTheMatchLength) {
  const TokenVector history = {2, 3, 10, 1, 2, 3, 20, 9, 1, 2, 3};
  EXPECT_EQ(Propose(history, Config(2, 2, 3)), (TokenVector{10, 1, 2}));
}

// Suffix [1,2,3,4]. With max 4: the only 4-gram occurrence is s=5, draft from
// 9 = [50,1,2]. With max 3 the match is capped at 3 and [2,3,4] occurs at s=1
// and s=6 (m = 3 both): the earliest, s=1, gives the draft from 4 =
// [70,1,2]. A capped match is not "remembered" as longer.
TEST(NgramProposer, CappedMatchPrefersEarliestCappedOccurrence) {
  const TokenVector history = {9, 2, 3, 4, 70, 1, 2, 3, 4, 50, 1, 2, 3, 4};
  EXPECT_EQ(Propose(history, Config(1, 4, 3)), (TokenVector{50, 1, 2}));
  EXPECT_EQ(Propose(history, Config(1, 3, 3)), (TokenVector{70, 1, 2}));
}

// [5,6] occurs at s=0 (followed by 1) and s=3 (followed by 2): equal length,
// vLLM's `prev_lps >= longest_ngram` keeps the last position in reversed
// order = the earliest occurrence. Also k = 1.
TEST(NgramProposer, TieBetweenOccurrencesTakesTheEarliest) {
  EXPECT_EQ(Propose({5, 6, 1, 5, 6, 2, 5, 6}, Config(2, 2, 1)), (TokenVector{1}));
  EXPECT_EQ(Propose({5, 6, 1, 5, 6, 2, 5, 6}, Config(2, 2, 3)), (TokenVector{1, 5, 6}));
}

// Suffix [1,2] occurs at s=0 (m=2); the draft starts at 2 and only 3 tokens
// remain: 3 tokens although k = 5.
TEST(NgramProposer, MatchNearTheEndGivesFewerThanK) {
  EXPECT_EQ(Propose({1, 2, 3, 1, 2}, Config(1, 3, 5)), (TokenVector{3, 1, 2}));
}

// Occurrences may overlap the suffix: in [1,1,1,1] with max 3, s=0 has
// m = 3 (h[0,3) == h[1,4)), the draft starts at 3, one token remains.
// With max 2: m(0) = m(1) = 2, the earliest gives the draft from 2.
TEST(NgramProposer, OverlappingOccurrenceCounts) {
  EXPECT_EQ(Propose({1, 1, 1, 1}, Config(1, 3, 5)), (TokenVector{1}));
  EXPECT_EQ(Propose({1, 1, 1, 1}, Config(1, 2, 5)), (TokenVector{1, 1}));
}

// Suffix [2,3]: m(1) = 2 ([1,2,3] at s=0 does not end the history the same
// way: [1,2,3] != [9,2,3]). With min 3, M = 2 < 3: no draft. With min 2 the
// same match is used: draft from 3.
TEST(NgramProposer, MinRejectsShorterMatches) {
  const TokenVector history = {1, 2, 3, 9, 2, 3};
  EXPECT_TRUE(Propose(history, Config(3, 4, 3)).empty());
  EXPECT_EQ(Propose(history, Config(2, 4, 3)), (TokenVector{9, 2, 3}));
}

// n < min returns nothing before any matching (vLLM's first check); n = 1
// has no earlier position at all.
TEST(NgramProposer, HistoryShorterThanMinGivesNoDraft) {
  EXPECT_TRUE(Propose({1, 1}, Config(3, 3, 3)).empty());
  EXPECT_TRUE(Propose({7}, Config(1, 1, 3)).empty());
  EXPECT_TRUE(Propose({}, Config(1, 1, 3)).empty());
  // n == min is allowed to match: [1,1] with min 2 cannot (the occurrence must
  // end before the last token), [1,1,1] can.
  EXPECT_TRUE(Propose({1, 1}, Config(2, 2, 3)).empty());
  EXPECT_EQ(Propose({1, 1, 1}, Config(2, 2, 3)), (TokenVector{1}));
}

// k = min(k, max_model_len - n) before matching: with n = 5, a limit of 6
// leaves room for one draft token, a limit of 5 for none.
TEST(NgramProposer, MaxModelLenLimitsTheDraft) {
  NgramProposerConfig config = Config(1, 3, 3);
  config.max_model_len = 6;
  EXPECT_EQ(Propose({1, 2, 3, 1, 2}, config), (TokenVector{3}));
  config.max_model_len = 5;
  EXPECT_TRUE(Propose({1, 2, 3, 1, 2}, config).empty());
  config.max_model_len = 4;
  EXPECT_TRUE(Propose({1, 2, 3, 1, 2}, config).empty());
}

// A k larger than what follows the match returns what there is; a small k
// truncates.
TEST(NgramProposer, KTruncatesTheContinuation) {
  const TokenVector history = {4, 5, 6, 7, 8, 9, 4, 5};
  EXPECT_EQ(Propose(history, Config(2, 2, 1)), (TokenVector{6}));
  EXPECT_EQ(Propose(history, Config(2, 2, 4)), (TokenVector{6, 7, 8, 9}));
  EXPECT_EQ(Propose(history, Config(2, 2, 10)), (TokenVector{6, 7, 8, 9, 4, 5}));
}

// Periodic histories exercise KMP's fall-back through the border table.
// h = [1,2,1,2,1,2,7,2,1,2,1,2] (n = 12).
TEST(NgramProposer, PeriodicHistoryUsesBordersCorrectly) {
  const TokenVector history = {1, 2, 1, 2, 1, 2, 7, 2, 1, 2, 1, 2};
  // min = max = 4: suffix [1,2,1,2] occurs at s=0 and s=2 (m = 4); the
  // earliest, s=0, drafts from 4: [1,2,7].
  EXPECT_EQ(Propose(history, Config(4, 4, 3)), (TokenVector{1, 2, 7}));
  // max 5: the suffix [2,1,2,1,2] occurs at s=1 (m = 5 > 4), draft from 6.
  EXPECT_EQ(Propose(history, Config(4, 5, 3)), (TokenVector{7, 2, 1}));
}

// A plain O(n * max) statement of the rule in the header, used as an oracle.
TokenVector ReferenceDraft(const TokenVector& h, const NgramProposerConfig& config) {
  const int64_t n = static_cast<int64_t>(h.size());
  if (n < config.prompt_lookup_min) return {};
  const int64_t budget = std::min<int64_t>(config.num_speculative_tokens, config.max_model_len - n);
  if (budget <= 0) return {};
  int64_t best_len = 0;
  int64_t best_start = -1;
  for (int64_t s = 0; s + 1 < n; ++s) {
    int64_t m_of_s = 0;
    for (int64_t m = 1; m <= config.prompt_lookup_max && s + m <= n - 1; ++m) {
      bool equal = true;
      for (int64_t j = 0; j < m && equal; ++j) equal = h[s + j] == h[n - m + j];
      if (equal) m_of_s = m;
    }
    if (m_of_s > best_len) {
      best_len = m_of_s;
      best_start = s;
    }
  }
  if (best_len < config.prompt_lookup_min) return {};
  const int64_t start = best_start + best_len;
  const int64_t count = std::min(budget, n - start);
  return TokenVector(h.begin() + start, h.begin() + start + count);
}

// Small alphabets make long and overlapping matches common; the fast scan
// must agree with the oracle everywhere. Deterministic (fixed LCG).
TEST(NgramProposer, AgreesWithTheRuleOnManyHistories) {
  uint64_t state = 12345;
  const auto next = [&state](uint64_t bound) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (state >> 33) % bound;
  };
  for (int trial = 0; trial < 20000; ++trial) {
    const int64_t n = static_cast<int64_t>(next(40));
    const uint64_t alphabet = 1 + next(4);
    TokenVector history(static_cast<size_t>(n));
    for (TokenId& token : history) token = static_cast<TokenId>(next(alphabet));
    const int32_t min_n = static_cast<int32_t>(1 + next(4));
    const int32_t max_n = min_n + static_cast<int32_t>(next(6));
    NgramProposerConfig config = Config(min_n, max_n, static_cast<int32_t>(1 + next(6)));
    if (next(4) == 0) config.max_model_len = n + static_cast<int64_t>(next(4));
    ASSERT_EQ(Propose(history, config), ReferenceDraft(history, config)) << "trial " << trial;
  }
}

// A 16k-token history (the simulator's long case) with a long-distance match.
TEST(NgramProposer, LongHistory) {
  TokenVector history;
  for (int32_t i = 0; i < 16000; ++i) history.push_back(i % 9973);
  // The last 3 tokens are 16000-3..16000-1 mod 9973 = 6024, 6025, 6026,
  // first seen at s = 6024; draft from 6027.
  EXPECT_EQ(Propose(history, Config(3, 5, 4)), (TokenVector{6027, 6028, 6029, 6030}));
}

TEST(NgramProposerConfig, DefaultsBothBoundsToFive) {
  NgramProposerOptions options;
  options.num_speculative_tokens = 4;
  NgramProposerConfig config;
  ASSERT_EQ(ResolveNgramProposerConfig(options, config), "");
  EXPECT_EQ(config.prompt_lookup_min, 5);
  EXPECT_EQ(config.prompt_lookup_max, 5);
  EXPECT_EQ(config.num_speculative_tokens, 4);
}

// Only one bound given: the other copies it (vLLM's __post_init__), so
// min = 2 alone means exactly 2-grams, not [2, 5].
TEST(NgramProposerConfig, OneBoundCopiesToTheOther) {
  NgramProposerOptions options;
  options.num_speculative_tokens = 4;
  options.prompt_lookup_min = 2;
  NgramProposerConfig config;
  ASSERT_EQ(ResolveNgramProposerConfig(options, config), "");
  EXPECT_EQ(config.prompt_lookup_min, 2);
  EXPECT_EQ(config.prompt_lookup_max, 2);

  options.prompt_lookup_min.reset();
  options.prompt_lookup_max = 7;
  ASSERT_EQ(ResolveNgramProposerConfig(options, config), "");
  EXPECT_EQ(config.prompt_lookup_min, 7);
  EXPECT_EQ(config.prompt_lookup_max, 7);
}

TEST(NgramProposerConfig, RejectsWhatVllmRejects) {
  EXPECT_EQ(ValidateNgramProposerConfig(Config(1, 1, 1)), "");
  EXPECT_EQ(ValidateNgramProposerConfig(Config(0, 3, 1)), "prompt_lookup_min=0 must be > 0");
  EXPECT_EQ(ValidateNgramProposerConfig(Config(1, 0, 1)), "prompt_lookup_max=0 must be > 0");
  EXPECT_EQ(ValidateNgramProposerConfig(Config(4, 3, 1)),
            "prompt_lookup_min=4 must be <= prompt_lookup_max=3");
  EXPECT_EQ(ValidateNgramProposerConfig(Config(1, 3, 0)),
            "Expected num_speculative_tokens to be greater than zero (0).");
  NgramProposerConfig config = Config(1, 3, 1);
  config.max_model_len = 0;
  EXPECT_EQ(ValidateNgramProposerConfig(config), "max_model_len=0 must be > 0");

  // Missing k is an error (ngram has no default), after the bound checks.
  NgramProposerOptions options;
  NgramProposerConfig untouched = Config(2, 2, 2);
  EXPECT_NE(ResolveNgramProposerConfig(options, untouched)
                .find("num_speculative_tokens must be "
                      "provided"),
            std::string::npos);
  options.prompt_lookup_min = 6;
  options.prompt_lookup_max = 3;
  EXPECT_EQ(ResolveNgramProposerConfig(options, untouched),
            "prompt_lookup_min=6 must be <= prompt_lookup_max=3");
  EXPECT_EQ(untouched.prompt_lookup_min, 2);  // left as it was
}

}  // namespace
}  // namespace efimsim
