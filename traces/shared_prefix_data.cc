#include "traces/shared_prefix_data.h"

#include <string>
#include <utility>

#include "sim/base/errors.h"
#include "sim/core/random.h"

namespace efimsim {
namespace {

void CheckAtLeast(const char* option, int64_t value, int64_t min_value) {
  if (value < min_value) {
    throw UsageError(std::string("--") + option + ": must be at least " +
                     std::to_string(min_value) + ", got " + std::to_string(value));
  }
}

}  // namespace

SharedPrefixData::SharedPrefixData(const SharedPrefixConfig& config, TokenId text_first,
                                   TokenId text_last, uint64_t seed)
    : config_(config) {
  CheckAtLeast("num-groups", config.num_groups, 1);
  CheckAtLeast("num-prompts-per-group", config.num_prompts_per_group, 1);
  CheckAtLeast("system-prompt-len", config.system_prompt_len, 0);
  CheckAtLeast("question-len", config.question_len, 0);
  CheckAtLeast("output-len", config.output_len, 1);
  if (config.system_prompt_len + config.question_len < 1) {
    throw UsageError("--question-len: a prompt needs a token (--system-prompt-len is 0 too)");
  }
  RandomStream random = RandomStream::Derive(seed, 0, "inference-perf.shared-prefix");
  const auto draw = [&](int64_t count, TokenVector& out) {
    for (int64_t j = 0; j < count; ++j) {
      out.push_back(static_cast<TokenId>(random.UniformInt(text_first, text_last)));
    }
  };
  for (int64_t g = 0; g < config.num_groups; ++g) {
    TokenVector system_prompt;
    draw(config.system_prompt_len, system_prompt);
    for (int64_t p = 0; p < config.num_prompts_per_group; ++p) {
      TokenVector prompt = system_prompt;
      draw(config.question_len, prompt);
      prompts_.push_back(std::move(prompt));
      groups_.push_back(g);
      output_lens_.push_back(config.output_len);
    }
  }
  // rng.permutation: the three lists shuffled alike (Fisher-Yates).
  for (size_t i = prompts_.size(); i > 1; --i) {
    const auto j = static_cast<size_t>(random.UniformInt(0, static_cast<int64_t>(i) - 1));
    std::swap(prompts_[i - 1], prompts_[j]);
    std::swap(groups_[i - 1], groups_[j]);
    std::swap(output_lens_[i - 1], output_lens_[j]);
  }
}

}  // namespace efimsim
