#pragma once
// The n-gram ("prompt lookup") draft proposer of vLLM v1: the draft for a
// sequence is the run of tokens that followed an earlier occurrence of the
// sequence's own last n tokens.
//
// Reproduces `_find_longest_matched_ngram_and_propose_tokens` in vLLM's
// vllm/v1/spec_decode/ngram_proposer.py (the single-pass, reversed-KMP
// version, read at commit 016e8ede870e; unchanged in every later version
// seen; it replaced the older loop over n = max..min, which differs on
// overlapping occurrences), and the prompt_lookup_* defaults and checks of
// SpeculativeConfig (vllm/config/speculative.py; vllm/config.py before).
// See sim/engine/spec_decode/README.md.
//
// The rule, for a history h[0, n) (prompt + tokens generated so far, without
// the drafts of the step being verified):
//   1. n < prompt_lookup_min, or budget = min(k, max_model_len - n) <= 0:
//      no draft.
//   2. For each start s in [0, n-1), let m(s) be the largest m with
//      m <= prompt_lookup_max, s + m <= n - 1 and h[s, s+m) == h[n-m, n):
//      the longest suffix of h (capped at prompt_lookup_max) that also occurs
//      at s and ends before the last token. Occurrences may overlap the
//      suffix itself (h = 1 1 1 1 matches at s = 0 with m = 3 when max >= 3).
//   3. M = max over s of m(s). If M < prompt_lookup_min: no draft.
//   4. Otherwise s* = the smallest s with m(s) = M (the EARLIEST occurrence
//      of the longest match), and the draft is h[s*+M, s*+M+min(budget,
//      n - s* - M)): up to k tokens, fewer when the occurrence is near the
//      end (at least one, since s* + M <= n - 1).
//
// Cost: O(n) time per call (amortized KMP over the reversed history),
// O(prompt_lookup_max) extra memory. The history is scanned in full on every
// call, as vLLM does.

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "sim/base/tokens.h"

namespace efimsim {

// vLLM's SpeculativeConfig fields for method "ngram", after defaulting.
struct NgramProposerConfig {
  // Shortest and longest n-gram (in tokens) matched against the history.
  // vLLM's default when neither is given is 5 and 5
  // (ResolveNgramProposerConfig applies the defaulting rules).
  int32_t prompt_lookup_min = 5;
  int32_t prompt_lookup_max = 5;
  // k: the most draft tokens proposed per step. vLLM has no default for
  // ngram (it must be given); 3 here is only a placeholder.
  int32_t num_speculative_tokens = 3;
  // The model's context length in tokens: drafts never take the sequence
  // past it (vLLM's model_config.max_model_len). The default means no limit.
  int64_t max_model_len = std::numeric_limits<int64_t>::max();
};

// The user-facing form: what a user may leave out.
struct NgramProposerOptions {
  std::optional<int32_t> prompt_lookup_min;
  std::optional<int32_t> prompt_lookup_max;
  std::optional<int32_t> num_speculative_tokens;
  int64_t max_model_len = std::numeric_limits<int64_t>::max();
};

// Applies vLLM's defaulting: neither bound given -> both 5; only one given
// -> the other takes its value (so "min only" means min == max, not
// max = 5). Then validates (ValidateNgramProposerConfig). Returns "" and sets
// `config` on success, else a one-line message (vLLM's wording) and leaves
// `config` untouched.
std::string ResolveNgramProposerConfig(const NgramProposerOptions& options,
                                       NgramProposerConfig& config);

// "" when `config` is one vLLM accepts, else a one-line message. The checks:
// prompt_lookup_min >= 1, prompt_lookup_max >= 1, min <= max,
// num_speculative_tokens >= 1; and max_model_len >= 1 (implied in vLLM).
std::string ValidateNgramProposerConfig(const NgramProposerConfig& config);

// The draft for `history` under the rule above; empty when there is none.
// Precondition: ValidateNgramProposerConfig(config) is "".
TokenVector ProposeNgramDraft(TokenSpan history, const NgramProposerConfig& config);

}  // namespace efimsim
