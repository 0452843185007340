#include "models/latency/calibrated_fallback.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/base/check.h"
#include "sim/base/errors.h"

namespace efimsim {
namespace {

constexpr std::string_view kSource = "fallback (fitted efficiency)";

std::string Join(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

// "GEMM 10% (p90 26%)": the pooled leave-one-GPU-out error of a fitted curve.
std::string ErrorText(const char* label, const EfficiencyCurve& curve) {
  char text[96];
  std::snprintf(text, sizeof text, "%s %.0f%% (p90 %.0f%%)", label,
                100.0 * curve.fallback_error.median, 100.0 * curve.fallback_error.p90);
  return text;
}

class CalibratedFallbackLatencyModel : public StepLatencyModel {
 public:
  CalibratedFallbackLatencyModel(const ModelSpec& model, const GpuSpec& gpu,
                                 const CpuOverheadConfig& overhead, int64_t tensor_parallel,
                                 const FallbackCalibration& calibration, const std::string& reason)
      : StepLatencyModel(model, tensor_parallel, overhead, DefaultCaptureSizes(),
                         "estimated, not measured (models/README.md)",
                         std::make_unique<CalibratedFallbackOperatorTimer>(
                             ShardModel(model, tensor_parallel), gpu, calibration)),
        description_(reason + Describe(model, gpu, calibration)) {}

  std::string Name() const override { return "fallback"; }
  std::string Description() const override { return description_ + OverheadText(); }

 private:
  std::string Describe(const ModelSpec& model, const GpuSpec& gpu,
                       const FallbackCalibration& c) const;

  std::string description_;
};

std::string CalibratedFallbackLatencyModel::Describe(const ModelSpec& model, const GpuSpec& gpu,
                                                     const FallbackCalibration& c) const {
  const bool in_fit =
      std::find(c.fitted_on.begin(), c.fitted_on.end(), gpu.name) != c.fitted_on.end();
  char ceilings[192];
  std::snprintf(ceilings, sizeof ceilings, "%.0f TFLOP/s, %.2f TB/s", gpu.datasheet_bf16_tflops,
                gpu.datasheet_hbm_tbps);
  std::string text = "fallback (approximate, fitted efficiency, not measured on this GPU): "
                     "operators of " + model.name + " at the roofline of " + gpu.name +
                     "'s datasheet ceilings (" + ceilings + ")";
  if (TensorParallel() > 1) text += " and interconnect_gbps for the all-reduce";
  text += " divided by per-class efficiencies fitted on AIConfigurator's measured vLLM kernel "
          "tables of " + Join(c.fitted_on) + " (models/fallback/efficiency.json";
  text += in_fit ? "; this GPU's own tables are in the fit)" : ")";
  text += "; leave-one-GPU-out median |error| at real models' shapes: " +
          ErrorText("GEMM", c.gemm) + ", " + ErrorText("prefill attention", c.prefill_attention) +
          ", " + ErrorText("decode attention", c.decode_attention) + ", " +
          ErrorText("all-reduce", c.all_reduce) +
          "; elementwise from AIConfigurator's analytic constants, not fitted; TP=" +
          std::to_string(TensorParallel()) + "; ";
  return text;
}

}  // namespace

double EfficiencyCurve::Seconds(double flops, double bytes, double flops_per_second,
                                double bytes_per_second) const {
  const double tf = flops / (eta_flops * flops_per_second);
  const double tb = bytes / (eta_bytes * bytes_per_second);
  const double big = std::max(tf, tb);
  if (!(big > 0)) return t0_seconds;
  // Scaled by the larger term so neither power overflows nor underflows.
  const double soft = big * std::pow(std::pow(tf / big, p) + std::pow(tb / big, p), 1.0 / p);
  return t0_seconds + soft;
}

double EfficiencyCurve::Efficiency(double flops, double bytes, double flops_per_second,
                                   double bytes_per_second) const {
  const double roofline = std::max(flops / flops_per_second, bytes / bytes_per_second);
  return roofline / Seconds(flops, bytes, flops_per_second, bytes_per_second);
}

const EfficiencyCurve* FallbackCalibration::Curve(const std::string& operator_class) const {
  if (operator_class == "gemm") return &gemm;
  if (operator_class == "prefill_attention") return &prefill_attention;
  if (operator_class == "decode_attention") return &decode_attention;
  if (operator_class == "elementwise") return &elementwise;
  if (operator_class == "all_reduce") return &all_reduce;
  return nullptr;
}

CalibratedFallbackOperatorTimer::CalibratedFallbackOperatorTimer(ShardShapes shapes,
                                                                 const GpuSpec& gpu,
                                                                 FallbackCalibration calibration)
    : shapes_(shapes), flops_per_second_(gpu.datasheet_bf16_tflops * 1e12),
      fp8_flops_per_second_(gpu.datasheet_bf16_tflops * 1e12 * gpu.Fp8ComputeRatio()),
      bytes_per_second_(gpu.datasheet_hbm_tbps * 1e12),
      link_bytes_per_second_(gpu.interconnect_gbps * 1e9), network_bytes_per_second_(gpu.network_gbps * 1e9),
      calibration_(std::move(calibration)) {
  EFIMSIM_CHECK(flops_per_second_ > 0 && bytes_per_second_ > 0,
                "GPU datasheet ceilings must be positive");
  RequireInterconnect(shapes_, gpu);
}

double CalibratedFallbackOperatorTimer::Seconds(const EfficiencyCurve& curve,
                                                const OperatorWork& work) const {
  return curve.Seconds(work.flops, work.bytes, flops_per_second_, bytes_per_second_);
}

double CalibratedFallbackOperatorTimer::QuantizedSeconds(const EfficiencyCurve& curve,
                                                         const OperatorWork& work) const {
  return curve.Seconds(work.flops, work.bytes, fp8_flops_per_second_, bytes_per_second_);
}

OperatorTime CalibratedFallbackOperatorTimer::MoeExperts(int64_t tokens) const {
  const OperatorWork work = MoeExpertsWork(shapes_, static_cast<double>(tokens));
  const bool fp8 = shapes_.quantization != WeightQuantization::kNone;
  return {fp8 ? QuantizedSeconds(calibration_.gemm, work) : Seconds(calibration_.gemm, work), true,
          "fallback (GEMM efficiency)"};
}

OperatorTime CalibratedFallbackOperatorTimer::Gemm(GemmId id, int64_t m) const {
  const OperatorWork work = GemmWork(shapes_, id, static_cast<double>(m));
  if (GemmIsQuantized(shapes_, id)) return {QuantizedSeconds(calibration_.gemm, work), true, kSource};
  return {Seconds(calibration_.gemm, work), true, kSource};
}

OperatorTime CalibratedFallbackOperatorTimer::PrefillAttention(int64_t new_tokens,
                                                               int64_t context_tokens) const {
  const OperatorWork work = PrefillAttentionWork(shapes_, static_cast<double>(new_tokens),
                                                 static_cast<double>(context_tokens));
  return {Seconds(calibration_.prefill_attention, work), true, kSource};
}

OperatorTime CalibratedFallbackOperatorTimer::DecodeAttention(int64_t batch,
                                                              int64_t context_tokens) const {
  const OperatorWork work = DecodeAttentionWork(shapes_, static_cast<double>(batch),
                                                static_cast<double>(context_tokens));
  return {Seconds(calibration_.decode_attention, work), true, kSource};
}

OperatorTime CalibratedFallbackOperatorTimer::DecodeAttentionShares(
    std::span<const SequenceWork> step, int64_t decodes) const {
  // The default's arithmetic, in the same order, without a virtual call per
  // sequence: the same bits (tests/models/calibrated_fallback_test.cc).
  const double weight = 1.0 / static_cast<double>(decodes);
  const double batch = static_cast<double>(decodes);
  double seconds = 0.0;
  bool any = false;
  for (const SequenceWork& seq : step) {
    if (!AttendsAsDecode(seq)) continue;
    any = true;
    const OperatorWork work =
        DecodeAttentionWork(shapes_, batch, static_cast<double>(seq.context_tokens));
    seconds += weight * Seconds(calibration_.decode_attention, work);
  }
  return {seconds, any, any ? kSource : std::string_view()};
}

OperatorTime CalibratedFallbackOperatorTimer::Elementwise(ElementwiseId id, int64_t tokens) const {
  const OperatorWork work = ElementwiseWork(shapes_, id, static_cast<double>(tokens));
  return {Seconds(calibration_.elementwise, work), true, kSource};
}

OperatorTime CalibratedFallbackOperatorTimer::AllReduce(int64_t tokens) const {
  const double tp = static_cast<double>(shapes_.tensor_parallel);
  if (tp <= 1.0) return {0.0, true, kSource};
  const double ring_bytes =
      2.0 * (tp - 1.0) / tp * AllReduceBytes(shapes_, static_cast<double>(tokens));
  return {calibration_.all_reduce.Seconds(0.0, ring_bytes, flops_per_second_,
                                          link_bytes_per_second_),
          true, kSource};
}

OperatorTime CalibratedFallbackOperatorTimer::MoeDispatchCombine(int64_t rank_tokens) const {
  if (shapes_.data_parallel <= 1) return {0.0, true, kSource};
  // The ring all-reduce's calibration: the same bytes per GPU as an
  // all-gather plus a reduce-scatter. Across nodes the ring is bound by each
  // GPU's NIC; the NVLink-fitted efficiency is applied to it unchanged.
  const double bytes = MoeDispatchCombineBytes(shapes_, static_cast<double>(rank_tokens));
  const double link = shapes_.MoeGroupSpansNodes() ? network_bytes_per_second_ : link_bytes_per_second_;
  return {calibration_.all_reduce.Seconds(0.0, bytes, flops_per_second_, link), true, kSource};
}

const FallbackCalibration& BuiltinFallbackCalibration() {
  static const FallbackCalibration calibration = [] {
    for (const EmbeddedFile& file : EmbeddedFallbackCalibrations()) {
      if (file.name == "efficiency") {
        return ParseFallbackCalibration(std::string(file.text),
                                        "built-in models/fallback/efficiency.json");
      }
    }
    EFIMSIM_CHECK(false, "models/fallback/efficiency.json is not compiled in");
    return FallbackCalibration{};
  }();
  return calibration;
}

std::unique_ptr<LatencyModel> MakeCalibratedFallbackLatencyModel(
    const ModelSpec& model, const GpuSpec& gpu, const CpuOverheadConfig& overhead,
    int64_t tensor_parallel, const std::string& reason) {
  return std::make_unique<CalibratedFallbackLatencyModel>(model, gpu, overhead, tensor_parallel,
                                                          BuiltinFallbackCalibration(), reason);
}

std::unique_ptr<LatencyModel> MakeCalibratedFallbackLatencyModel(
    const ModelSpec& model, const GpuSpec& gpu, const CpuOverheadConfig& overhead,
    int64_t tensor_parallel, const FallbackCalibration& calibration) {
  return std::make_unique<CalibratedFallbackLatencyModel>(model, gpu, overhead, tensor_parallel,
                                                          calibration, "");
}

}  // namespace efimsim
