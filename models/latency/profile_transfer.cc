#include "models/latency/profile_transfer.h"

#include <algorithm>

#include "models/latency/operator_work.h"
#include "models/latency/profile_latency_model.h"
#include "models/latency/roofline_fit.h"
#include "models/formats/spec_catalog.h"
#include "sim/base/errors.h"

namespace efimsim {
namespace {

// The datasheet ceilings the shape rule measures utilisation against.
ShapeCeilings DatasheetCeilings(const GpuSpec& gpu) {
  return {gpu.datasheet_bf16_tflops * 1e12, gpu.datasheet_hbm_tbps * 1e12};
}


std::vector<ShapeGemmTable> ShapeGemms(const KernelProfile& profile) {
  std::vector<ShapeGemmTable> out;
  for (const GemmTable& t : profile.gemm) {
    const bool seen = std::any_of(out.begin(), out.end(),
                                  [&](const ShapeGemmTable& s) { return s.n == t.n && s.k == t.k; });
    if (!seen) out.push_back({t.n, t.k, t.points});
  }
  std::sort(out.begin(), out.end(), [](const ShapeGemmTable& a, const ShapeGemmTable& b) {
    return std::pair(a.n, a.k) < std::pair(b.n, b.k);
  });
  return out;
}

// The source's measured (new, cached) prefill grid carried to `to`'s heads
// by the utilisation rule: time x SOL(to) / SOL(source heads) per point.
std::vector<AttentionPoint> TransferPrefillGrid(const AttentionTable& source, const ShardShapes& to,
                                                const ShapeCeilings& ceilings) {
  const ShardShapes from = HeadShapes({source.q_heads, source.kv_heads, source.head_dim});
  if (from.q_heads == to.q_heads && from.kv_heads == to.kv_heads && from.head_dim == to.head_dim) {
    return source.points;
  }
  std::vector<AttentionPoint> out;
  for (const AttentionPoint& p : source.points) {
    const double n = static_cast<double>(p.rows), c = static_cast<double>(p.context_tokens);
    const double sol_from = SolSeconds(ceilings, PrefillAttentionWork(from, n, c));
    const double sol_to = SolSeconds(ceilings, PrefillAttentionWork(to, n, c));
    out.push_back({p.rows, p.context_tokens, sol_from > 0 ? p.time_us * (sol_to / sol_from) : p.time_us});
  }
  return out;
}

// One elementwise table of `from`'s operator `id` rescaled to `to`'s work
// at the same tokens by the table's roofline-shaped fit; unchanged when
// the work is the same at every point.
ElementwiseTable RescaledElementwise(const ElementwiseTable& table, ElementwiseId id,
                                     const ShardShapes& from, const ShardShapes& to,
                                     const GpuSpec& gpu, const std::string& text) {
  std::vector<RooflineFitSample> samples;
  bool same = true;
  for (const ProfilePoint& p : table.points) {
    const double tokens = static_cast<double>(p.key);
    const OperatorWork a = ElementwiseWork(from, id, tokens), b = ElementwiseWork(to, id, tokens);
    same = same && a.flops == b.flops && a.bytes == b.bytes;
    if (p.time_us > 0) samples.push_back({a, p.time_us * 1e-6});
  }
  ElementwiseTable out = table;
  out.name = std::string(ElementwiseName(id, to.gated_mlp));
  if (same || samples.empty()) return out;
  const RooflineFit fit = FitRoofline(samples, {1.0 / (gpu.achievable_bf16_tflops * 1e12),
                                                1.0 / (gpu.achievable_hbm_tbps * 1e12), 0.0});
  for (ProfilePoint& p : out.points) {
    const double tokens = static_cast<double>(p.key);
    const double a = fit.Seconds(ElementwiseWork(from, id, tokens));
    const double b = fit.Seconds(ElementwiseWork(to, id, tokens));
    if (a > 0 && b > 0) p.time_us *= b / a;
  }
  out.source = (table.Modelled() ? table.source : "modelled: measured") + "; " + text;
  return out;
}

std::vector<ElementwiseTable> TransferElementwise(const KernelProfile& profile, const ShardShapes& from,
                                                  const ShardShapes& to, const GpuSpec& gpu,
                                                  const std::string& target) {
  const std::string text = "rescaled from " + profile.model + " to " + target +
                           " by the table's roofline-shaped fit";
  std::vector<ElementwiseTable> out;
  for (int e = 0; e < kElementwiseCount; ++e) {
    const ElementwiseId id = static_cast<ElementwiseId>(e);
    for (const ElementwiseTable& table : profile.elementwise) {
      if (table.name == ElementwiseName(id, from.gated_mlp)) {
        out.push_back(RescaledElementwise(table, id, from, to, gpu, text));
      }
    }
  }
  return out;
}

// `measured` carried to another GPU: each time x fallback(to) / fallback(from).
class CarriedOperatorTimer : public OperatorTimer {
 public:
  CarriedOperatorTimer(std::unique_ptr<OperatorTimer> measured, const ShardShapes& shapes,
                       const GpuSpec& from, const GpuSpec& to, const FallbackCalibration& calibration)
      : measured_(std::move(measured)), from_(shapes, from, calibration), to_(shapes, to, calibration),
        source_("profile carried to " + to.name) {}

