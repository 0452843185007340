#include "sim/client/round_prompter.h"

#include "sim/base/check.h"

namespace efimsim {

TokenRoundPrompter::TokenRoundPrompter(const MultiRoundWorkload& workload,
                                       const PromptFormat& format)
    : workload_(workload), format_(format) {}

int64_t TokenRoundPrompter::Build(int64_t user, int64_t round, TokenVector& prompt) {
  // BeginSession depends only on the user's initial prefix, so beginning
  // at round 0 gives the state the eager version began with.
  auto it = sessions_.find(user);
  if (it == sessions_.end()) {
    EFIMSIM_CHECK(round == 0, "a user's rounds are built in order from 0");
    it = sessions_.emplace(user, FormatSessionState{}).first;
    format_.BeginSession(workload_.InitialPrefix(user), it->second);
  }
  // What the workload says of this round and the next decides what the
  // format may assume, and keep (FormatSessionState::extends_previous).
  const bool last = round + 1 >= workload_.num_rounds(user);
  const bool extends = round > 0 && workload_.ExtendsPreviousRound(user, round);
  it->second.extends_previous = extends;
  it->second.next_extends = !last && workload_.ExtendsPreviousRound(user, round + 1);
  format_.Build(workload_.Round(user, round), it->second, prompt);
  // The format's count holds only where the workload says the context
  // extends the previous round's.
  const int64_t shared = extends ? it->second.shared_if_extended : 0;
  if (last) {
    finished_rebases_ += it->second.rebases;
    sessions_.erase(it);
  }
  return shared;
}

int64_t TokenRoundPrompter::rebases() const {
  int64_t total = finished_rebases_;
  for (const auto& [user, s] : sessions_) total += s.rebases;
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

int64_t TextRoundPrompter::Build(int64_t user, int64_t round, TokenVector& prompt) {
  builder_.Build(workload_.PrefixText(user, round), workload_.SuffixText(user),
                 sessions_[static_cast<size_t>(user)], prompt);
  return 0;  // tokenized text: BPE boundaries may move, nothing is claimed
}

void TextRoundPrompter::BuildReference(int64_t user, int64_t round, int64_t max_tokens,
                                       TokenVector& reference) {
  builder_.EncodeReference(workload_.ContinuationText(user, round), max_tokens, reference);
}

int64_t TextRoundPrompter::rebases() const {
  int64_t total = 0;
  for (const TextPromptState& s : sessions_) total += s.rebases;
  return total;
}

}  // namespace efimsim
