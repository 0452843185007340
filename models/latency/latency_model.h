#pragma once
// Step latency: the time one forward pass over a batch takes. A step is one
// pass over all its tokens (continuous batching with chunked prefill): GEMMs
// over the step's total token count, attention per sequence from its own
// (new tokens, context) pair, never a batch collapsed to an average length.
//
// Seconds as double exist only inside implementations; the interface speaks
// Duration (integer ns).

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "models/formats/model_spec.h"
#include "sim/base/time.h"

namespace efimsim {

// One sequence's share of a step.
struct SequenceWork {
  int64_t new_tokens = 0;      // tokens computed this step (>= 1)
  int64_t context_tokens = 0;  // tokens already in the KV cache before the step
  bool emits_token = false;    // the step samples a token for it (its last chunk, or decode)
  // Positions the lm_head and sampler process when it emits: 1, or 1 +
  // drafts when the step verifies speculative drafts (every verified
  // position needs its logits).
  int64_t sampled_tokens = 1;
};

// Whether a sequence's attention is priced as a decode's: one new token, or
// the verification of speculative drafts (every new token sampled), a short
// query over the cache that vLLM's attention backends run in the decode
// batch. A verify of 1 + k tokens is priced as one decode query over its
// context: decode attention is bound by reading the KV cache, which the
// k + 1 queries share (an approximation; docs/speculative-decoding.md).
inline bool AttendsAsDecode(const SequenceWork& seq) {
  return seq.new_tokens == 1 || (seq.emits_token && seq.sampled_tokens == seq.new_tokens);
}

// Where a step's time goes. Total() is the sum of the parts, exactly.
struct StepCost {
  Duration gemm{0};           // linear layers of all transformer layers
  Duration attention{0};      // attention of all layers
  Duration elementwise{0};    // norms, RoPE, activation, residuals, KV writes
  Duration lm_head{0};        // final projection of emitting sequences
  Duration communication{0};  // tensor-parallel collectives (0 at TP=1)
  Duration cpu_overhead{0};   // host time not hidden behind GPU work
  // Speculative decoding's drafting within the step (proposer lookups on the
  // host, draft-head forwards), added by the step driver (replica.h); 0
  // from every latency model.
  Duration speculation{0};
  bool extrapolated = false;  // some part was predicted outside measured data

  Duration Total() const {
    return gemm + attention + elementwise + lm_head + communication + cpu_overhead + speculation;
  }
};

// The parts of StepCost, for per-operator breakdowns.
enum class StepPart : uint8_t { kGemm, kAttention, kElementwise, kLmHead, kCommunication, kCpuOverhead };
const char* StepPartName(StepPart part);  // "gemm", "attention", ...

// One operator's share of a step: its time summed over every instance on the
// step's critical path (one per layer for layer operators).
struct OperatorCost {
  std::string name;             // "qkv_proj", "decode_attention", "cpu_step", ...
  StepPart part = StepPart::kGemm;
  Duration time{0};
  int64_t instances = 0;        // launches on the critical path (layers, or 1)
  bool extrapolated = false;    // priced outside measured data
  std::string source;           // what priced it: "profile", "profile+fit", "roofline", ...
};

// A step's cost with its operators. Invariants: for every part, the sum of
// its operators' times equals that part of `cost`, so the operators sum to
// cost.Total() exactly; cost.extrapolated is true iff an operator's is.
struct StepBreakdown {
  StepCost cost;
  std::vector<OperatorCost> operators;  // in execution order
  int64_t gemm_tokens = 0;              // M of the step's GEMMs (after CUDA-graph padding)
  bool cuda_graph_step = false;         // replayed as a CUDA graph (decode-only, graph mode)
};

// Host-side costs of one engine step (vLLM v1). Defaults are estimates, not
// measurements; a profile or the command line can replace them.
struct CpuOverheadConfig {
  double step_us = 1500.0;             // scheduling, input preparation, sampling, output
  double per_sequence_us = 15.0;       // per scheduled sequence
  double eager_launch_per_layer_us = 60.0;  // kernel launches of one layer, eager mode
  double graph_launch_us = 50.0;       // one CUDA-graph replay (decode-only steps)
  bool cuda_graphs = false;            // false = --enforce-eager (the paper's setup)
  // Host/GPU overlap (vLLM V1's engine core with async scheduling, on by
  // default since vLLM 0.14, and SGLang's overlap scheduler: the next step's
  // scheduling and input preparation run while the GPU executes the current
  // one). true (the default): a step's host time (step_us + per_sequence_us
  // x sequences + launches) adds only where it exceeds the step's GPU time,
  // max(0, host - GPU); false (older vLLM, --no-async-scheduling): step and
  // per-sequence time add in full and only launches hide.
  bool overlap_host = true;
};

class LatencyModel {
 public:
  virtual ~LatencyModel() = default;
  // Precondition: every sequence has new_tokens >= 1; the batch is non-empty.
  virtual StepCost Predict(std::span<const SequenceWork> batch) const = 0;
  // Short name written into every output ("roofline").
  virtual std::string Name() const = 0;
  // One line saying what the numbers rest on, including whether they are
  // approximate.
  virtual std::string Description() const = 0;
  // Predict() with its per-operator breakdown (same cost). The default has
  // one row per StepCost part, for models without an operator graph.
  virtual StepBreakdown Explain(std::span<const SequenceWork> batch) const;
  // One rank's step in a data-parallel MoE group (ModelSpec::data_parallel
  // > 1) whose largest rank runs `group_rows` tokens: vLLM pads every rank's
  // batch to the group's largest and its MoE layers run over all ranks'
  // rows. Predict(batch) is this with group_rows = the batch's own tokens
  // (every rank alike). The default, for models without an operator graph,
  // is Predict(batch).
  virtual StepCost PredictInGroup(std::span<const SequenceWork> batch, int64_t group_rows) const;
};

}  // namespace efimsim
