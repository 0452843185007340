#pragma once
// The step model shared by every graph-based latency model:
//
//   GPU time = critical path of the step graph (models/latency/step_graph.h), each
//              operator priced by an OperatorTimer:
//     GEMMs and per-token operators once over the step's total token count M
//       (padded to a CUDA-graph capture size on graph steps), never per request;
//     prefill attention summed over prefill chunks (new_tokens >= 2), each
//       from its own (new tokens, context) pair;
//     decode attention (new_tokens == 1): every decode of a batch of B decodes
//       costs 1/B of a B-sequence kernel at its own context, so a uniform
//       batch costs exactly the measured kernel and a skewed one is not
//       collapsed to an average length;
//     lm_head and sampling only over sequences that emit a token;
//     MoE layers: the router GEMM, the fused experts over M (uniform
//       routing) and the shared expert's GEMMs where the model has one;
//       in a data-parallel group of D ranks (ModelSpec::data_parallel) M is
//       the group's largest rank batch (vLLM pads every rank to it), the
//       fused experts run over D x M rows, and each MoE layer adds its
//       dispatch and combine (OperatorTimer::MoeDispatchCombine);
//     two all-reduces per layer under tensor parallelism.
//   CPU time = step_us + per_sequence_us x sequences + max(0, launch - GPU time)
//     launch = layers x eager_launch_per_layer_us (eager steps), or
//              graph_launch_us (decode-only steps in CUDA-graph mode with
//              M <= the largest capture size; such steps pad M up to the next
//              capture size).
//   Total = GPU time + CPU time; StepBreakdown lists every operator.

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "models/latency/latency_model.h"
#include "models/latency/operator_timer.h"
#include "models/latency/step_graph.h"

namespace efimsim {

// vLLM's default CUDA-graph capture sizes: 1, 2, 4, then multiples of 8 to 512.
std::vector<int64_t> DefaultCaptureSizes();
// The smallest capture size >= batch; `batch` itself beyond the largest size.
// Precondition: `sizes` sorted ascending, non-empty.
int64_t PadToCaptureSize(int64_t batch, const std::vector<int64_t>& sizes);

class StepLatencyModel : public LatencyModel {
 public:
  StepCost Predict(std::span<const SequenceWork> batch) const override;
  StepBreakdown Explain(std::span<const SequenceWork> batch) const override;
  StepCost PredictInGroup(std::span<const SequenceWork> batch, int64_t group_rows) const override;

  int64_t TensorParallel() const { return shapes_.tensor_parallel; }
  const CpuOverheadConfig& Overhead() const { return overhead_; }

 protected:
  // `capture_sizes`: sorted ascending, non-empty. `overhead_source` names
  // where the CPU figures come from ("defaults", "measured: ...").
  StepLatencyModel(const ModelSpec& model, int64_t tensor_parallel, CpuOverheadConfig overhead,
                   std::vector<int64_t> capture_sizes, std::string overhead_source,
                   std::unique_ptr<OperatorTimer> timer);

  const ShardShapes& Shapes() const { return shapes_; }
  // "eager", or "CUDA graphs for decode-only steps"; for descriptions.
  std::string OverheadText() const;

 private:
  struct Evaluation;
  // `group_rows`: the data-parallel group's largest rank batch (0: this one's).
  Evaluation Evaluate(std::span<const SequenceWork> batch, int64_t group_rows = 0) const;
  StepCost CostOf(const Evaluation& e) const;

  ShardShapes shapes_;
  CpuOverheadConfig overhead_;
  std::vector<int64_t> capture_sizes_;
  std::string overhead_source_;
  std::unique_ptr<OperatorTimer> timer_;
  // The operators priced by the step's rows alone, for the last row count
  // priced (m = -1: none yet). Written by const calls: like the profile
  // tables under it, a model is not safe to use from two threads at once.
  struct RowsPriced {
    int64_t m = -1;
    std::array<OperatorTime, kStepOpCount> per_launch{};
  };
  mutable RowsPriced rows_priced_;
  StepGraph graph_;
  std::string serving_text_;  // formats other than the checkpoint's, for OverheadText()
};

}  // namespace efimsim
