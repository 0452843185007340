#pragma once
// Speculative decoding inside the vLLM v1 engine (vllm/v1/spec_decode/,
// the scheduler's spec-token handling and update_from_output): after each
// step that samples a sequence, a drafter proposes up to k tokens; the next
// step verifies them as a (1 + drafts)-token query; the accepted drafts and
// one token more are generated; the rejected drafts' progress is taken back
// (num_computed_tokens -= rejected; their KV slots stay with the request and
// are written again, as in vLLM).
//
// What the target generates: the request's reference output (the text the
// developer types next, ClientRequest::reference_output) and, past it, the
// driver's drawn tokens. Drafts of ngram and suffix (vLLM's algorithms on
// the request's own tokens, spec_decode/) are accepted while they equal
// those tokens; drafts of model drafters (eagle, eagle3, mtp) while a draw
// per request and position falls under the configured per-position rate.
//
// Counters follow vLLM's spec-decode metrics: drafts (sequence-steps that
// verified at least one draft), draft tokens, accepted tokens, and both per
// draft position.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "sim/client/client_request.h"
#include "sim/engine/engine_core.h"
#include "sim/engine/spec_decode/suffix_proposer.h"
#include "sim/engine/token_draw.h"
#include "sim/engine/vllm/speculative_config.h"
#include "sim/engine/vllm/vllm_v1_scheduler.h"
#include "sim/metrics/summary.h"

namespace efimsim {

struct SpeculationCounters {
  int64_t drafts = 0;           // sequence-steps verifying >= 1 draft (vLLM num_drafts)
  int64_t draft_tokens = 0;     // drafts verified
  int64_t accepted_tokens = 0;  // drafts accepted
  std::vector<int64_t> drafted_at;   // per draft position (size k)
  std::vector<int64_t> accepted_at;  // per draft position (size k)
  int64_t proposals = 0;        // sequence-steps the drafter ran for
  int64_t empty_proposals = 0;  // of which it proposed nothing
};

class Speculator {
 public:
  // `draw`: the driver's generated-token draw (TokenDraw over the model's
  // text tokens), for positions past a request's reference and for
  // prompts given as lengths.
  // `target_layers`: the served model's decoder layers (a draft head's
  // share of a decode step is drafter_layers / target_layers).
  Speculator(SpeculativeConfig config, TokenDraw draw, int64_t target_layers);

  const SpeculativeConfig& config() const { return config_; }

  // Gives a new request its state (prompt ids, reference output).
  void Start(const ClientRequest& client_request, VllmRequest& request) const;

  // After a step, for one scheduled sequence of a request with state:
  // verifies its scheduled drafts, takes back the rejected ones' progress,
  // emits the accepted drafts and one token more through `emitter` (fewer
  // if the request finishes), appends them to its block keys, then proposes
  // the next step's drafts. A sequence whose prompt is not yet computed (a
  // prefill chunk) only keeps its state. `block_tokens`: the cache's.
  void AfterStep(VllmRequest& request, TokenEmitter& emitter, int32_t block_tokens);

  // The end of a step: suffix decoding stops the requests that left the
  // batch (`batch`: the step's request ids), as vLLM's proposer does.
  void EndStep(std::span<const uint64_t> batch);

  // What drafting this step costs (StepPlan's draft fields), for the
  // plan's sequences that will sample.
  void PriceDrafting(StepPlan& plan) const;

  const SpeculationCounters& counters() const { return counters_; }

 private:
  // The token the target generates at sequence position `position`.
  TokenId Target(const VllmRequest& request, int64_t position) const;
  // Drafts of `scheduled` accepted, the sequence's tokens before them being
  // `request.num_tokens`.
  int32_t Accepted(const VllmRequest& request, int32_t scheduled) const;
  void Propose(VllmRequest& request, std::span<const TokenId> sampled);

  SpeculativeConfig config_;
  TokenDraw draw_;
  int64_t target_layers_;
  std::unique_ptr<SuffixDecodingProposer> suffix_;  // method suffix only
  SpeculationCounters counters_;
  TokenVector sampled_;  // scratch: the tokens one step emitted for a request
};

}  // namespace efimsim
