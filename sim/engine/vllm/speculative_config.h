#pragma once
// vLLM's --speculative-config for the vLLM v1 engine: which drafter
// proposes tokens, how many per step, and (efimsim's own keys) how the
// drafts are accepted where no text tells. Off by default; a run with it
// off is byte-identical to one before it existed.
//
// vLLM's keys (vllm/config/speculative.py, SpeculativeConfig):
//   method                   ngram | suffix | eagle | eagle3 | mtp | draft_model
//   num_speculative_tokens   k, drafts per sequence and step (required, except
//                            suffix: default suffix_decoding_max_tree_depth)
//   prompt_lookup_min/max    ngram (defaulting as vLLM: both 5; one given,
//                            the other copies it)
//   suffix_decoding_max_tree_depth, _max_cached_requests, _max_spec_factor,
//   _min_token_prob          suffix (vLLM's defaults 24, 10000, 1.0, 0.1)
//   model                    the drafter's checkpoint: recorded, not read;
//                            draft_model: required, the draft model's
//                            efimsim spec (a built-in name or a spec or
//                            config.json path), priced by the latency model
//                            and holding its own weights and KV
// efimsim's keys:
//   acceptance_rates         eagle, eagle3, mtp, draft_model (this or acceptance_counters
//                            required): P(draft i is accepted | drafts
//                            before it were), one per position, the last
//                            repeated for positions beyond
//   acceptance_counters      eagle, eagle3, mtp, draft_model: instead, a vLLM server's
//                            /metrics dump whose spec_decode counters give
//                            those rates as measured (spec_decode_counters.h)
//   drafter_layers           eagle, eagle3, mtp: decoder layers of the draft
//                            head (default 1), priced as that share of a target
//                            decode step plus its lm_head, per draft token
//   lookup_host_us           ngram, suffix: host time to propose one
//                            sequence's drafts (default 10 us, an estimate)
// Any other key is refused, naming it.

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/base/bound_params.h"
#include "sim/base/option_store.h"
#include "sim/base/params.h"
#include "sim/engine/spec_decode/ngram_proposer.h"
#include "sim/engine/spec_decode/suffix_proposer.h"

namespace efimsim {

enum class SpecMethod : uint8_t { kNone, kNgram, kSuffix, kEagle, kEagle3, kMtp, kDraftModel };

// How drafts are judged: by comparing the drafted token ids with the tokens
// the target generates (ngram, suffix: both are the request's own text), or
// by drawing each position's acceptance (model drafters).
bool DraftsComparedByToken(SpecMethod method);

struct SpeculativeConfig {
  SpecMethod method = SpecMethod::kNone;
  std::string method_name;          // as given ("" when off)
  int32_t num_speculative_tokens = 0;
  NgramProposerConfig ngram;        // method ngram
  SuffixDecodingConfig suffix;      // method suffix
  std::vector<double> acceptance_rates;  // model drafters, per position
  std::string acceptance_counters;       // the /metrics file they came from, or "" (configured)
  int32_t drafter_layers = 1;       // model drafters
  double lookup_host_us = 10.0;     // ngram, suffix: per proposing sequence (estimate)
  std::string model;                // the drafter's checkpoint (draft_model: its efimsim spec)
  // The model's context (vLLM's max_model_len): no draft takes a sequence
  // past it.
  int64_t max_model_len = INT64_MAX;

  bool enabled() const { return method != SpecMethod::kNone; }
  // The conditional acceptance probability of draft position `i` (0-based).
  double AcceptanceRate(int32_t i) const {
    if (acceptance_rates.empty()) return 0.0;
    const size_t last = acceptance_rates.size() - 1;
    return acceptance_rates[std::min(static_cast<size_t>(i), last)];
  }
};

// Parses the option's JSON text ("" -> off). `max_model_len` bounds drafts
// as vLLM's model config does (the model's context). UsageError
// ("--speculative-config: ...") naming the key for anything wrong.
SpeculativeConfig ParseSpeculativeConfig(const std::string& text, int64_t max_model_len);

// One line for run descriptions: the method, k and the acceptance rule.
std::string DescribeSpeculativeConfig(const SpeculativeConfig& config);

// The option itself, owned by the vLLM engine (its part table in the run's
// engine OptionStore, quiet while off).
struct SpeculativeOption {
  std::string speculative_config;  // JSON; "" = off
};
const ParamTable<SpeculativeOption>& SpeculativeOptionParams();
const SpeculativeOption& SpeculativeSettings(const OptionStore& options);
SpeculativeOption& MutableSpeculativeSettings(OptionStore& options);  // for runs built in code
BoundParamTable<OptionStore> SpeculativeOptionTable();

}  // namespace efimsim