  OperatorTime Gemm(GemmId id, int64_t m) const override {
    return Carried(measured_->Gemm(id, m), from_.Gemm(id, m), to_.Gemm(id, m));
  }
  OperatorTime PrefillAttention(int64_t new_tokens, int64_t context_tokens) const override {
    return Carried(measured_->PrefillAttention(new_tokens, context_tokens),
                   from_.PrefillAttention(new_tokens, context_tokens),
                   to_.PrefillAttention(new_tokens, context_tokens));
  }
  // DecodeAttentionShares: the base class's, per sequence through this.
  OperatorTime DecodeAttention(int64_t batch, int64_t context_tokens) const override {
    return Carried(measured_->DecodeAttention(batch, context_tokens),
                   from_.DecodeAttention(batch, context_tokens), to_.DecodeAttention(batch, context_tokens));
  }
  OperatorTime Elementwise(ElementwiseId id, int64_t tokens) const override {
    return Carried(measured_->Elementwise(id, tokens), from_.Elementwise(id, tokens),
                   to_.Elementwise(id, tokens));
  }
  OperatorTime AllReduce(int64_t tokens) const override {
    return Carried(measured_->AllReduce(tokens), from_.AllReduce(tokens), to_.AllReduce(tokens));
  }
  OperatorTime MoeExperts(int64_t tokens) const override {
    return Carried(measured_->MoeExperts(tokens), from_.MoeExperts(tokens), to_.MoeExperts(tokens));
  }
  OperatorTime MoeDispatchCombine(int64_t rank_tokens) const override {
    return Carried(measured_->MoeDispatchCombine(rank_tokens), from_.MoeDispatchCombine(rank_tokens),
                   to_.MoeDispatchCombine(rank_tokens));
  }

 private:
  OperatorTime Carried(OperatorTime time, const OperatorTime& from, const OperatorTime& to) const {
    if (from.seconds > 0) time.seconds *= to.seconds / from.seconds;
    time.extrapolated = true;
    time.source = source_;  // lives as long as this timer, i.e. its latency model
    return time;
  }

