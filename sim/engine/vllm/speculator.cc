#include "sim/engine/vllm/speculator.h"

#include <algorithm>

#include "sim/base/check.h"
#include "sim/core/random.h"

namespace efimsim {

Speculator::Speculator(SpeculativeConfig config, TokenDraw draw, int64_t target_layers)
    : config_(std::move(config)), draw_(draw), target_layers_(target_layers) {
  EFIMSIM_CHECK(config_.enabled() && config_.num_speculative_tokens >= 1,
                "a speculator needs a method and k >= 1");
  if (config_.method == SpecMethod::kSuffix) {
    suffix_ = std::make_unique<SuffixDecodingProposer>(config_.suffix);
  }
  const size_t k = static_cast<size_t>(config_.num_speculative_tokens);
  counters_.drafted_at.assign(k, 0);
  counters_.accepted_at.assign(k, 0);
}

void Speculator::Start(const ClientRequest& client_request, VllmRequest& request) const {
  auto state = std::make_unique<SpecState>();
  state->reference = client_request.reference_output;
  if (DraftsComparedByToken(config_.method)) {
    // Drafts read every prompt id (VllmV1Core::UnreadPromptTokens says 0).
    EFIMSIM_CHECK(client_request.every_prompt_id_made(), "speculation given a prompt with unmade ids");
    if (!client_request.prompt.empty()) {
      state->history = client_request.prompt;
    } else {
      state->history.resize(static_cast<size_t>(client_request.prompt_length));
      for (int64_t i = 0; i < client_request.prompt_length; ++i) {
        state->history[static_cast<size_t>(i)] = draw_.SyntheticPrompt(request.id, i);
      }
    }
    state->history.reserve(state->history.size() + static_cast<size_t>(client_request.max_tokens));
  }
  request.spec = std::move(state);
}

TokenId Speculator::Target(const VllmRequest& request, int64_t position) const {
  const int64_t output_index = position - request.prompt_tokens;
  const TokenVector& reference = request.spec->reference;
  if (output_index >= 0 && output_index < static_cast<int64_t>(reference.size())) {
    return reference[static_cast<size_t>(output_index)];
  }
  return draw_.Generated(request.id, position);
}

int32_t Speculator::Accepted(const VllmRequest& request, int32_t scheduled) const {
  const TokenVector& drafts = request.spec->drafts;
  int32_t accepted = 0;
  if (DraftsComparedByToken(config_.method)) {
    while (accepted < scheduled && drafts[static_cast<size_t>(accepted)] ==
                                       Target(request, request.num_tokens + accepted)) {
      ++accepted;
    }
    return accepted;
  }
  // Model drafters: a uniform draw per (request, position) against the
  // position's conditional acceptance rate.
  while (accepted < scheduled) {
    const uint64_t key = PairKey(request.id ^ 0x73706563ULL,
                                 static_cast<uint64_t>(request.num_tokens + accepted));
    const double u = static_cast<double>(key >> 11) * 0x1.0p-53;
    if (u >= config_.AcceptanceRate(accepted)) break;
    ++accepted;
  }
  return accepted;
}

void Speculator::AfterStep(VllmRequest& request, TokenEmitter& emitter, int32_t block_tokens) {
  SpecState& state = *request.spec;
  const int32_t scheduled = static_cast<int32_t>(state.drafts.size());  // trimmed when scheduled
  // A prefill chunk that does not finish the prompt samples nothing.
  if (request.num_computed_tokens < request.num_tokens + scheduled) return;
  const int32_t accepted = Accepted(request, scheduled);
  if (scheduled > 0) {
    ++counters_.drafts;
    counters_.draft_tokens += scheduled;
    counters_.accepted_tokens += accepted;
    request.parts.draft_tokens += scheduled;
    request.parts.accepted_tokens += accepted;
    for (int32_t i = 0; i < scheduled; ++i) ++counters_.drafted_at[static_cast<size_t>(i)];
    for (int32_t i = 0; i < accepted; ++i) ++counters_.accepted_at[static_cast<size_t>(i)];
  }
  request.num_computed_tokens -= scheduled - accepted;
  sampled_.clear();
  for (int32_t i = 0; i <= accepted; ++i) {
    const TokenId token = Target(request, request.num_tokens);
    sampled_.push_back(token);
    request.AppendTokenKey(token, block_tokens);
    if (DraftsComparedByToken(config_.method)) state.history.push_back(token);
    if (emitter.CountToken(request)) break;  // finished: the rest is discarded
  }
  state.drafts.clear();
  if (request.state != RequestState::kFinished) Propose(request, sampled_);
}

void Speculator::Propose(VllmRequest& request, std::span<const TokenId> sampled) {
  SpecState& state = *request.spec;
  ++counters_.proposals;
  switch (config_.method) {
    case SpecMethod::kNgram:
      state.drafts = ProposeNgramDraft(state.history, config_.ngram);
      break;
    case SpecMethod::kSuffix:
      state.drafts = suffix_->Propose(request.id, state.history, request.prompt_tokens, sampled);
      break;
    default: {
      // A draft head proposes k tokens (their ids do not matter: Accepted
      // draws), within the model's context.
      const int64_t room = config_.max_model_len - request.num_tokens - 1;
      const int64_t k = std::min<int64_t>(config_.num_speculative_tokens, std::max<int64_t>(0, room));
      state.drafts.assign(static_cast<size_t>(k), 0);
      break;
    }
  }
  if (state.drafts.empty()) ++counters_.empty_proposals;
}

void Speculator::EndStep(std::span<const uint64_t> batch) {
  if (suffix_ != nullptr) suffix_->StopRequestsNotIn(batch);
}

void Speculator::PriceDrafting(StepPlan& plan) const {
  int64_t sampling = 0;
  for (const ScheduledSequence& seq : plan.sequences) {
    const Request& r = *seq.request;
    sampling += r.num_computed_tokens >= r.num_tokens ? 1 : 0;
  }
  if (sampling == 0) return;
  if (DraftsComparedByToken(config_.method)) {
    plan.draft_host = Duration{static_cast<int64_t>(config_.lookup_host_us * 1e3 *
                                                    static_cast<double>(sampling))};
  } else if (config_.method == SpecMethod::kDraftModel) {
    plan.draft_model_passes = config_.num_speculative_tokens;
  } else {
    plan.draft_head_passes = config_.num_speculative_tokens;
    plan.draft_head_layer_share =
        std::min(1.0, static_cast<double>(config_.drafter_layers) /
                          static_cast<double>(std::max<int64_t>(1, target_layers_)));
  }
}

}  // namespace efimsim
