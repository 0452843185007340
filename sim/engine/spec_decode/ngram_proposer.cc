#include "sim/engine/spec_decode/ngram_proposer.h"

#include <algorithm>
#include <cstddef>
#include <vector>

namespace efimsim {

std::string ResolveNgramProposerConfig(const NgramProposerOptions& options,
                                       NgramProposerConfig& config) {
  // SpeculativeConfig.__post_init__, method "ngram": both unset -> 5 and 5
  // (vLLM's "arbitrarily chosen" defaults); one unset -> copies the other.
  NgramProposerConfig resolved;
  if (!options.prompt_lookup_min && !options.prompt_lookup_max) {
    resolved.prompt_lookup_min = 5;
    resolved.prompt_lookup_max = 5;
  } else if (!options.prompt_lookup_min) {
    resolved.prompt_lookup_min = *options.prompt_lookup_max;
    resolved.prompt_lookup_max = *options.prompt_lookup_max;
  } else if (!options.prompt_lookup_max) {
    resolved.prompt_lookup_min = *options.prompt_lookup_min;
    resolved.prompt_lookup_max = *options.prompt_lookup_min;
  } else {
    resolved.prompt_lookup_min = *options.prompt_lookup_min;
    resolved.prompt_lookup_max = *options.prompt_lookup_max;
  }
  resolved.max_model_len = options.max_model_len;
  if (!options.num_speculative_tokens) {
    // Checked after the lookup bounds in vLLM too (_verify_args runs after
    // __post_init__), so a bad bound is reported first.
    resolved.num_speculative_tokens = 1;
    const std::string bounds_error = ValidateNgramProposerConfig(resolved);
    if (!bounds_error.empty()) return bounds_error;
    return "num_speculative_tokens must be provided with speculative model unless the draft "
           "model config contains an n_predict parameter.";
  }
  resolved.num_speculative_tokens = *options.num_speculative_tokens;
  std::string error = ValidateNgramProposerConfig(resolved);
  if (error.empty()) config = resolved;
  return error;
}

std::string ValidateNgramProposerConfig(const NgramProposerConfig& config) {
  if (config.prompt_lookup_min < 1) {
    return "prompt_lookup_min=" + std::to_string(config.prompt_lookup_min) + " must be > 0";
  }
  if (config.prompt_lookup_max < 1) {
    return "prompt_lookup_max=" + std::to_string(config.prompt_lookup_max) + " must be > 0";
  }
  if (config.prompt_lookup_min > config.prompt_lookup_max) {
    return "prompt_lookup_min=" + std::to_string(config.prompt_lookup_min) +
           " must be <= prompt_lookup_max=" + std::to_string(config.prompt_lookup_max);
  }
  if (config.num_speculative_tokens <= 0) {
    return "Expected num_speculative_tokens to be greater than zero (" +
           std::to_string(config.num_speculative_tokens) + ").";
  }
  if (config.max_model_len < 1) {
    return "max_model_len=" + std::to_string(config.max_model_len) + " must be > 0";
  }
  return "";
}

TokenVector ProposeNgramDraft(TokenSpan history, const NgramProposerConfig& config) {
  const int64_t n = static_cast<int64_t>(history.size());
  if (n < config.prompt_lookup_min) return {};
  const int64_t budget = std::min<int64_t>(config.num_speculative_tokens, config.max_model_len - n);
  if (budget <= 0) return {};

  // Work on the reversed history r[i] = history[n-1-i]: a suffix of the
  // history read backwards is a prefix of r, so "an earlier occurrence of the
  // last m tokens" is "an occurrence of r[0, m) ending at some i >= m".
  // Scanning r with the KMP automaton of r itself gives, for every i >= 1,
  // matched(i) = the longest m <= max_len with r[0, m) == r[i-m+1, i+1),
  // m <= i (a proper occurrence). In history coordinates that occurrence
  // starts at s = n-1-i and has m(s) = matched(i) as in the header.
  const int64_t max_len = config.prompt_lookup_max;
  const auto reversed = [&history, n](int64_t i) {
    return history[static_cast<size_t>(n - 1 - i)];
  };

  // border[j] = the longest proper border of r[0, j+1), for j < max_len: where
  // the automaton falls back to on a mismatch, or after a full max_len match
  // (which stops matches from growing past max_len). Only indices below
  // min(max_len, n) are ever written or read.
  std::vector<int32_t> border(static_cast<size_t>(std::min(max_len, n)), 0);

  int64_t matched = 0;   // current state: length of the prefix of r matched so far
  int64_t best_len = 0;  // M so far
  int64_t best_end = 0;  // largest i reaching best_len: the earliest s in history order
  for (int64_t i = 1; i < n; ++i) {
    const TokenId token = reversed(i);
    while (matched > 0 && reversed(matched) != token) {
      matched = border[static_cast<size_t>(matched - 1)];
    }
    if (reversed(matched) == token) {
      ++matched;
      // `>=`: a later i (an earlier start in the history) wins a tie, so the
      // earliest occurrence of the longest match is used, as in vLLM.
      if (matched >= best_len) {
        best_len = matched;
        best_end = i;
      }
    }
    if (i < max_len) border[static_cast<size_t>(i)] = static_cast<int32_t>(matched);
    if (matched == max_len) matched = border[static_cast<size_t>(max_len - 1)];
  }

  if (best_len < config.prompt_lookup_min) return {};
  // The occurrence is history[n-1-best_end, n-1-best_end+best_len); the draft
  // starts right after it and runs to at most the end of the history.
  const int64_t start = n - 1 - best_end + best_len;
  const int64_t count = std::min(budget, n - start);
  return TokenVector(history.begin() + start, history.begin() + start + count);
}

}  // namespace efimsim