  std::unique_ptr<OperatorTimer> measured_;
  CalibratedFallbackOperatorTimer from_;
  CalibratedFallbackOperatorTimer to_;
  std::string source_;
};

}  // namespace

ShapeProfile ShapeProfileFromKernelProfile(const KernelProfile& profile, const ModelSpec& its_model,
                                           const GpuSpec& gpu) {
  if (profile.model != its_model.name) {
    throw InputError(profile.origin, 0, "model",
                     "profile is for model \"" + profile.model + "\", not \"" + its_model.name + "\"");
  }
  ShapeProfile out;
  out.origin = profile.origin;
  out.gpu = profile.gpu;
  out.command = profile.command;
  out.source = profile.source ? *profile.source : ProfileSource{ProfileSourceName(profile), profile.gemm_kernel, "", {}};
  out.device = profile.provenance.gpu_name;
  out.measured_on = profile.provenance.date_utc;
  out.ceilings = DatasheetCeilings(gpu);
  out.elementwise = {gpu.datasheet_hbm_tbps * 1e12, 1.0, 0.0};
  out.gemm = ShapeGemms(profile);
  const AttentionTable& prefill = profile.prefill_attention;
  ShapePrefillTable no_cache{{prefill.q_heads, prefill.kv_heads, prefill.head_dim}, {}};
  for (const AttentionPoint& p : prefill.points) {
    if (p.context_tokens == 0) no_cache.points.push_back({p.rows, p.time_us});
  }
  if (!no_cache.points.empty()) out.prefill_attention.push_back(std::move(no_cache));
  const AttentionTable& decode = profile.decode_attention;
  if (!decode.points.empty()) {
    out.decode_attention.push_back({{decode.q_heads, decode.kv_heads, decode.head_dim}, decode.points});
  }
  const ShardShapes shapes = ShardModel(its_model, profile.tensor_parallel);
  for (const AllReduceTable& t : profile.all_reduce) {
    ShapeAllReduceTable table{t.tensor_parallel, {}};
    for (const ProfilePoint& p : t.points) {
      table.points.push_back({static_cast<int64_t>(AllReduceBytes(shapes, static_cast<double>(p.key))), p.time_us});
    }
    out.all_reduce.push_back(std::move(table));
  }
  std::sort(out.all_reduce.begin(), out.all_reduce.end(),
            [](const ShapeAllReduceTable& a, const ShapeAllReduceTable& b) { return a.gpus < b.gpus; });
  if (profile.moe && shapes.moe_layers > 0) {
    // Keyed as the shape rule looks it up: the full expert, the profile's
    // MoE TP and EP.
    ShapeMoeTable moe;
    moe.key = {profile.moe->weight_dtype, shapes.hidden, shapes.expert_ffn * shapes.MoeTensorParallel(),
               shapes.experts_per_token, shapes.experts, shapes.MoeTensorParallel(), shapes.expert_parallel,
               profile.moe->distribution};
    moe.kernel = profile.moe->kernel;
    moe.includes_router = profile.moe->includes_router;
    moe.points = profile.moe->points;
    out.moe.push_back(std::move(moe));
  }
  return out;
}

KernelProfile TransferKernelProfile(const KernelProfile& profile, const ModelSpec& its_model,
                                    const ModelSpec& target, const GpuSpec& gpu,
                                    int64_t tensor_parallel, ShapeResolution* resolution) {
  const ShapeProfile shapes = ShapeProfileFromKernelProfile(profile, its_model, gpu);
  KernelProfile out = ResolveShapeProfile(shapes, target, tensor_parallel, resolution);
  const ShardShapes from = ShardModel(its_model, profile.tensor_parallel);
  const ShardShapes to = ShardModel(target, tensor_parallel);
  out.prefill_attention.points = TransferPrefillGrid(profile.prefill_attention, to, shapes.ceilings);
  out.prefill_attention.block_tokens = profile.prefill_attention.block_tokens;
  out.decode_attention.block_tokens = profile.decode_attention.block_tokens;
  out.elementwise = TransferElementwise(profile, from, to, gpu, target.name);
  out.command = profile.command;
  out.gemm_kernel = profile.gemm_kernel;
  out.prefill_attention_kernel = profile.prefill_attention_kernel;
  out.decode_attention_kernel = profile.decode_attention_kernel;
  out.elementwise_kernel = profile.elementwise_kernel;
  out.provenance = profile.provenance;
  out.source = profile.source;
  out.interpolation = profile.interpolation;
  out.cpu_overhead = profile.cpu_overhead;
  return out;
}

std::unique_ptr<OperatorTimer> CarryTimerToGpu(std::unique_ptr<OperatorTimer> measured,
                                               const ShardShapes& shapes, const GpuSpec& from,
                                               const GpuSpec& to,
                                               const FallbackCalibration& calibration) {
  return std::make_unique<CarriedOperatorTimer>(std::move(measured), shapes, from, to, calibration);
}

namespace {

// `load(name)`, or InputError naming the profile's `field` when `name` is
// no built-in spec (LoadModelSpec / LoadGpuSpec throw UsageError).
template <typename Spec>
Spec BuiltinSpecOf(const KernelProfile& profile, Spec (*load)(const std::string&), const std::string& field,
                   const std::string& name) {
  try {
    return load(name);
  } catch (const UsageError&) {
    throw InputError(profile.origin, 0, field,
                     "profile is for " + field + " \"" + name + "\", not a built-in " + field +
                         " spec, so it cannot be transferred or carried");
  }
}

}  // namespace

ModelSpec ProfileModelSpec(const KernelProfile& profile) {
  return BuiltinSpecOf(profile, &LoadModelSpec, "model", profile.model);
}

GpuSpec ProfileGpuSpec(const KernelProfile& profile) {
  return BuiltinSpecOf(profile, &LoadGpuSpec, "gpu", profile.gpu);
}

std::unique_ptr<LatencyModel> MakeTransferredProfileModel(const ModelSpec& model,
                                                          const GpuSpec& gpu,
                                                          const CpuOverheadConfig& overhead,
                                                          KernelProfile profile,
                                                          int64_t tensor_parallel) {
  std::string selection;
  if (profile.model != model.name) {
    selection = "auto: " + profile.model + " tables transferred to " + model.name +
                " by the shape rule (models/latency/profile_transfer.h; approximate, flagged)";
    profile = TransferKernelProfile(profile, ProfileModelSpec(profile), model, ProfileGpuSpec(profile),
                                    tensor_parallel);
  }
  return std::make_unique<ProfileLatencyModel>(model, gpu, overhead, std::move(profile), tensor_parallel,
                                               std::move(selection), OtherGpuProfile::kCarry);
}

}  // namespace efimsim
