#include "sim/engine/vllm/speculative_config.h"

#include <cstdio>

namespace efimsim {
namespace {
// The option's key in the engine OptionStore.
const char* const kSpeculativeKey = "vllm_v1.speculative";
}  // namespace

bool DraftsComparedByToken(SpecMethod method) {
  return method == SpecMethod::kNgram || method == SpecMethod::kSuffix;
}

std::string DescribeSpeculativeConfig(const SpeculativeConfig& config) {
  if (!config.enabled()) return "off";
  std::string text = config.method_name + ", k = " + std::to_string(config.num_speculative_tokens);
  char number[32];
  if (config.method == SpecMethod::kNgram) {
    text += ", prompt_lookup " + std::to_string(config.ngram.prompt_lookup_min) + ".." +
            std::to_string(config.ngram.prompt_lookup_max);
  }
  if (config.method == SpecMethod::kSuffix) {
    std::snprintf(number, sizeof number, "%g", static_cast<double>(config.suffix.min_token_prob));
    text += ", tree depth " + std::to_string(config.suffix.max_tree_depth) + ", min_token_prob " +
            number;
  }
  if (DraftsComparedByToken(config.method)) {
    std::snprintf(number, sizeof number, "%g", config.lookup_host_us);
    return text + "; drafts proposed by vLLM's algorithm on the request's tokens and verified "
                  "against the tokens the target generates (a workload's reference output, the "
                  "text typed next, where it has one; else drawn tokens, which drafts almost never "
                  "match); lookup " + number + " us host time per sequence (estimate)";
  }
  std::string rates;
  for (const double rate : config.acceptance_rates) {
    std::snprintf(number, sizeof number, "%g", rate);
    rates += (rates.empty() ? "" : ", ") + std::string(number);
  }
  const std::string source =
      config.acceptance_counters.empty()
          ? std::string("the configured")
          : "vLLM's measured (spec_decode counters in " + config.acceptance_counters + ")";
  text += "; each draft accepted with " + source + " per-position rate [" + rates +
          "] (drawn per request and position); ";
  if (config.method == SpecMethod::kDraftModel) {
    return text + "draft model " + config.model + " priced by the latency model from its spec: a "
                  "forward over the step's tokens, then one decode pass per further draft token "
                  "(GPU time; its weights and KV held beside the target's)";
  }
  return text + "draft head of " + std::to_string(config.drafter_layers) +
         " layer(s) priced as that share of a target decode step plus the lm_head per draft "
         "token (estimate)";
}

const ParamTable<SpeculativeOption>& SpeculativeOptionParams() {
  using C = SpeculativeOption;
  static const ParamTable<C> table = {
      {Quiet({"speculative-config", "",
              "vLLM's --speculative-config as JSON, e.g. '{\"method\": \"ngram\", "
              "\"num_speculative_tokens\": 4, \"prompt_lookup_max\": 4}'; methods ngram, suffix "
              "(drafts verified against the text typed next where the workload has it), eagle, "
              "eagle3, mtp, draft_model (with efimsim's \"acceptance_rates\": [per position]; "
              "draft_model also \"model\": a spec sharing the target's vocabulary); docs/"
              "speculative-decoding.md; empty: off"}),
       &C::speculative_config},
  };
  return table;
}

const SpeculativeOption& SpeculativeSettings(const OptionStore& options) {
  return options.Get<SpeculativeOption>(kSpeculativeKey);
}

SpeculativeOption& MutableSpeculativeSettings(OptionStore& options) {
  return options.Get<SpeculativeOption>(kSpeculativeKey);
}

BoundParamTable<OptionStore> SpeculativeOptionTable() {
  return BindParamTable("Speculative decoding (vLLM engine only)", SpeculativeOptionParams(),
                        StoredPart<SpeculativeOption>(kSpeculativeKey),
                        ParamScope{"engine", {"vllm_v1"}});
}

}  // namespace efimsim
