#include "models/latency/step_latency_model.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <string>

#include "sim/base/check.h"

namespace efimsim {

std::vector<int64_t> DefaultCaptureSizes() {
  std::vector<int64_t> sizes = {1, 2, 4};
  for (int64_t size = 8; size <= 512; size += 8) sizes.push_back(size);
  return sizes;
}

int64_t PadToCaptureSize(int64_t batch, const std::vector<int64_t>& sizes) {
  EFIMSIM_CHECK(!sizes.empty(), "capture sizes are non-empty");
  const auto it = std::lower_bound(sizes.begin(), sizes.end(), batch);
  return it == sizes.end() ? batch : *it;
}

int64_t PadToCaptureSize(int64_t batch) {
  static const std::vector<int64_t> sizes = DefaultCaptureSizes();
  return PadToCaptureSize(std::max<int64_t>(batch, 1), sizes);
}

namespace {

// "served with fp8 weights, fp8 KV cache; " or "" for the checkpoint's
// formats (so dense BF16 descriptions read as they always did).
std::string ServingText(const ModelSpec& model, int64_t tensor_parallel) {
  std::string text;
  auto add = [&](const std::string& phrase) { text += (text.empty() ? "" : ", ") + phrase; };
  if (model.quantization != WeightQuantization::kNone) {
    add(std::string(WeightQuantizationName(model.quantization)) + " weights");
  }
  if (model.kv_cache_dtype == KvCacheDtype::kFp8) add("fp8 KV cache");
  const bool data_parallel_moe = model.moe.IsMoe() && model.data_parallel > 1;
  if (model.expert_parallel) add(data_parallel_moe ? "experts spread over the data-parallel group's GPUs" : "experts spread over the TP group");
  if (data_parallel_moe) {
    add("MoE layers over " + std::to_string(model.data_parallel) +
        " data-parallel ranks (each rank padded to the largest batch; dispatch and combine priced at " +
        (GroupSpansNodes(model.data_parallel * tensor_parallel)
             ? "the network's bound, network_gbps: the group spans nodes of " + std::to_string(kGpusPerNode) + " GPUs"
             : std::string("the interconnect's bound")) +
        ", not measured)");
  }
  if (model.moe.IsMoe()) {
    add(std::string("MoE experts priced for ") + MoeRoutingName(model.moe_routing) + " routing" +
        (model.moe_routing == MoeRouting::kPowerLaw
             ? " (AIConfigurator's power_law_1.2 tables carry the skew; without one it is priced as uniform)"
             : ""));
  }
  return text.empty() ? text : "served with " + text + "; ";
}

}  // namespace

struct StepLatencyModel::Evaluation {
  std::array<OperatorTime, kStepOpCount> per_launch{};  // one instance of each operator
  // path.seconds is exact only where the launch time may exceed it
  // (StepGraph::Evaluate with a threshold); use launch_exposed_seconds.
  CriticalPath path;
  double step_seconds = 0;          // CPU: per-step constant
  double sequences_seconds = 0;     // CPU: per-sequence term
  double launch_exposed_seconds = 0;  // CPU: launch time not hidden behind the GPU
  int64_t gemm_tokens = 0;
  bool graph_step = false;
};

StepLatencyModel::StepLatencyModel(const ModelSpec& model, int64_t tensor_parallel,
                                   CpuOverheadConfig overhead, std::vector<int64_t> capture_sizes,
                                   std::string overhead_source,
                                   std::unique_ptr<OperatorTimer> timer)
    : shapes_(ShardModel(model, tensor_parallel)), overhead_(overhead),
      capture_sizes_(std::move(capture_sizes)), overhead_source_(std::move(overhead_source)),
      timer_(std::move(timer)),
      graph_(LayerMlps(model), tensor_parallel > 1, model.mla.IsMla(), model.moe.IsMoe() && model.data_parallel > 1),
      serving_text_(ServingText(model, tensor_parallel)) {
  EFIMSIM_CHECK(timer_ != nullptr, "a step model needs an operator timer");
  EFIMSIM_CHECK(!capture_sizes_.empty() && std::is_sorted(capture_sizes_.begin(), capture_sizes_.end()),
                "capture sizes sorted and non-empty");
}

std::string StepLatencyModel::OverheadText() const {
  char text[384];
  std::snprintf(text, sizeof text, "CPU overheads %s: step %.0f us, per sequence %.0f us, %s%s",
                overhead_source_.c_str(), overhead_.step_us, overhead_.per_sequence_us,
                overhead_.cuda_graphs ? "CUDA graphs for decode-only steps" : "eager mode",
                overhead_.overlap_host ? ", host work overlapped with the GPU (only max(0, host - GPU) adds)" : "");
  return serving_text_ + text;
}

namespace {

// A step's counts, each sequence checked.
struct BatchCounts {
  int64_t total_tokens = 0;
  int64_t emitting = 0;  // positions sampled (one per emitting sequence, 1 + drafts when verifying)
  int64_t decodes = 0;   // sequences attending as decodes (AttendsAsDecode)
  int64_t prefill_context_tokens = 0;  // cached tokens the prefill chunks attend over
};

BatchCounts CountBatch(std::span<const SequenceWork> batch) {
  BatchCounts counts;
  for (const SequenceWork& seq : batch) {
    EFIMSIM_CHECK(seq.new_tokens >= 1 && seq.context_tokens >= 0, "bad sequence work");
    counts.total_tokens += seq.new_tokens;
    counts.emitting += seq.emits_token ? seq.sampled_tokens : 0;
    const bool decode = AttendsAsDecode(seq);
    counts.decodes += decode ? 1 : 0;
    counts.prefill_context_tokens += decode ? 0 : seq.context_tokens;
  }
  return counts;
}

// One launch of each operator of the step graph, priced by `timer` over `m`
// GEMM rows (the step's tokens, padded on graph steps); attention, lm_head
// and sampling are "none" where the step has no such work; without tensor
// parallelism the all-reduces are left as they are. Allocation-free.
// The MLP operators the model has: dense layers' and MoE layers'.
void PriceMlps(const OperatorTimer& timer, const ShardShapes& shapes, int64_t m,
               std::array<OperatorTime, kStepOpCount>& per_launch) {
  auto set = [&](StepOp op, OperatorTime time) { per_launch[static_cast<size_t>(op)] = time; };
  if (shapes.DenseLayers() > 0) {
    set(StepOp::kGateUpProj, timer.Gemm(GemmId::kGateUpProj, m));
    set(StepOp::kActivation, timer.Elementwise(ElementwiseId::kActivation, m));
    set(StepOp::kDownProj, timer.Gemm(GemmId::kDownProj, m));
  }
  if (shapes.moe_layers == 0) return;
  set(StepOp::kMoeRouter, timer.Gemm(GemmId::kMoeRouter, m));
  // Every rank of a data-parallel group runs m rows (padded to the
  // largest); the experts see them all.
  set(StepOp::kMoeExperts, timer.MoeExperts(m * shapes.data_parallel));
  if (shapes.data_parallel > 1) set(StepOp::kMoeDispatchCombine, timer.MoeDispatchCombine(m));
  if (shapes.shared_expert_ffn > 0) {
    set(StepOp::kSharedExpertGateUp, timer.Gemm(GemmId::kSharedExpertGateUp, m));
    // The activation's work is linear in tokens x width: the shared
    // expert's is the dense one's at m x shared/ffn tokens.
    const int64_t equivalent = std::max<int64_t>(1, m * shapes.shared_expert_ffn / shapes.ffn);
    set(StepOp::kSharedExpertActivation, timer.Elementwise(ElementwiseId::kActivation, equivalent));
    set(StepOp::kSharedExpertDown, timer.Gemm(GemmId::kSharedExpertDown, m));
  }
}

// The operators whose price depends on the step's rows `m` alone (every
// other entry of `per_launch` is left as it is).
void PriceByRows(const OperatorTimer& timer, const ShardShapes& shapes, int64_t m,
                 std::array<OperatorTime, kStepOpCount>& per_launch) {
  auto set = [&](StepOp op, OperatorTime time) { per_launch[static_cast<size_t>(op)] = time; };
  set(StepOp::kInputNorm, timer.Elementwise(ElementwiseId::kRmsnorm, m));
  set(StepOp::kQkvProj, timer.Gemm(GemmId::kQkvProj, m));
  set(StepOp::kRope, timer.Elementwise(ElementwiseId::kRope, m));
  set(StepOp::kKvCacheWrite, timer.Elementwise(ElementwiseId::kKvCacheWrite, m));
  set(StepOp::kOProj, timer.Gemm(GemmId::kOProj, m));
  set(StepOp::kAttentionResidual, timer.Elementwise(ElementwiseId::kResidualAdd, m));
  set(StepOp::kPostAttentionNorm, timer.Elementwise(ElementwiseId::kRmsnorm, m));
  PriceMlps(timer, shapes, m, per_launch);
  set(StepOp::kMlpResidual, timer.Elementwise(ElementwiseId::kResidualAdd, m));
  if (shapes.tensor_parallel > 1) {
    set(StepOp::kAttentionAllReduce, timer.AllReduce(m));
    set(StepOp::kMlpAllReduce, timer.AllReduce(m));
  }
  set(StepOp::kFinalNorm, timer.Elementwise(ElementwiseId::kRmsnorm, m));
}

// The operators of the step that depend on more than its rows: MLA's
// kv_b_proj, attention (per sequence), and lm_head and sampling (over the
// emitting rows). `per_launch` holds PriceByRows(m)'s prices, and defaults
// elsewhere.
void PriceByBatch(const OperatorTimer& timer, const ShardShapes& shapes,
                  std::span<const SequenceWork> batch, const BatchCounts& counts, int64_t m,
                  std::array<OperatorTime, kStepOpCount>& per_launch) {
  auto set = [&](StepOp op, OperatorTime time) { per_launch[static_cast<size_t>(op)] = time; };
  auto add = [&](StepOp op, OperatorTime time, double weight) {
    AccumulateLaunch(per_launch[static_cast<size_t>(op)], time, weight);
  };
  if (shapes.IsMla()) {
    // kv_b_proj expands the latent of every token, and of the cached
    // context each prefill chunk attends over (vLLM's MLA prefill).
    set(StepOp::kKvBProj, timer.Gemm(GemmId::kKvBProj, m + counts.prefill_context_tokens));
  }
  // Decode sequences: 1/B of a B-decode kernel each, at its own context.
  if (counts.decodes > 0) set(StepOp::kDecodeAttention, timer.DecodeAttentionShares(batch, counts.decodes));
  for (const SequenceWork& seq : batch) {
    if (!AttendsAsDecode(seq)) {
      add(StepOp::kPrefillAttention, timer.PrefillAttention(seq.new_tokens, seq.context_tokens),
          1.0);
    }
  }
  for (StepOp op : {StepOp::kPrefillAttention, StepOp::kDecodeAttention}) {
    if (per_launch[static_cast<size_t>(op)].source.empty()) per_launch[static_cast<size_t>(op)].source = "none";
  }
  if (counts.emitting > 0) {
    set(StepOp::kLmHead, timer.Gemm(GemmId::kLmHead, counts.emitting));
    set(StepOp::kSampling, timer.Elementwise(ElementwiseId::kSampling, counts.emitting));
  } else {
    set(StepOp::kLmHead, {0.0, false, "none"});
    set(StepOp::kSampling, {0.0, false, "none"});
  }
}

}  // namespace

StepLatencyModel::Evaluation StepLatencyModel::Evaluate(std::span<const SequenceWork> batch,
                                                        int64_t group_rows) const {
  EFIMSIM_CHECK(!batch.empty(), "Predict on an empty batch");
  const BatchCounts counts = CountBatch(batch);
  const bool decode_only = counts.decodes == static_cast<int64_t>(batch.size());
  // A data-parallel rank runs the group's largest batch (padding rows).
  const int64_t rows = std::max(counts.total_tokens, group_rows);
  Evaluation e;
  e.graph_step = overhead_.cuda_graphs && decode_only && rows <= capture_sizes_.back();
  e.gemm_tokens = e.graph_step ? PadToCaptureSize(rows, capture_sizes_) : rows;
  // Steps repeat a few row counts (a full token budget, capture sizes):
  // the rows' prices are made once per change of count. Pure functions of
  // m, so the same values as pricing every step.
  if (rows_priced_.m != e.gemm_tokens) {
    rows_priced_.per_launch = {};
    PriceByRows(*timer_, shapes_, e.gemm_tokens, rows_priced_.per_launch);
    rows_priced_.m = e.gemm_tokens;
  }
  e.per_launch = rows_priced_.per_launch;
  PriceByBatch(*timer_, shapes_, batch, counts, e.gemm_tokens, e.per_launch);

  std::array<double, kStepOpCount> seconds{};
  for (size_t i = 0; i < seconds.size(); ++i) seconds[i] = e.per_launch[i].seconds;
  const double launch_seconds =
      1e-6 * (e.graph_step ? overhead_.graph_launch_us
                           : overhead_.eager_launch_per_layer_us * static_cast<double>(shapes_.layers));
  // Only max(0, launch - path) is used, so the exact path length is needed
  // only when it may be shorter than the launch time.
  e.step_seconds = 1e-6 * overhead_.step_us;
  e.sequences_seconds = 1e-6 * overhead_.per_sequence_us * static_cast<double>(batch.size());
  if (overhead_.overlap_host) {
    // All host work hides behind the GPU's step; the part that does not
    // adds, shared out over the host rows in proportion.
    const double host = e.step_seconds + e.sequences_seconds + launch_seconds;
    e.path = graph_.Evaluate(seconds, host);
    const double exposed = std::max(0.0, host - e.path.seconds);
    const double share = host > 0 ? exposed / host : 0.0;
    e.step_seconds *= share;
    e.sequences_seconds *= share;
    e.launch_exposed_seconds = launch_seconds * share;
    return e;
  }
  e.path = graph_.Evaluate(seconds, launch_seconds);
  e.launch_exposed_seconds = std::max(0.0, launch_seconds - e.path.seconds);
  return e;
}

StepBreakdown StepLatencyModel::Explain(std::span<const SequenceWork> batch) const {
  const Evaluation e = Evaluate(batch);
  StepBreakdown out;
  out.gemm_tokens = e.gemm_tokens;
  out.cuda_graph_step = e.graph_step;
  auto add_row = [&](OperatorCost row) {
    Duration* part = nullptr;
    switch (row.part) {
      case StepPart::kGemm: part = &out.cost.gemm; break;
      case StepPart::kAttention: part = &out.cost.attention; break;
      case StepPart::kElementwise: part = &out.cost.elementwise; break;
      case StepPart::kLmHead: part = &out.cost.lm_head; break;
      case StepPart::kCommunication: part = &out.cost.communication; break;
      case StepPart::kCpuOverhead: part = &out.cost.cpu_overhead; break;
    }
    *part += row.time;
    out.cost.extrapolated = out.cost.extrapolated || row.extrapolated;
    out.operators.push_back(std::move(row));
  };
  for (const StepOp op : graph_.Operators()) {
    const size_t i = static_cast<size_t>(op);
    const OperatorTime& launch = e.per_launch[i];
    add_row({std::string(StepOpName(op)), StepOpPart(op), FromSeconds(e.path.seconds_by_op[i]),
             e.path.count_by_op[i], launch.extrapolated && launch.seconds > 0,
             std::string(launch.source)});
  }
  add_row({"cpu_step", StepPart::kCpuOverhead, FromSeconds(e.step_seconds), 1, false,
           overhead_source_});
  add_row({"cpu_per_sequence", StepPart::kCpuOverhead, FromSeconds(e.sequences_seconds),
           static_cast<int64_t>(batch.size()), false, overhead_source_});
  add_row({e.graph_step ? "cpu_graph_launch_exposed" : "cpu_eager_launch_exposed",
           StepPart::kCpuOverhead, FromSeconds(e.launch_exposed_seconds), 1, false,
           overhead_source_});
  return out;
}

StepCost StepLatencyModel::Predict(std::span<const SequenceWork> batch) const {
  // Explain() without the strings, rounding each operator the same way, so
  // Predict(b) == Explain(b).cost exactly.
  return CostOf(Evaluate(batch));
}

StepCost StepLatencyModel::PredictInGroup(std::span<const SequenceWork> batch, int64_t group_rows) const {
  return CostOf(Evaluate(batch, group_rows));
}

StepCost StepLatencyModel::CostOf(const Evaluation& e) const {
  StepCost cost;
  for (const StepOp op : graph_.Operators()) {
    const size_t i = static_cast<size_t>(op);
    const Duration time = FromSeconds(e.path.seconds_by_op[i]);
    switch (StepOpPart(op)) {
      case StepPart::kGemm: cost.gemm += time; break;
      case StepPart::kAttention: cost.attention += time; break;
      case StepPart::kElementwise: cost.elementwise += time; break;
      case StepPart::kLmHead: cost.lm_head += time; break;
      case StepPart::kCommunication: cost.communication += time; break;
      case StepPart::kCpuOverhead: cost.cpu_overhead += time; break;
    }
    cost.extrapolated =
        cost.extrapolated || (e.per_launch[i].extrapolated && e.per_launch[i].seconds > 0);
  }
  cost.cpu_overhead += FromSeconds(e.step_seconds) + FromSeconds(e.sequences_seconds) +
                       FromSeconds(e.launch_exposed_seconds);
  return cost;
}

}  // namespace efimsim
