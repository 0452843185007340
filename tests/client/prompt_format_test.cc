#include "sim/client/prompt_format.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "sim/base/check.h"
#include "sim/base/errors.h"
#include "sim/client/policy.h"

namespace efimsim {
namespace {

SpecialTokens Sentinels() {
  SpecialTokens t;
  t.bos = 1;
  t.fim_prefix = 2;
  t.fim_suffix = 3;
  t.fim_middle = 4;
  t.text_first = 10;
  t.text_last = 99;
  return t;
}

// A context over two token lists; the lists (often temporaries) live until
// the end of the caller's full expression, which covers the Build call.
InfillContext Ctx(const TokenVector& prefix, const TokenVector& suffix) { return {prefix, suffix}; }

TokenVector Build(const std::string& format, const InfillContext& context,
                  FormatSessionState& state) {
  TokenVector prompt;
  MakePromptFormat(format, Sentinels())->Build(context, state, prompt);
  return prompt;
}

TEST(PromptFormat, PsmIsBosPrePrefixSufSuffixMid) {
  FormatSessionState state;
  EXPECT_EQ(Build("psm", Ctx({10, 11}, {20, 21}), state), (TokenVector{1, 2, 10, 11, 3, 20, 21, 4}));
}

TEST(PromptFormat, SpmIsBosSufSuffixPrePrefixMid) {
  FormatSessionState state;
  EXPECT_EQ(Build("spm", Ctx({10, 11}, {20, 21}), state), (TokenVector{1, 3, 20, 21, 2, 10, 11, 4}));
}

TEST(PromptFormat, EfimPutsTextTypedSincePrefix0AfterMid) {
  auto efim = MakePromptFormat("efim", Sentinels());
  FormatSessionState state;
  efim->BeginSession(TokenVector{10, 11}, state);
  TokenVector prompt;
  efim->Build(Ctx({10, 11, 12, 13}, {20, 21}), state, prompt);
  EXPECT_EQ(prompt, (TokenVector{1, 2, 10, 11, 3, 20, 21, 4, 12, 13}));
  EXPECT_EQ(state.rebases, 0);
}

TEST(PromptFormat, EfimPromptOfTheNextRoundExtendsThePreviousOne) {
  auto efim = MakePromptFormat("efim", Sentinels());
  FormatSessionState state;
  efim->BeginSession(TokenVector{10}, state);
  TokenVector first, second;
  efim->Build(Ctx({10, 12}, {20}), state, first);
  efim->Build(Ctx({10, 12, 13, 14}, {20}), state, second);
  ASSERT_LT(first.size(), second.size());
  EXPECT_TRUE(std::equal(first.begin(), first.end(), second.begin()));
}

TEST(PromptFormat, EfimRebasesWhenAnEditIsNotAnAppend) {
  auto efim = MakePromptFormat("efim", Sentinels());
  FormatSessionState state;
  efim->BeginSession(TokenVector{10, 11}, state);
  TokenVector prompt;
  efim->Build(Ctx({10, 55, 12}, {20}), state, prompt);  // token 11 was edited
  EXPECT_EQ(state.rebases, 1);
  EXPECT_EQ(prompt, (TokenVector{1, 2, 10, 55, 12, 3, 20, 4}));  // empty increment
  efim->Build(Ctx({10, 55, 12, 13}, {20}), state, prompt);
  EXPECT_EQ(state.rebases, 1);
  EXPECT_EQ(prompt.back(), 13);
}

// shared_if_extended: after each Build, how many leading tokens of the
// prompt equal the previous prompt's when the context extended the
// previous one (the prefix grew by appending, the suffix stayed). Checked
// against the prompts themselves, for every format, with and without BOS;
// one token past the count differs (the count is the longest such run
// here, as the contexts are chosen so that it is).
TEST(PromptFormat, SharedIfExtendedIsTheLeadingRunTheNextPromptRepeats) {
  for (const bool with_bos : {true, false}) {
    SpecialTokens tokens = Sentinels();
    if (!with_bos) tokens.bos = -1;
    for (const std::string name : {"psm", "spm", "efim"}) {
      SCOPED_TRACE(name + (with_bos ? " with BOS" : " without BOS"));
      auto format = MakePromptFormat(name, tokens);
      FormatSessionState state;
      format->BeginSession(TokenVector{10, 11}, state);
      const TokenVector suffix{20, 21, 22};
      TokenVector previous;
      TokenVector prefix{10, 11};
      for (int round = 0; round < 4; ++round) {
        prefix.push_back(static_cast<TokenId>(30 + round));
        prefix.push_back(static_cast<TokenId>(40 + round));
        TokenVector prompt;
        format->Build(Ctx(prefix, suffix), state, prompt);
        if (round == 0) {
          EXPECT_EQ(state.shared_if_extended, 0);
        } else {
          const auto shared = static_cast<size_t>(state.shared_if_extended);
          ASSERT_GT(shared, 0u);
          ASSERT_LE(shared, previous.size());
          EXPECT_TRUE(std::equal(previous.begin(), previous.begin() + static_cast<int64_t>(shared),
                                 prompt.begin()));
          if (shared < previous.size()) {
            EXPECT_NE(previous[shared], prompt[shared]);
          }
          if (name == "efim") {
            EXPECT_EQ(shared, previous.size());  // the whole previous prompt
          }
        }
        previous = prompt;
      }
    }
  }
}

TEST(PromptFormat, EfimClaimsNothingSharedAfterARebase) {
  auto efim = MakePromptFormat("efim", Sentinels());
  FormatSessionState state;
  efim->BeginSession(TokenVector{10, 11}, state);
  TokenVector prompt;
  efim->Build(Ctx({10, 11, 12}, {20}), state, prompt);
  efim->Build(Ctx({10, 55, 12, 13}, {20}), state, prompt);  // token 11 was edited
  EXPECT_EQ(state.rebases, 1);
  EXPECT_EQ(state.shared_if_extended, 0);
}

// A caller that knows each round extends the previous one
// (FormatSessionState::extends_previous and next_extends, from the
// workload) gets the prompts, shared counts and re-bases of one that does
// not say so, and the session keeps no copy of prefix0 while the next
// round extends this one; with and without a re-base at the first round.
TEST(PromptFormat, EfimToldRoundsExtendBuildsTheSamePromptsWithoutKeepingPrefix0) {
  auto efim = MakePromptFormat("efim", Sentinels());
  const std::vector<TokenVector> prefixes = {{10, 11, 12}, {10, 11, 12, 13}, {10, 11, 12, 13, 14, 15}};
  for (const TokenVector& initial : {TokenVector{10, 11}, TokenVector{10, 55}}) {
    FormatSessionState told, plain;
    efim->BeginSession(initial, told);
    efim->BeginSession(initial, plain);
    for (size_t round = 0; round < prefixes.size(); ++round) {
      told.extends_previous = round > 0;
      told.next_extends = round + 1 < prefixes.size();
      TokenVector told_prompt, plain_prompt;
      efim->Build(Ctx(prefixes[round], {20, 21}), told, told_prompt);
      efim->Build(Ctx(prefixes[round], {20, 21}), plain, plain_prompt);
      EXPECT_EQ(told_prompt, plain_prompt) << "round " << round;
      EXPECT_EQ(told.shared_if_extended, plain.shared_if_extended) << "round " << round;
      EXPECT_EQ(told.prefix0.empty(), told.next_extends) << "round " << round;
    }
    EXPECT_EQ(told.rebases, plain.rebases);
    EXPECT_EQ(told.rebases, initial[1] == 55 ? 1 : 0);
    EXPECT_EQ(told.prefix0, plain.prefix0);  // kept again for a round not known to extend
  }
}

// An extending round whose suffix ids are unspecified (left unmade): the
// same prompt, length and sharing as with the ids, except at the suffix's
// place, which SuffixPlaceWhenExtending names before the build.
TEST(PromptFormat, EfimBuildsAroundAnUnspecifiedSuffixWhereItSaidItWouldGo) {
  auto efim = MakePromptFormat("efim", Sentinels());
  const TokenVector suffix = {20, 21, 22};
  const TokenVector unmade = {77, 77, 77};
  FormatSessionState with_ids, without_ids;
  efim->BeginSession(TokenVector{10, 11}, with_ids);
  efim->BeginSession(TokenVector{10, 11}, without_ids);
  TokenVector first, ignored;
  efim->Build(Ctx({10, 11, 12}, suffix), with_ids, first);
  efim->Build(Ctx({10, 11, 12}, suffix), without_ids, ignored);
  with_ids.extends_previous = without_ids.extends_previous = true;
  const std::optional<SuffixPlace> place = efim->SuffixPlaceWhenExtending(without_ids, 3);
  ASSERT_TRUE(place.has_value());
  TokenVector expected, prompt;
  efim->Build(Ctx({10, 11, 12, 13}, suffix), with_ids, expected);
  const TokenVector prefix = {10, 11, 12, 13};  // outlives the context's view
  InfillContext context = Ctx(prefix, unmade);
  context.suffix_ids_unspecified = true;
  efim->Build(context, without_ids, prompt);
  ASSERT_EQ(prompt.size(), expected.size());
  EXPECT_EQ(place->begin, 5);  // BOS <PRE> 10 11 <SUF>
  EXPECT_EQ(place->end, 8);
  EXPECT_TRUE(std::equal(expected.begin(), expected.begin() + place->begin, prompt.begin()));
  EXPECT_TRUE(std::equal(expected.begin() + place->end, expected.end(), prompt.begin() + place->end));
  EXPECT_EQ(without_ids.shared_if_extended, place->shared_with_previous);
  EXPECT_EQ(without_ids.shared_if_extended, with_ids.shared_if_extended);
}

// A Build not told that its round extends, after one told that it would:
// prefix0 was not kept, so there is nothing to compare with.
TEST(PromptFormat, EfimRefusesToCompareWithAPrefix0ItWasToldNotToKeep) {
  auto efim = MakePromptFormat("efim", Sentinels());
  FormatSessionState state;
  efim->BeginSession(TokenVector{10, 11}, state);
  TokenVector prompt;
  state.next_extends = true;
  efim->Build(Ctx({10, 11, 12}, {20}), state, prompt);
  state.next_extends = false;
  EXPECT_THROW(efim->Build(Ctx({10, 11, 12, 13}, {20}), state, prompt), InternalError);
}

TEST(PromptFormat, ModelWithoutBosStartsWithTheFirstSentinel) {
  SpecialTokens t = Sentinels();
  t.bos = -1;
  FormatSessionState state;
  TokenVector prompt;
  MakePromptFormat("psm", t)->Build(Ctx({10}, {20}), state, prompt);
  EXPECT_EQ(prompt.front(), 2);
}

TEST(Policy, BaselineIsPsmWithoutCachingAndEfimUsesTheEfimFormat) {
  EXPECT_FALSE(GetPolicy("baseline").prefix_caching);
  EXPECT_EQ(GetPolicy("baseline").prompt_format, "psm");
  EXPECT_TRUE(GetPolicy("fim").prefix_caching);
  EXPECT_EQ(GetPolicy("efim").prompt_format, "efim");
  EXPECT_EQ(GetPolicy("spm").prompt_format, "spm");
  EXPECT_THROW(GetPolicy("lru"), UsageError);
}

}  // namespace
}  // namespace efimsim
