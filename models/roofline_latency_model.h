#pragma once
// The fallback latency model: each operator takes max(FLOPs / compute
// ceiling, bytes / bandwidth ceiling) on the GPU, with the GPU's measured
// achievable ceilings (models/gpus/*.json), plus host overheads.
//
// It is uncalibrated: real kernels fall short of the roofline at small
// shapes, so it is optimistic there. Its outputs say so.
//
// Host overhead model: the CPU launches a step's kernels while the GPU runs
// them, so launch time hides behind GPU time:
//   total = gpu + cpu_fixed + max(0, launch - gpu)
// where launch = layers x eager_launch_per_layer_us in eager mode, or one
// graph replay for decode-only steps under CUDA graphs (whose batch is padded
// up to the next capture size).

#include "models/latency_model.h"

namespace efimsim {

class RooflineLatencyModel : public LatencyModel {
 public:
  RooflineLatencyModel(ModelSpec model, GpuSpec gpu, CpuOverheadConfig overhead);

  StepCost Predict(std::span<const SequenceWork> batch) const override;
  std::string Name() const override { return "roofline"; }
  std::string Description() const override;

 private:
  double OperatorSeconds(double flops, double bytes) const;
  double GemmSeconds(double tokens, double n, double k) const;

  ModelSpec model_;
  GpuSpec gpu_;
  CpuOverheadConfig overhead_;
  double flops_per_second_;
  double bytes_per_second_;
};

// CUDA-graph capture batch sizes of vLLM (1, 2, 4, then multiples of 8 up to
// 512); decode-only steps are padded up to the next one.
int64_t PadToCaptureSize(int64_t batch);

}  // namespace efimsim
