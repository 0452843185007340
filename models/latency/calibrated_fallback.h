#pragma once
// The calibrated fallback latency model: for a (GPU, model) pair without a
// measured kernel profile. Each operator costs its roofline time on the GPU's
// DATASHEET ceilings divided by an efficiency fitted per operator class on
// the GPUs AIConfigurator measured (notebooks/fit_fallback.py, docs/fallback.md):
//
//   t = t0 + (tf^p + tb^p)^(1/p),  tf = FLOPs / (eta_flops x datasheet compute),
//                                  tb = bytes / (eta_bytes x datasheet bandwidth)
//   efficiency = max(FLOPs / compute, bytes / bandwidth) / t
//
// All-reduces: FLOPs 0, bytes = the ring's 2 (tp - 1) / tp x message bytes,
// bandwidth = interconnect_gbps. Coefficients come from
// models/fallback/efficiency.json, compiled into the binary. Every operator
// time is flagged extrapolated (source "fallback (fitted efficiency)"): it is
// an approximation carried to this GPU, never a measurement of it.

#include <memory>
#include <string>
#include <vector>

#include "models/formats/embedded_files.h"
#include "models/latency/operator_timer.h"
#include "models/latency/step_latency_model.h"

namespace efimsim {

// |predicted / measured - 1| over the held-out points of a leave-one-GPU-out study.
struct FallbackErrorSummary {
  int64_t points = 0;
  double median = 0;
  double p90 = 0;
};

// One operator class's fitted curve. Invariants (checked by the parser):
// t0_seconds >= 0, eta_flops > 0, eta_bytes > 0, p >= 1.
struct EfficiencyCurve {
  double t0_seconds = 0;  // fixed time of one launch
  double eta_flops = 1;   // fraction of the compute ceiling reached by large works
  double eta_bytes = 1;   // fraction of the bandwidth ceiling reached by large works
  double p = 1;           // sharpness of the soft maximum (1: sum; large: max)
  std::string source;     // "fitted", or why not (elementwise: analytic constants)
  bool fitted = false;    // true when the study below exists
  FallbackErrorSummary fallback_error;  // pooled leave-one-GPU-out error of this curve
  FallbackErrorSummary roofline_error;  // the bare roofline's, on the same points

  // Seconds of one launch of `flops` FLOPs and `bytes` bytes on ceilings
  // `flops_per_second` and `bytes_per_second` (both > 0).
  double Seconds(double flops, double bytes, double flops_per_second,
                 double bytes_per_second) const;
  // max(flops / compute, bytes / bandwidth) / Seconds(...): in (0, max(eta)].
  double Efficiency(double flops, double bytes, double flops_per_second,
                    double bytes_per_second) const;
};

// A value the fitting script computed, for checking that this reader and the
// script agree on the form (tests/models/calibrated_fallback_test.cc).
struct FallbackCheck {
  std::string operator_class;  // "gemm", ..., "elementwise"
  std::string gpu;             // a built-in GPU spec name
  double flops = 0;
  double bytes = 0;
  double seconds = 0;
};

// The contents of models/fallback/efficiency.json.
struct FallbackCalibration {
  EfficiencyCurve gemm;
  EfficiencyCurve prefill_attention;
  EfficiencyCurve decode_attention;
  EfficiencyCurve elementwise;
  EfficiencyCurve all_reduce;
  std::vector<std::string> fitted_on;             // GPU spec names whose tables were fitted
  std::vector<std::string> all_reduce_fitted_on;  // the subset fitted for all_reduce
  std::string source;                             // the measured data the fit read
  std::string command;                            // how to regenerate the file
  std::vector<FallbackCheck> checks;

  // The curve of "gemm", "prefill_attention", "decode_attention",
  // "elementwise" or "all_reduce"; nullptr for another name.
  const EfficiencyCurve* Curve(const std::string& operator_class) const;
};

// Parser (calibrated_fallback_io.cc). Throws InputError naming `origin` and
// the field for a malformed file.
FallbackCalibration ParseFallbackCalibration(const std::string& json_text,
                                             const std::string& origin);
// models/fallback/efficiency.json as compiled in, parsed on first use.
const FallbackCalibration& BuiltinFallbackCalibration();
// The compiled-in files of models/fallback/ (generated calibrated_fallback_data.cc).
std::vector<EmbeddedFile> EmbeddedFallbackCalibrations();

class CalibratedFallbackOperatorTimer : public OperatorTimer {
 public:
  // Throws UsageError when shapes.tensor_parallel > 1 and the GPU spec has
  // no interconnect figure.
  CalibratedFallbackOperatorTimer(ShardShapes shapes, const GpuSpec& gpu,
                                  FallbackCalibration calibration);

  OperatorTime Gemm(GemmId id, int64_t m) const override;
  OperatorTime PrefillAttention(int64_t new_tokens, int64_t context_tokens) const override;
  OperatorTime DecodeAttention(int64_t batch, int64_t context_tokens) const override;
  OperatorTime DecodeAttentionShares(std::span<const SequenceWork> step,
                                     int64_t decodes) const override;
  OperatorTime Elementwise(ElementwiseId id, int64_t tokens) const override;
  OperatorTime AllReduce(int64_t tokens) const override;
  // The GEMM curve over the fused experts' work (uniform routing).
  OperatorTime MoeExperts(int64_t tokens) const override;
  OperatorTime MoeDispatchCombine(int64_t rank_tokens) const override;

 private:
  double Seconds(const EfficiencyCurve& curve, const OperatorWork& work) const;
  // At the FP8 ceiling: the BF16-fitted curve applied to FP8 GEMMs.
  double QuantizedSeconds(const EfficiencyCurve& curve, const OperatorWork& work) const;

  ShardShapes shapes_;
  double flops_per_second_;       // datasheet compute ceiling
  double fp8_flops_per_second_;   // datasheet FP8 ceiling (= BF16 without FP8 tensor cores)
  double bytes_per_second_;       // datasheet memory bandwidth
  double link_bytes_per_second_;  // one direction of one GPU's interconnect; 0: none
  double network_bytes_per_second_;  // one direction of one GPU's NIC; 0: none
  FallbackCalibration calibration_;
};

// The calibrated fallback as a step model: Name() "fallback"; Description()
// names the GPUs it was fitted on, the ceilings it carries, its
// leave-one-GPU-out error and says it is approximate. Throws UsageError for
// a bad tensor_parallel (models/latency/operator_work.h ShardModel). `reason`, why
// the fallback was chosen, starts Description().
std::unique_ptr<LatencyModel> MakeCalibratedFallbackLatencyModel(
    const ModelSpec& model, const GpuSpec& gpu, const CpuOverheadConfig& overhead,
    int64_t tensor_parallel, const std::string& reason = "");
// The same with a given calibration instead of the built-in one (tests).
std::unique_ptr<LatencyModel> MakeCalibratedFallbackLatencyModel(
    const ModelSpec& model, const GpuSpec& gpu, const CpuOverheadConfig& overhead,
    int64_t tensor_parallel, const FallbackCalibration& calibration);

}  // namespace efimsim
