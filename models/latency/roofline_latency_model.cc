#include "models/latency/roofline_latency_model.h"

#include <algorithm>
#include <cstdio>

#include "sim/base/check.h"
#include "sim/base/errors.h"

namespace efimsim {

RooflineOperatorTimer::RooflineOperatorTimer(ShardShapes shapes, const GpuSpec& gpu)
    : shapes_(shapes), flops_per_second_(gpu.achievable_bf16_tflops * 1e12),
      fp8_flops_per_second_(gpu.achievable_bf16_tflops * 1e12 * gpu.Fp8ComputeRatio()),
      bytes_per_second_(gpu.achievable_hbm_tbps * 1e12),
      link_bytes_per_second_(gpu.interconnect_gbps * 1e9),
      link_latency_seconds_(gpu.interconnect_latency_us * 1e-6),
      network_bytes_per_second_(gpu.network_gbps * 1e9),
      network_latency_seconds_(gpu.network_latency_us * 1e-6) {
  EFIMSIM_CHECK(flops_per_second_ > 0 && bytes_per_second_ > 0, "GPU ceilings must be positive");
  RequireInterconnect(shapes_, gpu);
}

double RooflineOperatorTimer::Seconds(const OperatorWork& work) const {
  return std::max(work.flops / flops_per_second_, work.bytes / bytes_per_second_);
}

double RooflineOperatorTimer::QuantizedSeconds(const OperatorWork& work) const {
  return std::max(work.flops / fp8_flops_per_second_, work.bytes / bytes_per_second_);
}

double RooflineOperatorTimer::AllReduceSeconds(double bytes) const {
  const double tp = static_cast<double>(shapes_.tensor_parallel);
  if (tp <= 1.0) return 0.0;
  return 2.0 * (tp - 1.0) / tp * bytes / link_bytes_per_second_ + link_latency_seconds_;
}

OperatorTime RooflineOperatorTimer::Gemm(GemmId id, int64_t m) const {
  const OperatorWork work = GemmWork(shapes_, id, static_cast<double>(m));
  const bool fp8 = GemmIsQuantized(shapes_, id);
  return {fp8 ? QuantizedSeconds(work) : Seconds(work), false, "roofline"};
}

OperatorTime RooflineOperatorTimer::MoeExperts(int64_t tokens) const {
  const OperatorWork work = MoeExpertsWork(shapes_, static_cast<double>(tokens));
  const bool fp8 = shapes_.quantization != WeightQuantization::kNone;
  return {fp8 ? QuantizedSeconds(work) : Seconds(work), false, "roofline"};
}

OperatorTime RooflineOperatorTimer::PrefillAttention(int64_t new_tokens,
                                                     int64_t context_tokens) const {
  return {Seconds(PrefillAttentionWork(shapes_, static_cast<double>(new_tokens),
                                       static_cast<double>(context_tokens))),
          false, "roofline"};
}

OperatorTime RooflineOperatorTimer::DecodeAttention(int64_t batch, int64_t context_tokens) const {
  return {Seconds(DecodeAttentionWork(shapes_, static_cast<double>(batch),
                                      static_cast<double>(context_tokens))),
          false, "roofline"};
}

OperatorTime RooflineOperatorTimer::DecodeAttentionShares(std::span<const SequenceWork> step,
                                                          int64_t decodes) const {
  // The default's arithmetic, in the same order, without a virtual call and
  // an OperatorTime per sequence: bit-identical (tests/models check it).
  const double weight = 1.0 / static_cast<double>(decodes);
  const double batch = static_cast<double>(decodes);
  double seconds = 0.0;
  for (const SequenceWork& seq : step) {
    if (!AttendsAsDecode(seq)) continue;
    seconds += weight * Seconds(DecodeAttentionWork(shapes_, batch, static_cast<double>(seq.context_tokens)));
  }
  return {seconds, false, "roofline"};
}

OperatorTime RooflineOperatorTimer::Elementwise(ElementwiseId id, int64_t tokens) const {
  return {Seconds(ElementwiseWork(shapes_, id, static_cast<double>(tokens))), false, "roofline"};
}

OperatorTime RooflineOperatorTimer::MoeDispatchCombine(int64_t rank_tokens) const {
  if (shapes_.data_parallel <= 1) return {0.0, false, "none"};
  // Two collectives (all-gather, reduce-scatter), each paying the latency.
  const double bytes = MoeDispatchCombineBytes(shapes_, static_cast<double>(rank_tokens));
  if (shapes_.MoeGroupSpansNodes()) {
    // A ring over every rank crosses the network: each GPU's own NIC bounds it.
    return {bytes / network_bytes_per_second_ + 2.0 * network_latency_seconds_, false,
            "roofline (all-gather + reduce-scatter across nodes: a ring bound by network_gbps)"};
  }
  return {bytes / link_bytes_per_second_ + 2.0 * link_latency_seconds_, false,
          "roofline (all-gather + reduce-scatter over interconnect_gbps)"};
}

OperatorTime RooflineOperatorTimer::AllReduce(int64_t tokens) const {
  return {AllReduceSeconds(AllReduceBytes(shapes_, static_cast<double>(tokens))), false,
          "roofline (ring over interconnect_gbps)"};
}

RooflineLatencyModel::RooflineLatencyModel(ModelSpec model, GpuSpec gpu,
                                           CpuOverheadConfig overhead, int64_t tensor_parallel)
    : StepLatencyModel(model, tensor_parallel, overhead, DefaultCaptureSizes(),
                       "estimated, not measured (models/README.md)",
                       std::make_unique<RooflineOperatorTimer>(ShardModel(model, tensor_parallel),
                                                               gpu)),
      model_(std::move(model)), gpu_(std::move(gpu)) {}

std::string RooflineLatencyModel::Description() const {
  char text[640];
  std::snprintf(text, sizeof text,
                "roofline (approximate, uncalibrated): operators of %s at max(FLOPs/%.0f TFLOP/s, "
                "bytes/%.2f TB/s) of %s (%s), TP=%lld%s; %s",
                model_.name.c_str(), gpu_.achievable_bf16_tflops, gpu_.achievable_hbm_tbps,
                gpu_.name.c_str(),
                gpu_.achievable_measured ? "measured ceilings"
                                         : "ceilings estimated from the datasheet, not measured",
                static_cast<long long>(TensorParallel()),
                TensorParallel() > 1 ? " (all-reduce: ring over interconnect_gbps)" : "",
                OverheadText().c_str());
  return text;
}

}  // namespace efimsim
