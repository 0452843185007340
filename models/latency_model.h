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

#include "models/model_spec.h"
#include "sim/base/time.h"

namespace efimsim {

// One sequence's share of a step.
struct SequenceWork {
  int64_t new_tokens = 0;      // tokens computed this step (>= 1)
  int64_t context_tokens = 0;  // tokens already in the KV cache before the step
  bool emits_token = false;    // the step samples a token for it (its last chunk, or decode)
};

// Where a step's time goes. Total() is the sum of the parts, exactly.
struct StepCost {
  Duration gemm{0};           // linear layers of all transformer layers
  Duration attention{0};      // attention of all layers
  Duration elementwise{0};    // norms, RoPE, activation, residuals, KV writes
  Duration lm_head{0};        // final projection of emitting sequences
  Duration communication{0};  // tensor-parallel collectives (0 at TP=1)
  Duration cpu_overhead{0};   // host time not hidden behind GPU work
  bool extrapolated = false;  // some part was predicted outside measured data

  Duration Total() const {
    return gemm + attention + elementwise + lm_head + communication + cpu_overhead;
  }
};

// Host-side costs of one engine step (vLLM v1). Defaults are estimates, not
// measurements; a profile or the command line can replace them.
struct CpuOverheadConfig {
  double step_us = 1500.0;             // scheduling, input preparation, sampling, output
  double per_sequence_us = 15.0;       // per scheduled sequence
  double eager_launch_per_layer_us = 60.0;  // kernel launches of one layer, eager mode
  double graph_launch_us = 50.0;       // one CUDA-graph replay (decode-only steps)
  bool cuda_graphs = false;            // false = --enforce-eager (the paper's setup)
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
};

}  // namespace efimsim
