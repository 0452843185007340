#include "sim/client/round_prompter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>

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

}  // namespace
}  // namespace efimsim
