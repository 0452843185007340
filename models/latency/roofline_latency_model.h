#pragma once
// The fallback latency model: each operator takes max(FLOPs / compute
// ceiling, bytes / bandwidth ceiling) on the GPU, with the GPU's measured
// achievable ceilings (models/gpus/*.json); all-reduces take the ring
// formula over the GPU's interconnect figure; host overheads as in
// models/latency/step_latency_model.h.
//
// It is uncalibrated: real kernels fall short of the roofline at small
// shapes, so it is optimistic there. Its outputs say so.

#include <memory>

#include "models/latency/operator_timer.h"
#include "models/latency/step_latency_model.h"

namespace efimsim {

// Prices operators from operator_work.h formulas and the GPU's ceilings.
class RooflineOperatorTimer : public OperatorTimer {
 public:
  // Throws UsageError when shapes.tensor_parallel > 1 and the GPU spec has
  // no interconnect figure.
  RooflineOperatorTimer(ShardShapes shapes, const GpuSpec& gpu);

  OperatorTime Gemm(GemmId id, int64_t m) const override;
  OperatorTime PrefillAttention(int64_t new_tokens, int64_t context_tokens) const override;
  OperatorTime DecodeAttention(int64_t batch, int64_t context_tokens) const override;
  OperatorTime DecodeAttentionShares(std::span<const SequenceWork> step,
                                     int64_t decodes) const override;
  OperatorTime Elementwise(ElementwiseId id, int64_t tokens) const override;
  OperatorTime AllReduce(int64_t tokens) const override;
  OperatorTime MoeExperts(int64_t tokens) const override;
  OperatorTime MoeDispatchCombine(int64_t rank_tokens) const override;

  double Seconds(const OperatorWork& work) const;
  // The same at the FP8 compute ceiling (FP8-quantized linear layers).
  double QuantizedSeconds(const OperatorWork& work) const;
  // Ring all-reduce: 2 (tp - 1) / tp x bytes / link bandwidth + latency.
  double AllReduceSeconds(double bytes) const;

 private:
  ShardShapes shapes_;
  double flops_per_second_;
  double fp8_flops_per_second_;  // = flops_per_second_ on GPUs without FP8 tensor cores
  double bytes_per_second_;
  double link_bytes_per_second_;  // one direction of one GPU's interconnect
  double link_latency_seconds_;
  double network_bytes_per_second_;  // one direction of one GPU's NIC; 0: none
  double network_latency_seconds_;
};

class RooflineLatencyModel : public StepLatencyModel {
 public:
  RooflineLatencyModel(ModelSpec model, GpuSpec gpu, CpuOverheadConfig overhead,
                       int64_t tensor_parallel = 1);

  std::string Name() const override { return "roofline"; }
  std::string Description() const override;

 private:
  ModelSpec model_;
  GpuSpec gpu_;
};

// vLLM's default CUDA-graph capture sizes (1, 2, 4, then multiples of 8 up to
// 512); decode-only steps are padded up to the next one.
int64_t PadToCaptureSize(int64_t batch);

}  // namespace efimsim
