#include "models/latency/profile_latency_model.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>

#include "models/formats/profile_table.h"
#include "models/latency/profile_transfer.h"
#include "models/latency/roofline_fit.h"
#include "models/latency/roofline_latency_model.h"
#include "sim/base/errors.h"

namespace efimsim {
namespace {

// The roofline fit of a table's points, made on first use: a run looks
// beyond the grid of few tables, and a fit solves a least-squares problem
// per split of its points (about 2 ms of start-up over every table). The
// same fit whenever it is made. Not thread-safe, like the latency model that
// holds it: a model belongs to one run.
class LazyRooflineFit {
 public:
  explicit LazyRooflineFit(std::function<RooflineFit()> make) : make_(std::move(make)) {}
  const RooflineFit& Get() const {
    if (!fit_) fit_ = make_();
    return *fit_;
  }

 private:
  std::function<RooflineFit()> make_;
  mutable std::optional<RooflineFit> fit_;
};

// A measured table with the roofline fit of its own points. `work(x, y)`
// gives the operator's FLOPs and bytes at the profile's (full, TP=1) shapes.
// (A template, so that the table's fit calls the work formula directly: it
// runs for every lookup beyond the grid, e.g. every decode of a batch wider
// than the widest measured one.)
struct FittedTable {
  template <class Work>
  FittedTable(const std::vector<ProfileTable::Point>& points, double x_offset, double y_offset,
              Work work, const RooflineFit& initial, Interpolation interpolation)
      : lazy_fit(std::make_shared<const LazyRooflineFit>(
            [points, work, initial] { return Fit(points, work, initial); })),
        table(points, x_offset, y_offset,
              [fit = lazy_fit, work](double x, double y) { return fit->Get().Seconds(work(x, y)); },
              interpolation) {}

  template <class Work>
  static RooflineFit Fit(const std::vector<ProfileTable::Point>& points, const Work& work,
                         const RooflineFit& initial) {
    std::vector<RooflineFitSample> samples;
    for (const ProfileTable::Point& p : points) samples.push_back({work(p.x, p.y), p.seconds});
    return FitRoofline(samples, initial);
  }

  const RooflineFit& fit() const { return lazy_fit->Get(); }

