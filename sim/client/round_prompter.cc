#include "sim/client/round_prompter.h"

namespace efimsim {

TokenRoundPrompter::TokenRoundPrompter(const MultiRoundWorkload& workload,
                                       const PromptFormat& format)
    : workload_(workload), format_(format),
      sessions_(static_cast<size_t>(workload.num_users())) {
  for (int64_t user = 0; user < workload.num_users(); ++user) {
    format_.BeginSession(workload_.InitialPrefix(user), sessions_[static_cast<size_t>(user)]);
  }
}

void TokenRoundPrompter::Build(int64_t user, int64_t round, TokenVector& prompt) {
  format_.Build(workload_.Round(user, round), sessions_[static_cast<size_t>(user)], prompt);
}

int64_t TokenRoundPrompter::rebases() const {
  int64_t total = 0;
  for (const FormatSessionState& s : sessions_) total += s.rebases;
  return total;
}

TextRoundPrompter::TextRoundPrompter(const TextPaperWorkload& workload,
                                     const TextPromptBuilder& builder)
    : workload_(workload), builder_(builder),
      sessions_(static_cast<size_t>(workload.num_users())) {
  for (int64_t user = 0; user < workload.num_users(); ++user) {
    builder_.BeginSession(workload_.InitialPrefixText(user), sessions_[static_cast<size_t>(user)]);
  }
}

void TextRoundPrompter::Build(int64_t user, int64_t round, TokenVector& prompt) {
  builder_.Build(workload_.PrefixText(user, round), workload_.SuffixText(user),
                 sessions_[static_cast<size_t>(user)], prompt);
}

int64_t TextRoundPrompter::rebases() const {
  int64_t total = 0;
  for (const TextPromptState& s : sessions_) total += s.rebases;
  return total;
}

}  // namespace efimsim
