#pragma once
// Prices one operator launch of one layer. The step model asks a timer for
// every operator of the step graph; a timer is the only thing that differs
// between the roofline model and the profile model.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "models/latency/latency_model.h"
#include "models/latency/operator_work.h"

namespace efimsim {

struct OperatorTime {
  double seconds = 0;         // one launch, one layer (seconds: latency-model internal unit)
  bool extrapolated = false;  // outside measured data (a fit, a rescaled shape, or no table)
  std::string_view source;    // static text: "profile", "profile+fit", "roofline", ...
};

// Adds `weight` launches priced `part` to `into`: seconds add up, the
// result is extrapolated if any part is, and it names the first part's
// source, or the first extrapolated one's. Inline: a decode step adds one
// share per request.
inline void AccumulateLaunch(OperatorTime& into, const OperatorTime& part, double weight) {
  if (into.source.empty() || (part.extrapolated && !into.extrapolated)) into.source = part.source;
  into.seconds += weight * part.seconds;
  into.extrapolated = into.extrapolated || part.extrapolated;
}

// Throws UsageError when `shapes` communicate between GPUs (TP > 1, or MoE
// layers across data-parallel ranks) and `gpu` states no interconnect_gbps
// to price it with, or when the MoE group spans nodes
// (ShardShapes::MoeGroupSpansNodes) and `gpu` states no network_gbps.
void RequireInterconnect(const ShardShapes& shapes, const GpuSpec& gpu);

class OperatorTimer {
 public:
  virtual ~OperatorTimer() = default;
  // GEMM `id` over `m` token rows, on this GPU's shard of the weights.
  virtual OperatorTime Gemm(GemmId id, int64_t m) const = 0;
  // Attention of one prefill chunk: new tokens over context + their own.
  virtual OperatorTime PrefillAttention(int64_t new_tokens, int64_t context_tokens) const = 0;
  // Decode attention of `batch` sequences all at `context_tokens` (the whole kernel).
  virtual OperatorTime DecodeAttention(int64_t batch, int64_t context_tokens) const = 0;
  // Decode attention of a step's `decodes` one-token sequences (those of
  // `step` with new_tokens == 1; decodes >= 1): each is 1/decodes of a
  // decodes-wide kernel at its own context, and the shares are combined in
  // `step` order by AccumulateLaunch. The default calls DecodeAttention per
  // sequence; an override must return the same bits, only sooner.
  virtual OperatorTime DecodeAttentionShares(std::span<const SequenceWork> step,
                                             int64_t decodes) const;
  virtual OperatorTime Elementwise(ElementwiseId id, int64_t tokens) const = 0;
  // The fused MoE experts of one MoE layer over `tokens` rows on this GPU
  // (models/latency/operator_work.h MoeExpertsWork). Asked only of MoE models.
  virtual OperatorTime MoeExperts(int64_t tokens) const = 0;
  // One all-reduce of the hidden state of `tokens` rows across the TP group.
  virtual OperatorTime AllReduce(int64_t tokens) const = 0;
  // An MoE layer's dispatch and combine across a data-parallel group whose
  // ranks each run `rank_tokens` rows (MoeDispatchCombineBytes). Asked only
  // of MoE models with data_parallel > 1; no source here times it, so every
  // timer prices it at the interconnect's bound.
  virtual OperatorTime MoeDispatchCombine(int64_t rank_tokens) const = 0;
};

}  // namespace efimsim