  std::shared_ptr<const LazyRooflineFit> lazy_fit;  // shared with the table's extrapolation
  ProfileTable table;
};

std::vector<ProfileTable::Point> OneKeyPoints(const std::vector<ProfilePoint>& points) {
  std::vector<ProfileTable::Point> out;
  for (const ProfilePoint& p : points) out.push_back({1.0, static_cast<double>(p.key), p.time_us * 1e-6});
  return out;
}

std::vector<ProfileTable::Point> AttentionPoints(const AttentionTable& table) {
  std::vector<ProfileTable::Point> out;
  for (const AttentionPoint& p : table.points) {
    out.push_back({static_cast<double>(p.rows), static_cast<double>(p.context_tokens), p.time_us * 1e-6});
  }
  return out;
}

constexpr std::string_view kProfile = "profile";
constexpr std::string_view kProfileFit = "profile+fit";
constexpr std::string_view kNoTable = "roofline (no profile table)";
constexpr std::string_view kModelled = "profile (modelled table)";
constexpr std::string_view kShapeRule = "profile (shape rule)";
constexpr std::string_view kInMoe = "inside moe_experts (the source timed the whole block)";

// The shapes a table's times were measured at: `full` with the table's own
// weight (or KV-cache) format. Where it differs from the run's (a BF16 table
// pricing FP8 weights), Rescaled carries the time over by the table's fit.
ShardShapes WithWeightFormat(ShardShapes full, const std::string& weight_dtype) {
  if (weight_dtype == "bfloat16") {
    full.quantization = WeightQuantization::kNone;
    full.weight_bytes = full.dtype_bytes;
  }
  return full;
}
ShardShapes WithKvFormat(ShardShapes full, const std::string& kv_cache_dtype) {
  if (kv_cache_dtype == "bfloat16") full.kv_bytes = full.dtype_bytes;
  return full;
}

class ProfileOperatorTimer : public OperatorTimer {
 public:
  ProfileOperatorTimer(const ModelSpec& model, const GpuSpec& gpu, const KernelProfile& profile,
                       int64_t tensor_parallel)
      : full_(ShardModel(model, profile.tensor_parallel)), shard_(ShardModel(model, tensor_parallel)),
        roofline_(shard_, gpu) {
    const RooflineFit initial{1.0 / (gpu.achievable_bf16_tflops * 1e12),
                              1.0 / (gpu.achievable_hbm_tbps * 1e12), 0.0};
    const Interpolation interpolation = profile.interpolation;
    for (int g = 0; g < kGemmCount; ++g) {
      const GemmId id = static_cast<GemmId>(g);
      if (!HasGemm(full_, id)) continue;
      for (const GemmTable& table : profile.gemm) {
        if (table.name != GemmName(id)) continue;
        const ShardShapes full = WithWeightFormat(full_, table.weight_dtype);
        gemm_measured_[static_cast<size_t>(g)] = full;
        gemm_transferred_[static_cast<size_t>(g)] = table.transferred;
        gemm_[static_cast<size_t>(g)].emplace(
            OneKeyPoints(table.points), 0.0, 0.0,
            [full, id](double, double m) { return GemmWork(full, id, m); }, initial, interpolation);
      }
    }
    const ShardShapes full = full_;
    prefill_transferred_ = profile.prefill_attention.transferred;
    decode_transferred_ = profile.decode_attention.transferred;
    prefill_measured_ = WithKvFormat(full_, profile.prefill_attention.kv_cache_dtype);
    decode_measured_ = WithKvFormat(full_, profile.decode_attention.kv_cache_dtype);
    decode_exact_ = full_.tensor_parallel == shard_.tensor_parallel &&
                    decode_measured_.kv_bytes == shard_.kv_bytes;
    if (!profile.prefill_attention.points.empty()) {
      prefill_.emplace(AttentionPoints(profile.prefill_attention), 0.0, 1.0,
                       [m = prefill_measured_](double n, double c) { return PrefillAttentionWork(m, n, c); },
                       initial, interpolation);
    }
    if (!profile.decode_attention.points.empty()) {
      decode_.emplace(AttentionPoints(profile.decode_attention), 0.0, 1.0,
                      [m = decode_measured_](double b, double c) { return DecodeAttentionWork(m, b, c); },
                      initial, interpolation);
    }
    for (int e = 0; e < kElementwiseCount; ++e) {
      const ElementwiseId id = static_cast<ElementwiseId>(e);
      for (const ElementwiseTable& table : profile.elementwise) {
        if (table.name != ElementwiseName(id, full_.gated_mlp)) continue;
        elementwise_[static_cast<size_t>(e)].emplace(
            OneKeyPoints(table.points), 0.0, 0.0,
            [full, id](double, double tokens) { return ElementwiseWork(full, id, tokens); },
            initial, interpolation);
        elementwise_modelled_[static_cast<size_t>(e)] = table.Modelled();
      }
    }
    if (profile.moe && full_.moe_layers > 0) {
      moe_transferred_ = profile.moe->transferred;
      router_in_moe_ = profile.moe->includes_router;
      moe_measured_ = WithWeightFormat(full_, profile.moe->weight_dtype);
      // A table timed with tokens spread evenly over the experts is carried
      // to the run's routing by its fit (fewer experts touched: less to read).
      if (profile.moe->distribution == "balanced") moe_measured_.moe_routing = MoeRouting::kBalanced;
      if (profile.moe->distribution == "power_law_1.2") moe_measured_.moe_routing = MoeRouting::kPowerLaw;
      moe_.emplace(OneKeyPoints(profile.moe->points), 0.0, 0.0,
                   [m = moe_measured_](double, double tokens) { return MoeExpertsWork(m, tokens); },
                   initial, interpolation);
    }
    for (const AllReduceTable& table : profile.all_reduce) {
      if (table.tensor_parallel != tensor_parallel) continue;
      const ShardShapes shard = shard_;
      all_reduce_.emplace(
          OneKeyPoints(table.points), 0.0, 0.0,
          [shard](double, double tokens) { return OperatorWork{0.0, AllReduceBytes(shard, tokens)}; },
          RooflineFit{0.0, 1.0 / (gpu.interconnect_gbps > 0 ? gpu.interconnect_gbps * 1e9 : 1e11), 0.0},
          interpolation);
    }
  }


