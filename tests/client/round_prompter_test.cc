#include "sim/client/round_prompter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "traces/paper_workload.h"

namespace efimsim {
namespace {

SpecialTokens FimTokens() {
  return SpecialTokens{.bos = 100000, .fim_prefix = 100001, .fim_suffix = 100002,
                       .fim_middle = 100003, .text_first = 256, .text_last = 31999};
}

// What Build returns (ClientRequest::prompt_tokens_shared_with_previous_round,
// which lets an engine reuse its previous work): over the paper workload's
// rounds, every format's claim is a run the previous prompt really starts
// with, and round 0 claims nothing.
TEST(TokenRoundPrompter, SharedTokensAreALeadingRunOfThePreviousRoundsPrompt) {
  PaperWorkloadConfig config;
  config.users = 3;
  config.rounds = 5;
  const PaperWorkload workload(config);
  for (const std::string name : {"psm", "spm", "efim"}) {
    SCOPED_TRACE(name);
    const std::unique_ptr<PromptFormat> format = MakePromptFormat(name, FimTokens());
    TokenRoundPrompter prompter(workload, *format);
    for (int64_t user = 0; user < config.users; ++user) {
      TokenVector previous;
      for (int64_t round = 0; round < config.rounds; ++round) {
        TokenVector prompt;
        const int64_t shared = prompter.Build(user, round, prompt);
        if (round == 0) {
          EXPECT_EQ(shared, 0);
        } else {
          ASSERT_GT(shared, 0);
          ASSERT_LE(shared, static_cast<int64_t>(previous.size()));
          EXPECT_TRUE(std::equal(previous.begin(), previous.begin() + shared, prompt.begin()));
        }
        previous = prompt;
      }
    }
  }
}

// A workload that does not say its rounds extend each other gets no claim.
class UnknownRounds : public MultiRoundWorkload {
 public:
  explicit UnknownRounds(const PaperWorkload& paper) : paper_(paper) {}
  int64_t num_users() const override { return paper_.num_users(); }
  int64_t num_rounds(int64_t user) const override { return paper_.num_rounds(user); }
  TokenVector InitialPrefix(int64_t user) const override { return paper_.InitialPrefix(user); }
  InfillContext Round(int64_t user, int64_t round) const override { return paper_.Round(user, round); }
  std::string Name() const override { return "unknown"; }
  std::string Description() const override { return "unknown"; }

 private:
  const PaperWorkload& paper_;
};

TEST(TokenRoundPrompter, ClaimsNothingForAWorkloadThatDoesNotSayItsRoundsExtend) {
  PaperWorkloadConfig config;
  config.users = 1;
  const PaperWorkload paper(config);
  const UnknownRounds workload(paper);
  const std::unique_ptr<PromptFormat> format = MakePromptFormat("efim", FimTokens());
  TokenRoundPrompter prompter(workload, *format);
  TokenVector prompt;
  for (int64_t round = 0; round < config.rounds; ++round) EXPECT_EQ(prompter.Build(0, round, prompt), 0);
}

// A sink that answers UnreadPromptTokens with a fixed count and records
// the questions.
class FixedUnreadSink : public RequestSink {
 public:
  explicit FixedUnreadSink(int64_t unread) : unread_(unread) {}
  void Submit(ClientRequest) override {}
  void Cancel(uint64_t) override {}
  int64_t UnreadPromptTokens(int64_t, int64_t, int64_t shared_tokens) const override {
    asked_shared_.push_back(shared_tokens);
    return unread_;
  }
  mutable std::vector<int64_t> asked_shared_;

