#pragma once
// Prompt formats: how an infilling context becomes the token sequence a
// server sees (docs/semantics.md §1). S = sentinel token; BOS first when the
// model has one.
//   psm  (FIM):  BOS <PRE> prefix <SUF> suffix <MID>
//   spm:         BOS <SUF> suffix <PRE> prefix <MID>
//   efim:        BOS <PRE> prefix0 <SUF> suffix <MID> increment
// EFIM keeps a session's prefix0 while the user only appends to the prefix;
// an edit that breaks "prefix starts with prefix0" re-bases: prefix0 becomes
// the current prefix (one cold prefill), counted in FormatSessionState.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/formats/model_spec.h"
#include "traces/multi_round_workload.h"

namespace efimsim {

// Per-session state a format may keep between rounds.
struct FormatSessionState {
  // EFIM: the prefix the cached prompt was built on, its first
  // prefix0_tokens tokens. Its tokens are kept in `prefix0` unless the
  // caller said the next round extends this one (next_extends): then they
  // are that round's first prefix0_tokens prefix tokens, and a session
  // between rounds holds no copy (2,000 users' copies were ~2 MB of fresh
  // memory in a paper run).
  TokenVector prefix0;
  int64_t prefix0_tokens = 0;
  int64_t rebases = 0;   // EFIM: fresh prompts forced by a non-append edit
  // Set by the caller before each Build, from the workload
  // (MultiRoundWorkload::ExtendsPreviousRound): this round's context
  // extends the previous round's, and the next round's extends this one.
  // Both false (the default): nothing is assumed, EFIM compares.
  bool extends_previous = false;
  bool next_extends = false;
  // Set by every Build: the leading tokens of the prompt just built that
  // equal the session's previous prompt, provided this round's context
  // extends the previous one (MultiRoundWorkload::ExtendsPreviousRound);
  // 0 for a session's first prompt.
  int64_t shared_if_extended = 0;
  // The previous prompt's length and its context's prefix length (0: none
  // yet), kept by Build for the next round's shared_if_extended.
  int64_t previous_prompt_tokens = 0;
  int64_t previous_prefix_tokens = 0;
};

// Where a prompt's suffix ids go, and how many leading tokens the prompt
// shares with the session's previous one.
struct SuffixPlace {
  int64_t begin = 0;  // prompt positions [begin, end) hold the suffix
  int64_t end = 0;
  int64_t shared_with_previous = 0;
};

class PromptFormat {
 public:
  virtual ~PromptFormat() = default;
  virtual std::string name() const = 0;
  // Called once per session before its first Build.
  virtual void BeginSession(TokenSpan initial_prefix, FormatSessionState& state) const;
  // Writes the prompt for `context` into `prompt` (cleared first).
  virtual void Build(const InfillContext& context, FormatSessionState& state,
                     TokenVector& prompt) const = 0;
  // For the next Build of a session whose context extends the previous
  // round's (state.extends_previous), with a suffix of `suffix_tokens`:
  // where its suffix will go and what it will share, where the format
  // knows before building; nullopt (the default) where it does not. A
  // format that gives a place builds from a context whose suffix ids are
  // unspecified (InfillContext::suffix_ids_unspecified) without reading
  // them, and the prompt's [begin, end) then holds unspecified ids.
  virtual std::optional<SuffixPlace> SuffixPlaceWhenExtending(const FormatSessionState& /*state*/,
                                                              int64_t /*suffix_tokens*/) const {
    return std::nullopt;
  }
};

// Throws UsageError for an unknown name.
std::unique_ptr<PromptFormat> MakePromptFormat(const std::string& name,
                                               const SpecialTokens& tokens);

}  // namespace efimsim