  OperatorTime Gemm(GemmId id, int64_t m) const override {
    if (id == GemmId::kMoeRouter && router_in_moe_) return {0.0, false, kInMoe};
    const auto& table = gemm_[static_cast<size_t>(id)];
    if (!table) return Fallback(roofline_.Gemm(id, m));
    const double md = static_cast<double>(m);
    return Marked(Rescaled(*table, table->table.Lookup(1.0, md),
                           GemmWork(gemm_measured_[static_cast<size_t>(id)], id, md),
                           GemmWork(shard_, id, md)),
                  gemm_transferred_[static_cast<size_t>(id)]);
  }

  OperatorTime PrefillAttention(int64_t new_tokens, int64_t context_tokens) const override {
    if (!prefill_) return Fallback(roofline_.PrefillAttention(new_tokens, context_tokens));
    const double n = static_cast<double>(new_tokens);
    const double c = static_cast<double>(context_tokens);
    return Marked(Rescaled(*prefill_, prefill_->table.Lookup(n, c), PrefillAttentionWork(prefill_measured_, n, c),
                           PrefillAttentionWork(shard_, n, c)),
                  prefill_transferred_);
  }

  OperatorTime DecodeAttention(int64_t batch, int64_t context_tokens) const override {
    if (!decode_) return Fallback(roofline_.DecodeAttention(batch, context_tokens));
    const double b = static_cast<double>(batch);
    const double c = static_cast<double>(context_tokens);
    return Marked(Rescaled(*decode_, decode_->table.Lookup(b, c), DecodeAttentionWork(decode_measured_, b, c),
                           DecodeAttentionWork(shard_, b, c)),
                  decode_transferred_);
  }

  OperatorTime DecodeAttentionShares(std::span<const SequenceWork> step,
                                     int64_t decodes) const override {
    if (!decode_ || !decode_exact_) {
      return OperatorTimer::DecodeAttentionShares(step, decodes);
    }
    // The default's arithmetic in the same order (bit-identical), with the
    // batch's rows found once for the whole step. Every share has the same
    // source rule, so AccumulateLaunch's outcome is known: the seconds sum
    // in order; extrapolated if any share is; the source is the shape
    // rule's for a transferred table, else the fit's if any share is
    // extrapolated, else the profile's.
    const double weight = 1.0 / static_cast<double>(decodes);
    const ProfileTable::AtX at = decode_->table.At(static_cast<double>(decodes));
    const ProfileTable& table = decode_->table;
    double seconds = 0;
    bool any = false;
    bool extrapolated = false;
    // The rows' remembered values, read directly; a context not
    // remembered yet takes the full lookup (which remembers it) and a
    // fresh view.
    ProfileTable::RememberedAt remembered = table.Remembering(at);
    constexpr size_t kPrefetchDistance = 8;  // sequences ahead
    for (size_t i = 0; i < std::min(step.size(), kPrefetchDistance); ++i) {
      ProfileTable::Prefetch(remembered, step[i].context_tokens);
    }
    for (size_t i = 0; i < step.size(); ++i) {
      if (i + kPrefetchDistance < step.size()) {
        ProfileTable::Prefetch(remembered, step[i + kPrefetchDistance].context_tokens);
      }
      const SequenceWork& seq = step[i];
      if (!AttendsAsDecode(seq)) continue;
      TableLookup lookup;
      if (!table.FindRemembered(remembered, seq.context_tokens, lookup)) {
        lookup = table.Lookup(at, seq.context_tokens);
        remembered = table.Remembering(at);
      }
      seconds += weight * lookup.seconds;
      extrapolated = extrapolated || lookup.extrapolated;
      any = true;
    }
    OperatorTime total;
    if (!any) return total;
    total.seconds = seconds;
    total.extrapolated = extrapolated || decode_transferred_;
    total.source = decode_transferred_ ? kShapeRule : extrapolated ? kProfileFit : kProfile;
    return total;
  }

