#pragma once
// A closed-loop multi-round workload: users, each with a fixed number of
// rounds; round r of user u is an infilling context (prefix, suffix) in
// tokens. Prompt formats turn a context into a prompt (sim/client).
//
// Contract: Round(u, r) is a pure function of (u, r) and the workload's
// construction arguments, so replaying any policy sees identical contexts.

#include <cstdint>
#include <string>

#include "sim/base/tokens.h"

namespace efimsim {

// Views into the workload's own storage: valid until the workload is next
// asked about another user (PaperWorkload makes a user's document on demand
// and holds one), so a caller builds its prompt before moving on; building
// a prompt copies each token once, into the prompt.
struct InfillContext {
  TokenSpan prefix;  // text before the cursor
  TokenSpan suffix;  // text after the cursor
  // True when `suffix` has the suffix's length but unspecified ids (left
  // unmade, RoundSuffixIfCheap): a format that supports it then gives the
  // suffix's positions unspecified ids without reading the span; any other
  // format is never given such a context (sim/client/round_prompter.h).
  // Round always makes the suffix (false).
  bool suffix_ids_unspecified = false;
};

class MultiRoundWorkload {
 public:
  virtual ~MultiRoundWorkload() = default;
  virtual int64_t num_users() const = 0;
  virtual int64_t num_rounds(int64_t user) const = 0;
  // The prefix a user's session starts from, before any typing; EFIM keeps
  // it as `prefix0` for as long as the user only appends to it.
  virtual TokenVector InitialPrefix(int64_t user) const = 0;
  virtual InfillContext Round(int64_t user, int64_t round) const = 0;
  // Round(user, round), except that the workload may leave the suffix's
  // ids unmade, and then says so (InfillContext::suffix_ids_unspecified; a
  // caller that needs the ids after all calls Round, which makes them).
  // For callers that know the ids will not be read
  // (sim/client/round_prompter.h). The default makes everything.
  virtual InfillContext RoundSuffixIfCheap(int64_t user, int64_t round) const { return Round(user, round); }
  // True if round `round` (> 0) of `user` extends the round before it: its
  // prefix starts with that round's prefix and its suffix is the same, so
  // its prompt repeats the leading part of the previous prompt (how much is
  // the format's: FormatSessionState::shared_if_extended). False when not
  // known, the default.
  virtual bool ExtendsPreviousRound(int64_t /*user*/, int64_t /*round*/) const { return false; }
  // Name and one line on how the documents were made, for outputs
  // (e.g. "documents: synthetic tokens").
  virtual std::string Name() const = 0;
  virtual std::string Description() const = 0;
};

}  // namespace efimsim
