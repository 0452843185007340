#pragma once
// Token ids rebuilt from prompt text, for runs that record the text of each
// prompt but not its token ids (GuideLLM results). What matters to a prefix
// cache is which prompts begin with the same tokens; the text says that:
// GuideLLM's synthetic data puts one `prefix_tokens` long text in front of
// every prompt of a benchmark (a new one for each strategy of a sweep).
//
// Rule (an approximation, stated by validate-serving): each prompt, in
// arrival order, shares its longest leading run of text with the earlier
// prompt that shares the most. That run's length in characters becomes
// tokens at the prompt's own density, floor(shared chars x prompt tokens /
// prompt chars), capped at both prompts' token counts; those tokens get the
// earlier prompt's ids, and every other token gets an id of its own. Token
// ids are therefore synthetic: equal ids mean equal text, nothing more.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/base/tokens.h"

namespace efimsim {

struct PromptText {
  std::optional<std::string> text;  // nullopt: the run did not record it
  int64_t tokens = 0;               // the server's count, >= 1
};

struct SharedPrefixTokenIds {
  // One per prompt, in the given order; empty for a prompt without text.
  std::vector<TokenVector> token_ids;
  int64_t with_text = 0;       // prompts that had text
  int64_t sharing = 0;         // prompts whose leading run matched an earlier one
  int64_t shared_tokens = 0;   // tokens given an earlier prompt's ids, summed
};

// `prompts` in arrival order. Deterministic; O(total text x log n). At most
// `max_held_tokens` ids are made over the run (2^28, 1 GiB, by default; and
// ids stay below 2^31): a prompt past that keeps no ids and counts as
// without text.
SharedPrefixTokenIds RebuildSharedPrefixTokenIds(const std::vector<PromptText>& prompts,
                                                 int64_t max_held_tokens = int64_t{1} << 28);

}  // namespace efimsim
