#pragma once
// inference-perf's `shared_prefix` data (inference_perf/datagen/synthetic/
// shared_prefix_datagen.py) with synthetic token ids: num_groups system
// prompts of system_prompt_len tokens, each followed by
// num_prompts_per_group questions of question_len tokens; prompt (g, p) is
// system prompt g then question (g, p), so the prompts of a group share
// exactly their system prompt's tokens. The list of prompts (and each one's
// output_len) is then shuffled with the seeded generator, as inference-perf
// does; request k of a load stage uses prompt k mod size(). In multi-turn
// chat (enable_multi_turn_chat), prompt i is also user i's question in
// every turn (StagedLoadClient grows the conversation).
//
// Lengths are fixed integers (inference-perf's int form of each field);
// ids are drawn from [text_first, text_last], so no decode/re-encode drift.

#include <cstdint>
#include <vector>

#include "sim/base/tokens.h"

namespace efimsim {

struct SharedPrefixConfig {
  int64_t num_groups = 10;             // distinct system prompts
  int64_t num_prompts_per_group = 10;  // users (questions) per system prompt
  int64_t system_prompt_len = 100;     // tokens
  int64_t question_len = 50;           // tokens
  int64_t output_len = 50;             // tokens each request generates (ignore_eos)
  bool enable_multi_turn_chat = false;
};

class SharedPrefixData {
 public:
  // Throws UsageError naming the option for a count below 1 or a prompt of
  // no token.
  SharedPrefixData(const SharedPrefixConfig& config, TokenId text_first, TokenId text_last,
                   uint64_t seed);

  int64_t size() const { return static_cast<int64_t>(prompts_.size()); }
  // Prompt i (after the shuffle): its group's system prompt, then its question.
  const TokenVector& prompt(int64_t i) const { return prompts_[static_cast<size_t>(i)]; }
  int64_t group(int64_t i) const { return groups_[static_cast<size_t>(i)]; }
  int64_t output_len(int64_t i) const { return output_lens_[static_cast<size_t>(i)]; }
  const SharedPrefixConfig& config() const { return config_; }

 private:
  SharedPrefixConfig config_;
  std::vector<TokenVector> prompts_;
  std::vector<int64_t> groups_;
  std::vector<int64_t> output_lens_;
};

}  // namespace efimsim