  OperatorTime Elementwise(ElementwiseId id, int64_t tokens) const override {
    const auto& table = elementwise_[static_cast<size_t>(id)];
    if (!table) return Fallback(roofline_.Elementwise(id, tokens));
    const double t = static_cast<double>(tokens);
    OperatorTime time = Rescaled(*table, table->table.Lookup(1.0, t), ElementwiseWork(full_, id, t),
                                 ElementwiseWork(shard_, id, t));
    if (elementwise_modelled_[static_cast<size_t>(id)]) {
      time.extrapolated = true;
      time.source = kModelled;
    }
    return time;
  }

  OperatorTime MoeExperts(int64_t tokens) const override {
    if (!moe_) return Fallback(roofline_.MoeExperts(tokens));
    const double t = static_cast<double>(tokens);
    return Marked(Rescaled(*moe_, moe_->table.Lookup(1.0, t), MoeExpertsWork(moe_measured_, t),
                           MoeExpertsWork(shard_, t)),
                  moe_transferred_);
  }

  // No table: the link bound, flagged.
  OperatorTime MoeDispatchCombine(int64_t rank_tokens) const override {
    return Fallback(roofline_.MoeDispatchCombine(rank_tokens));
  }

  OperatorTime AllReduce(int64_t tokens) const override {
    if (!all_reduce_) {
      OperatorTime time = roofline_.AllReduce(tokens);
      time.extrapolated = true;
      return time;
    }
    const TableLookup lookup = all_reduce_->table.Lookup(1.0, static_cast<double>(tokens));
    return {lookup.seconds, lookup.extrapolated, lookup.extrapolated ? kProfileFit : kProfile};
  }

 private:
  // A lookup in a table the shape rule transferred from other shapes.
  static OperatorTime Marked(OperatorTime time, bool transferred) {
    if (transferred) {
      time.extrapolated = true;
      time.source = kShapeRule;
    }
    return time;
  }

  static OperatorTime Fallback(OperatorTime roofline) {
    return {roofline.seconds, true, kNoTable};
  }

  // The measured (full-shape) time, rescaled to the per-GPU shape by the fit.
  static OperatorTime Rescaled(const FittedTable& table, TableLookup lookup,
                               const OperatorWork& full, const OperatorWork& shard) {
    OperatorTime time{lookup.seconds, lookup.extrapolated, kProfile};
    if (full.flops != shard.flops || full.bytes != shard.bytes) {
      const double from = table.fit().Seconds(full);
      const double to = table.fit().Seconds(shard);
      if (from > 0 && to > 0) time.seconds *= to / from;
      time.extrapolated = true;
    }
    if (time.extrapolated) time.source = kProfileFit;
    return time;
  }