 private:
  int64_t unread_;
};

// The same rounds built with every id made (Build) and for sinks that read
// everything or skip the shared part (BuildFor): the prompts agree outside
// the unmade range, which is the EFIM suffix and only where the sink does
// not read it; the shared counts agree.
TEST(TokenRoundPrompter, LeavesTheRepeatedSuffixUnmadeOnlyWhereTheSinkDoesNotReadIt) {
  PaperWorkloadConfig config;
  config.users = 3;
  config.rounds = 4;
  for (const std::string name : {"psm", "spm", "efim"}) {
    for (const int64_t unread : {int64_t{0}, int64_t{1} << 40}) {
      SCOPED_TRACE(name + ", unread " + std::to_string(unread));
      const PaperWorkload made_workload(config);
      const PaperWorkload lazy_workload(config);
      const std::unique_ptr<PromptFormat> format = MakePromptFormat(name, FimTokens());
      TokenRoundPrompter made(made_workload, *format);
      TokenRoundPrompter lazy(lazy_workload, *format);
      FixedUnreadSink sink(unread);
      int64_t unmade_rounds = 0;
      // Users interleaved, as a closed loop sends them: each round loads
      // its user's document afresh.
      for (int64_t round = 0; round < config.rounds; ++round) {
        for (int64_t user = 0; user < config.users; ++user) {
          TokenVector expected;
          const int64_t shared = made.Build(user, round, expected);
          ClientRequest request;
          lazy.BuildFor(sink, user, round, request);
          EXPECT_EQ(request.prompt_tokens_shared_with_previous_round, shared);
          ASSERT_EQ(request.prompt.size(), expected.size());
          if (request.every_prompt_id_made()) {
            EXPECT_EQ(request.prompt, expected);
            continue;
          }
          ++unmade_rounds;
          EXPECT_EQ(name, "efim");
          EXPECT_GT(round, 0);
          EXPECT_GT(unread, 0);
          // BOS <PRE> prefix0 <SUF>, then the suffix: half the document.
          const TokenSpan document = made_workload.document(user);
          const int64_t half = made_workload.layout(user).half;
          EXPECT_EQ(request.prompt_unmade_begin, 3 + made_workload.layout(user).chunk);
          EXPECT_EQ(request.prompt_unmade_end - request.prompt_unmade_begin,
                    static_cast<int64_t>(document.size()) - half);
          EXPECT_LE(request.prompt_unmade_end, shared);
          EXPECT_TRUE(std::equal(expected.begin(), expected.begin() + request.prompt_unmade_begin,
                                 request.prompt.begin()));
          EXPECT_TRUE(std::equal(expected.begin() + request.prompt_unmade_end, expected.end(),
                                 request.prompt.begin() + request.prompt_unmade_end));
        }
      }
      if (name == "efim" && unread > 0) {
        EXPECT_EQ(unmade_rounds, config.users * (config.rounds - 1));
        for (int64_t asked : sink.asked_shared_) EXPECT_GT(asked, 0);
      }
    }
  }
}

// A sink that reads ids up to the suffix's end gets them all made.
TEST(TokenRoundPrompter, MakesTheSuffixWhereTheSinkReadsAnyOfIt) {
  PaperWorkloadConfig config;
  config.users = 2;
  const PaperWorkload workload(config);
  const std::unique_ptr<PromptFormat> format = MakePromptFormat("efim", FimTokens());
  TokenRoundPrompter prompter(workload, *format);
  // BOS <PRE> prefix0 <SUF> and the suffix end at 3 + chunk + (length - half);
  // one token fewer unread than that leaves the suffix's last id read.
  const int64_t suffix_end = 3 + workload.layout(1).chunk +
                             static_cast<int64_t>(workload.document(1).size()) -
                             workload.layout(1).half;
  FixedUnreadSink sink(suffix_end - 1);
  for (int64_t round = 0; round < config.rounds; ++round) {
    ClientRequest other;
    prompter.BuildFor(sink, 0, round, other);  // user 0 in between: user 1 is loaded afresh
    ClientRequest request;
    prompter.BuildFor(sink, 1, round, request);
    EXPECT_TRUE(request.every_prompt_id_made()) << "round " << round;
  }
}

}  // namespace
}  // namespace efimsim
