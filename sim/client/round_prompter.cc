#include "sim/client/round_prompter.h"

#include "sim/base/check.h"

#include <optional>

namespace efimsim {

TokenRoundPrompter::TokenRoundPrompter(const MultiRoundWorkload& workload,
                                       const PromptFormat& format)
    : workload_(workload), format_(format) {}

int64_t TokenRoundPrompter::Build(int64_t user, int64_t round, TokenVector& prompt) {
  return BuildPrompt(nullptr, user, round, nullptr, prompt);
}

void TokenRoundPrompter::BuildFor(const RequestSink& sink, int64_t user, int64_t round,
                                  ClientRequest& request) {
  request.prompt_tokens_shared_with_previous_round =
      BuildPrompt(&sink, user, round, &request, request.prompt);
}

int64_t TokenRoundPrompter::BuildPrompt(const RequestSink* sink, int64_t user, int64_t round,
                                        ClientRequest* request, TokenVector& prompt) {
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
  // An extending round's suffix repeats the previous prompt's; where the
  // sink will not read it, it is not made (PaperWorkload makes a ~1,500-
  // token suffix per request otherwise).
  InfillContext context;
  std::optional<SuffixPlace> place;
  if (sink != nullptr && extends) {
    context = workload_.RoundSuffixIfCheap(user, round);
    if (context.suffix_ids_unspecified) {
      place = format_.SuffixPlaceWhenExtending(it->second, static_cast<int64_t>(context.suffix.size()));
      if (!place || place->end > sink->UnreadPromptTokens(user, round, place->shared_with_previous)) {
        context = workload_.Round(user, round);  // needed after all: made now
      }
    }
  } else {
    context = workload_.Round(user, round);
  }
  format_.Build(context, it->second, prompt);
  if (context.suffix_ids_unspecified) {
    EFIMSIM_CHECK(it->second.shared_if_extended == place->shared_with_previous &&
                      place->end <= static_cast<int64_t>(prompt.size()),
                  "the format built the prompt otherwise than it said");
    request->prompt_unmade_begin = place->begin;
    request->prompt_unmade_end = place->end;
  }
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