  ShardShapes full_;
  ShardShapes shard_;
  // The shapes each table was measured at (full_ in the table's own formats).
  std::array<ShardShapes, kGemmCount> gemm_measured_{};
  ShardShapes prefill_measured_;
  ShardShapes decode_measured_;
  ShardShapes moe_measured_;
  bool decode_exact_ = false;  // decode lookups need no rescaling
  RooflineOperatorTimer roofline_;
  std::array<std::optional<FittedTable>, kGemmCount> gemm_;
  std::optional<FittedTable> prefill_;
  std::optional<FittedTable> decode_;
  std::array<bool, kGemmCount> gemm_transferred_{};
  bool prefill_transferred_ = false;
  bool decode_transferred_ = false;
  std::array<std::optional<FittedTable>, kElementwiseCount> elementwise_;
  std::array<bool, kElementwiseCount> elementwise_modelled_{};
  std::optional<FittedTable> all_reduce_;
  std::optional<FittedTable> moe_;
  bool moe_transferred_ = false;
  bool router_in_moe_ = false;  // the MoE table's times include the router
};

// Checks the profile against the model and GPU it is used for (the GPU
// only under kRefuse).
const KernelProfile& CheckMatches(const KernelProfile& profile, const ModelSpec& model,
                                  const GpuSpec& gpu, OtherGpuProfile other_gpu) {
  const std::string& origin = profile.origin;
  if (profile.model != model.name) {
    throw InputError(origin, 0, "model",
                     "profile is for model \"" + profile.model + "\", not \"" + model.name + "\"");
  }
  if (profile.gpu != gpu.name && other_gpu == OtherGpuProfile::kRefuse) {
    throw InputError(origin, 0, "gpu",
                     "profile is for GPU \"" + profile.gpu + "\", not \"" + gpu.name + "\"");
  }
  const ShardShapes full = ShardModel(model, profile.tensor_parallel);
  for (size_t i = 0; i < profile.gemm.size(); ++i) {
    const GemmTable& table = profile.gemm[i];
    for (int g = 0; g < kGemmCount; ++g) {
      if (table.name != GemmName(static_cast<GemmId>(g)) || !HasGemm(full, static_cast<GemmId>(g))) continue;
      const GemmShape shape = GemmShapeOf(full, static_cast<GemmId>(g));
      if (table.n != shape.n || table.k != shape.k) {
        throw InputError(origin, 0, "gemm[" + std::to_string(i) + "].n",
                         table.name + " is " + std::to_string(table.n) + "x" + std::to_string(table.k) +
                             " (n x k), the model's is " + std::to_string(shape.n) + "x" +
                             std::to_string(shape.k));
      }
    }
  }
  for (const auto& [key, table] : {std::pair<const char*, const AttentionTable*>{"prefill_attention", &profile.prefill_attention},
                                   std::pair<const char*, const AttentionTable*>{"decode_attention", &profile.decode_attention}}) {
    if (table->points.empty()) continue;
    if (table->q_heads != full.q_heads || table->kv_heads != full.kv_heads ||
        table->head_dim != full.head_dim) {
      throw InputError(origin, 0, std::string(key) + ".q_heads",
                       "heads (q, kv, dim) differ from the model's (" + std::to_string(full.q_heads) +
                           ", " + std::to_string(full.kv_heads) + ", " +
                           std::to_string(full.head_dim) + ") per GPU at TP " +
                           std::to_string(full.tensor_parallel));
    }
  }
  return profile;
}

// Operators of the model with no table in the profile, comma-separated.
std::string MissingTables(const KernelProfile& profile, const ShardShapes& full) {
  const bool gated_mlp = full.gated_mlp;
  std::string out;
  auto check = [&](std::string_view name, bool found) {
    if (!found) out += (out.empty() ? "" : ", ") + std::string(name);
  };
  for (int g = 0; g < kGemmCount; ++g) {
    if (!HasGemm(full, static_cast<GemmId>(g))) continue;
    const std::string_view name = GemmName(static_cast<GemmId>(g));
    check(name, std::any_of(profile.gemm.begin(), profile.gemm.end(),
                            [&](const GemmTable& t) { return t.name == name; }));
  }
  check("prefill_attention", !profile.prefill_attention.points.empty());
  check("decode_attention", !profile.decode_attention.points.empty());
  if (full.moe_layers > 0) check("moe_experts", profile.moe.has_value());
  for (int e = 0; e < kElementwiseCount; ++e) {
    const std::string_view name = ElementwiseName(static_cast<ElementwiseId>(e), gated_mlp);
    check(name, std::any_of(profile.elementwise.begin(), profile.elementwise.end(),
                            [&](const ElementwiseTable& t) { return t.name == name; }));
  }
  return out;
}

CpuOverheadConfig ResolvedOverhead(CpuOverheadConfig overhead, const KernelProfile& profile) {
  if (profile.cpu_overhead.Measured()) {
    overhead.step_us = profile.cpu_overhead.step_us;
    overhead.per_sequence_us = profile.cpu_overhead.per_sequence_us;
    overhead.eager_launch_per_layer_us = profile.cpu_overhead.per_layer_launch_us;
  }
  return overhead;
}

// The operator timer of `profile` on `gpu`: its own, or under kCarry for a
// profile of another GPU, its own on that GPU carried to `gpu`.
std::unique_ptr<OperatorTimer> MakeProfileTimer(const ModelSpec& model, const GpuSpec& gpu,
                                                const KernelProfile& profile, int64_t tensor_parallel,
                                                OtherGpuProfile other_gpu) {
  if (profile.gpu == gpu.name || other_gpu == OtherGpuProfile::kRefuse) {
    return std::make_unique<ProfileOperatorTimer>(model, gpu, profile, tensor_parallel);
  }
  const GpuSpec measured_on = ProfileGpuSpec(profile);
  return CarryTimerToGpu(std::make_unique<ProfileOperatorTimer>(model, measured_on, profile, tensor_parallel),
                         ShardModel(model, tensor_parallel), measured_on, gpu,
                         BuiltinFallbackCalibration());
}

std::string ProfileOverheadSource(const KernelProfile& profile) {
  return profile.cpu_overhead.Measured() ? "from the profile (" + profile.cpu_overhead.source + ")"
                                         : std::string("estimated, not measured (models/README.md)");
}

}  // namespace

ProfileLatencyModel::ProfileLatencyModel(ModelSpec model, GpuSpec gpu, CpuOverheadConfig overhead,
                                         KernelProfile profile, int64_t tensor_parallel,
                                         std::string selection, OtherGpuProfile other_gpu)
    : StepLatencyModel(
          model, tensor_parallel, ResolvedOverhead(overhead, CheckMatches(profile, model, gpu, other_gpu)),
          profile.cpu_overhead.graph_capture_batch_sizes, ProfileOverheadSource(profile),
          MakeProfileTimer(model, gpu, profile, tensor_parallel, other_gpu)),
      model_(std::move(model)), gpu_(std::move(gpu)), profile_(std::move(profile)),
      selection_(std::move(selection)), carried_(profile_.gpu != gpu_.name) {
  missing_tables_ = MissingTables(profile_, ShardModel(model_, profile_.tensor_parallel));
}

std::string ProfileLatencyModel::Description() const {
  const ProfileProvenance& p = profile_.provenance;
  std::string text = (selection_.empty() ? "" : selection_ + ": ") + "profile " + profile_.gpu + "/" +
                     profile_.model + " (" + profile_.origin + "): ";
  if (profile_.source) {
    text += "imported " + profile_.source->kind + " measurements on " + p.gpu_name + " " +
            p.date_utc + " (" + profile_.source->stack + "; not efimsim's kernels)";
  } else {
    text += "kernels measured on " + p.gpu_name + " " + p.date_utc + ", commit " + p.git_commit +
            ", CUDA " + p.cuda_runtime_version + " (gemm " + profile_.gemm_kernel + ", prefill " +
            profile_.prefill_attention_kernel + ", decode " + profile_.decode_attention_kernel + ")";
  }
  text += std::string("; ") + InterpolationName(profile_.interpolation) +
          " interpolation, roofline-shaped fit beyond the grid (flagged)";
  std::string modelled;
  for (const ElementwiseTable& t : profile_.elementwise) {
    if (t.Modelled()) modelled += (modelled.empty() ? "" : ", ") + t.name;
  }
  if (!modelled.empty()) text += "; modelled, not measured: " + modelled + " (flagged)";
  if (!missing_tables_.empty()) text += "; roofline for untabled " + missing_tables_;
  if (carried_) {
    text += "; carried from " + profile_.gpu + " to " + gpu_.name +
            " by the calibrated fallback's ratios (each operator's time x fallback(" + gpu_.name +
            ") / fallback(" + profile_.gpu + ") of its work; approximate, flagged)";
  }
  text += "; TP=" + std::to_string(TensorParallel());
  if (TensorParallel() > 1) {
    const bool table = std::any_of(profile_.all_reduce.begin(), profile_.all_reduce.end(),
                                   [&](const AllReduceTable& t) { return t.tensor_parallel == TensorParallel(); });
    text += table ? " (all-reduce from the profile)" : " (all-reduce: ring over interconnect_gbps)";
  }
  return text + "; " + OverheadText();
}

ProfileCpuOverhead DefaultProfileCpuOverhead() {
  ProfileCpuOverhead c;
  c.source = "default";
  const CpuOverheadConfig defaults;
  c.step_us = defaults.step_us;
  c.per_sequence_us = defaults.per_sequence_us;
  c.per_layer_launch_us = defaults.eager_launch_per_layer_us;
  c.graph_capture_batch_sizes = DefaultCaptureSizes();
  return c;
}

}  // namespace efimsim
