#include "models/latency/step_graph.h"

#include <algorithm>
#include <iterator>
#include <limits>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/topological_sort.hpp>

#include "sim/base/check.h"

namespace efimsim {

std::string_view StepOpName(StepOp op) {
  switch (op) {
    case StepOp::kInputNorm: return "input_norm";
    case StepOp::kQkvProj: return "qkv_proj";
    case StepOp::kKvBProj: return "kv_b_proj";
    case StepOp::kRope: return "rope";
    case StepOp::kKvCacheWrite: return "kv_cache_write";
    case StepOp::kPrefillAttention: return "prefill_attention";
    case StepOp::kDecodeAttention: return "decode_attention";
    case StepOp::kOProj: return "o_proj";
    case StepOp::kAttentionAllReduce: return "attn_all_reduce";
    case StepOp::kAttentionResidual: return "attn_residual_add";
    case StepOp::kPostAttentionNorm: return "post_attn_norm";
    case StepOp::kGateUpProj: return "gate_up_proj";
    case StepOp::kActivation: return "activation";
    case StepOp::kDownProj: return "down_proj";
    case StepOp::kMoeRouter: return "moe_router";
    case StepOp::kMoeExperts: return "moe_experts";
    case StepOp::kMoeDispatchCombine: return "moe_dispatch_combine";
    case StepOp::kSharedExpertGateUp: return "shared_expert_gate_up_proj";
    case StepOp::kSharedExpertActivation: return "shared_expert_activation";
    case StepOp::kSharedExpertDown: return "shared_expert_down_proj";
    case StepOp::kMlpAllReduce: return "mlp_all_reduce";
    case StepOp::kMlpResidual: return "mlp_residual_add";
    case StepOp::kFinalNorm: return "final_norm";
    case StepOp::kLmHead: return "lm_head";
    case StepOp::kSampling: return "sampling";
  }
  return "?";
}

StepPart StepOpPart(StepOp op) {
  switch (op) {
    case StepOp::kQkvProj:
    case StepOp::kKvBProj:
    case StepOp::kOProj:
    case StepOp::kGateUpProj:
    case StepOp::kDownProj:
    case StepOp::kMoeRouter:
    case StepOp::kMoeExperts:
    case StepOp::kSharedExpertGateUp:
    case StepOp::kSharedExpertDown: return StepPart::kGemm;
    case StepOp::kPrefillAttention:
    case StepOp::kDecodeAttention: return StepPart::kAttention;
    case StepOp::kAttentionAllReduce:
    case StepOp::kMoeDispatchCombine:
    case StepOp::kMlpAllReduce: return StepPart::kCommunication;
    case StepOp::kLmHead: return StepPart::kLmHead;
    default: return StepPart::kElementwise;
  }
}

std::vector<LayerMlp> LayerMlps(const ModelSpec& model) {
  std::vector<LayerMlp> out;
  for (int64_t layer = 0; layer < model.layers; ++layer) {
    if (!model.moe.IsMoeLayer(layer)) {
      out.push_back(LayerMlp::kDense);
    } else {
      out.push_back(model.moe.shared_expert_ffn_size > 0 ? LayerMlp::kMoeWithSharedExpert
                                                         : LayerMlp::kMoe);
    }
  }
  return out;
}

namespace {

// One layer's operators in execution order.
std::vector<StepOp> LayerOperators(LayerMlp mlp, bool tensor_parallel, bool mla, bool moe_exchange) {
  std::vector<StepOp> ops = {StepOp::kInputNorm, StepOp::kQkvProj};
  if (mla) ops.push_back(StepOp::kKvBProj);
  ops.insert(ops.end(), {StepOp::kRope, StepOp::kKvCacheWrite, StepOp::kPrefillAttention,
                         StepOp::kDecodeAttention, StepOp::kOProj});
  if (tensor_parallel) ops.push_back(StepOp::kAttentionAllReduce);
  ops.insert(ops.end(), {StepOp::kAttentionResidual, StepOp::kPostAttentionNorm});
  if (mlp == LayerMlp::kDense) {
    ops.insert(ops.end(), {StepOp::kGateUpProj, StepOp::kActivation, StepOp::kDownProj});
  } else {
    ops.insert(ops.end(), {StepOp::kMoeRouter, StepOp::kMoeExperts});
    if (moe_exchange) ops.push_back(StepOp::kMoeDispatchCombine);
    if (mlp == LayerMlp::kMoeWithSharedExpert) {
      ops.insert(ops.end(), {StepOp::kSharedExpertGateUp, StepOp::kSharedExpertActivation,
                             StepOp::kSharedExpertDown});
    }
  }
  if (tensor_parallel) ops.push_back(StepOp::kMlpAllReduce);
  ops.push_back(StepOp::kMlpResidual);
  return ops;
}

std::vector<LayerMlp> DenseLayers(int64_t layers) {
  EFIMSIM_CHECK(layers >= 1, "a model has at least one layer");
  return std::vector<LayerMlp>(static_cast<size_t>(layers), LayerMlp::kDense);
}

}  // namespace

StepGraph::StepGraph(int64_t layers, bool tensor_parallel)
    : StepGraph(DenseLayers(layers), tensor_parallel) {}

StepGraph::StepGraph(const std::vector<LayerMlp>& layers, bool tensor_parallel, bool mla,
                     bool moe_exchange) {
  EFIMSIM_CHECK(!layers.empty(), "a model has at least one layer");
  // Every layer's operators, then the head; each depends on the one before (a chain).
  std::vector<StepOp> op_of;
  for (const LayerMlp mlp : layers) {
    for (const StepOp op : LayerOperators(mlp, tensor_parallel, mla, moe_exchange)) op_of.push_back(op);
  }
  op_of.insert(op_of.end(), {StepOp::kFinalNorm, StepOp::kLmHead, StepOp::kSampling});
  std::array<bool, kStepOpCount> present{};
  for (const StepOp op : op_of) present[static_cast<size_t>(op)] = true;
  for (size_t i = 0; i < kStepOpCount; ++i) {
    if (present[i]) operators_.push_back(static_cast<StepOp>(i));
  }

  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS>;
  const size_t nodes = op_of.size();
  Graph graph(nodes);
  for (size_t v = 1; v < nodes; ++v) {
    boost::add_edge(v - 1, v, graph);  // the chain: layer after layer, then the head
  }

  std::vector<size_t> reverse_order;
  boost::topological_sort(graph, std::back_inserter(reverse_order));
  std::vector<int32_t> position(nodes);
  for (size_t i = 0; i < nodes; ++i) {
    position[reverse_order[nodes - 1 - i]] = static_cast<int32_t>(i);
  }
  node_op_.resize(nodes);
  predecessors_.resize(nodes);
  for (size_t v = 0; v < nodes; ++v) {
    const size_t at = static_cast<size_t>(position[v]);
    node_op_[at] = op_of[v];
    for (auto [it, end] = boost::in_edges(v, graph); it != end; ++it) {
      predecessors_[at].push_back(position[boost::source(*it, graph)]);
    }
    std::sort(predecessors_[at].begin(), predecessors_[at].end());
  }
  is_chain_ = true;
  for (size_t i = 0; i < nodes; ++i) {
    const bool chained = i == 0 ? predecessors_[i].empty()
                                : predecessors_[i].size() == 1 &&
                                      predecessors_[i][0] == static_cast<int32_t>(i - 1);
    is_chain_ = is_chain_ && chained;
    ++chain_count_by_op_[static_cast<size_t>(node_op_[i])];
  }
  // Runs of rounds in which the same operator kinds take part: they end
  // at each distinct positive count.
  for (const int64_t count : chain_count_by_op_) {
    if (count > 0) round_run_ends_.push_back(count);
  }
  std::sort(round_run_ends_.begin(), round_run_ends_.end());
  round_run_ends_.erase(std::unique(round_run_ends_.begin(), round_run_ends_.end()),
                        round_run_ends_.end());
}

CriticalPath StepGraph::Evaluate(std::span<const double> seconds_by_op) const {
  return Evaluate(seconds_by_op, std::numeric_limits<double>::infinity());
}

CriticalPath StepGraph::Evaluate(std::span<const double> seconds_by_op,
                                 double exact_below_seconds) const {
  if (!is_chain_) return EvaluateDag(seconds_by_op);
  EFIMSIM_CHECK(seconds_by_op.size() == kStepOpCount, "one duration per operator kind");
  for (const double own : seconds_by_op) {
    EFIMSIM_CHECK(own >= 0.0, "operator durations are >= 0");
  }
  CriticalPath path;
  path.count_by_op = chain_count_by_op_;
  // Each operator's own sum is a chain of additions of one value, in the
  // same order as EvaluateDag's. Within a run of rounds the same operators
  // take part, and the others add +0.0, which leaves a sum >= 0 unchanged
  // bit for bit; so each run is a plain loop over all kinds, which the
  // compiler vectorizes.
  int64_t round = 0;
  for (const int64_t run_end : round_run_ends_) {
    std::array<double, kStepOpCount> addend{};
    for (size_t op = 0; op < kStepOpCount; ++op) {
      addend[op] = chain_count_by_op_[op] > round ? seconds_by_op[op] : 0.0;
    }
    for (; round < run_end; ++round) {
      for (size_t op = 0; op < kStepOpCount; ++op) path.seconds_by_op[op] += addend[op];
    }
  }
  // The path's length, summed node by node as EvaluateDag does, is ~420
  // dependent additions. An estimate from the per-kind counts differs from
  // it by far less than kEstimateMargin (relative): both sum the same
  // non-negative terms, and recursive summation of n of them errs by at
  // most about n * 2^-53 relative. So when the estimate is clearly at or
  // above `exact_below_seconds`, so is the exact sum, and the estimate
  // stands in for it.
  constexpr double kEstimateMargin = 1e-12;
  double estimate = 0.0;
  for (size_t op = 0; op < kStepOpCount; ++op) {
    estimate += static_cast<double>(chain_count_by_op_[op]) * seconds_by_op[op];
  }
  if (estimate * (1.0 - kEstimateMargin) >= exact_below_seconds) {
    path.seconds = estimate;
    return path;
  }
  for (const StepOp op : node_op_) path.seconds += seconds_by_op[static_cast<size_t>(op)];
  return path;
}

CriticalPath StepGraph::EvaluateDag(std::span<const double> seconds_by_op) const {
  EFIMSIM_CHECK(seconds_by_op.size() == kStepOpCount, "one duration per operator kind");
  const size_t nodes = node_op_.size();
  std::vector<double> finish(nodes, 0.0);
  std::vector<int32_t> via(nodes, -1);  // predecessor on the longest path into the node
  for (size_t i = 0; i < nodes; ++i) {
    double start = 0.0;
    for (const int32_t p : predecessors_[i]) {
      if (via[i] < 0 || finish[static_cast<size_t>(p)] > start) {
        start = finish[static_cast<size_t>(p)];
        via[i] = p;
      }
    }
    const double own = seconds_by_op[static_cast<size_t>(node_op_[i])];
    EFIMSIM_CHECK(own >= 0.0, "operator durations are >= 0");
    finish[i] = start + own;
  }
  CriticalPath path;
  int32_t end = 0;
  for (size_t i = 1; i < nodes; ++i) {
    if (finish[i] >= finish[static_cast<size_t>(end)]) end = static_cast<int32_t>(i);
  }
  path.seconds = finish[static_cast<size_t>(end)];
  for (int32_t v = end; v >= 0; v = via[static_cast<size_t>(v)]) {
    const size_t op = static_cast<size_t>(node_op_[static_cast<size_t>(v)]);
    path.seconds_by_op[op] += seconds_by_op[op];
    path.count_by_op[op] += 1;
  }
  return path;
}

}  // namespace efimsim
