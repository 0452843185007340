#pragma once
// The operator graph of one forward step: `layers` copies of the transformer
// layer's operators, then the head (final norm, lm_head, sampling). Edges are
// data dependencies; the step's GPU time is the graph's critical path.
//
// Today every layer is a chain (each operator waits for the previous one), so
// the critical path is the sum of all operators. The graph is what lets a
// later change overlap tensor-parallel communication with compute by editing
// edges only. Boost.Graph stays in step_graph.cc.

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "models/latency/latency_model.h"

namespace efimsim {

// Operators of a step. A layer's operators run once per layer; the head's once.
// A dense layer's MLP is gate_up, activation, down; an MoE layer's is the
// router, the fused experts and, where the model has one, the shared expert.
// An MLA layer expands its latent with kv_b_proj after qkv_proj. In a
// data-parallel MoE group an MoE layer also dispatches its tokens to the
// group's experts and combines their outputs (moe_dispatch_combine).
enum class StepOp : uint8_t {
  kInputNorm, kQkvProj, kKvBProj, kRope, kKvCacheWrite, kPrefillAttention, kDecodeAttention, kOProj,
  kAttentionAllReduce, kAttentionResidual, kPostAttentionNorm, kGateUpProj, kActivation,
  kDownProj, kMoeRouter, kMoeExperts, kMoeDispatchCombine, kSharedExpertGateUp,
  kSharedExpertActivation, kSharedExpertDown, kMlpAllReduce, kMlpResidual,
  kFinalNorm, kLmHead, kSampling,
};
inline constexpr int kStepOpCount = 25;

// The MLP of one transformer layer.
enum class LayerMlp : uint8_t { kDense, kMoe, kMoeWithSharedExpert };
// Each layer's MLP, in layer order (models/formats/model_spec.h MoeSpec).
std::vector<LayerMlp> LayerMlps(const ModelSpec& model);
std::string_view StepOpName(StepOp op);  // "input_norm", "qkv_proj", ...
StepPart StepOpPart(StepOp op);

// Result of evaluating the graph with one duration per operator kind.
struct CriticalPath {
  double seconds = 0;                            // length of the longest path
  std::array<double, kStepOpCount> seconds_by_op{};  // per StepOp: time on the critical path
  std::array<int64_t, kStepOpCount> count_by_op{};   // per StepOp: instances on the critical path
};

class StepGraph {
 public:
  // `tensor_parallel`: with false the all-reduce operators are left out.
  // `layers`: each layer's MLP, in order (non-empty). `mla`: the layers'
  // attention is multi-head latent attention (adds kv_b_proj).
  // `moe_exchange`: MoE layers exchange tokens across data-parallel ranks.
  StepGraph(const std::vector<LayerMlp>& layers, bool tensor_parallel, bool mla = false,
            bool moe_exchange = false);
  // `layers` dense layers.
  StepGraph(int64_t layers, bool tensor_parallel);

  // Operators present in the graph, in StepOp order (a layer's execution
  // order, dense MLP before MoE, then the head).
  const std::vector<StepOp>& Operators() const { return operators_; }

  // `seconds_by_op[op]`: time of one instance of op (kStepOpCount entries,
  // >= 0). Deterministic: ties between equal-length paths go to the
  // predecessor added first.
  // On a chain (every layer today) it sums without a per-node pass.
  CriticalPath Evaluate(std::span<const double> seconds_by_op) const;
  // The same, except for `seconds` when the path is certainly at least
  // `exact_below_seconds` long: it is then an estimate, within a relative
  // 1e-12 of the exact length and itself >= exact_below_seconds. For
  // callers that need only max(0, t - path), with t = exact_below_seconds:
  // that is 0 either way, and the ~420 dependent additions of the exact
  // sum are skipped. seconds_by_op and count_by_op are always exact.
  CriticalPath Evaluate(std::span<const double> seconds_by_op, double exact_below_seconds) const;
  // The general longest-path pass over any DAG; Evaluate's result equals it
  // bit for bit (public so tests can compare).
  CriticalPath EvaluateDag(std::span<const double> seconds_by_op) const;

 private:
  std::vector<StepOp> operators_;
  // True when node i's only predecessor is node i - 1 for every i: the
  // critical path is then every node, and Evaluate needs no per-node pass.
  bool is_chain_ = false;
  std::array<int64_t, kStepOpCount> chain_count_by_op_{};
  // On a chain: the distinct positive values of chain_count_by_op_,
  // ascending. Rounds [previous end, end) of the per-kind sums add the same
  // set of kinds.
  std::vector<int64_t> round_run_ends_;
  // Nodes in topological order; node_op_[i] and predecessors_[i] for node i.
  std::vector<StepOp> node_op_;
  std::vector<std::vector<int32_t>> predecessors_;
};

}  // namespace efimsim
