#pragma once
// The latency model built from a measured kernel profile (models/PROFILE.md):
// the step model of models/latency/step_latency_model.h with every operator priced
// from the profile's tables (models/formats/profile_table.h: log-log interpolation
// inside the grid; beyond it, a roofline-shaped least-squares fit per
// operator, models/latency/roofline_fit.h, anchored at the grid's edge).
//
// Tensor parallelism: the profile is measured on one GPU at the model's full
// shapes (TP=1). For TP > 1 each operator's measured time is rescaled by its
// fit's ratio between the per-GPU shape and the full shape (flagged as
// extrapolated), and two all-reduces per layer are priced from the profile's
// optional all_reduce table for that TP size, or else from the GPU spec's
// interconnect figure (ring formula, flagged).
//
// Operators with no table in the profile (e.g. "sampling", which the
// harness does not measure) are priced by the roofline and flagged.
//
// CPU overheads: the profile's cpu_overhead figures replace the configured
// ones only when its source is "measured: ..."; its CUDA-graph capture sizes
// are always used.
//
// Another GPU: refused, or (OtherGpuProfile::kCarry) priced on the GPU it
// was measured on and carried to the run's by the calibrated fallback's
// per-operator ratios (models/latency/profile_transfer.h), flagged and said in
// Description().

#include "models/formats/kernel_profile.h"
#include "models/latency/step_latency_model.h"

namespace efimsim {

// Host overheads at the simulator's defaults, source "default": what every
// profile made from GPU timings alone carries (they say nothing of an
// engine's host time).
ProfileCpuOverhead DefaultProfileCpuOverhead();

// What the model does with a profile measured on another GPU than the run's.
enum class OtherGpuProfile {
  kRefuse,  // InputError naming the profile's "gpu" field
  kCarry,   // carried to the run's GPU (CarryTimerToGpu); the profile's GPU
            // must be a built-in spec (else InputError naming "gpu")
};

class ProfileLatencyModel : public StepLatencyModel {
 public:
  // Throws InputError naming the profile and field when the profile is for
  // another model, or another GPU under kRefuse, or its shapes differ from
  // `model`'s.
  // `selection`: how the profile was chosen ("kernel source ... (auto: ...)"),
  // the start of Description(); empty for none.
  ProfileLatencyModel(ModelSpec model, GpuSpec gpu, CpuOverheadConfig overhead,
                      KernelProfile profile, int64_t tensor_parallel = 1, std::string selection = "",
                      OtherGpuProfile other_gpu = OtherGpuProfile::kRefuse);

  std::string Name() const override { return "profile"; }
  std::string Description() const override;

 private:
  ModelSpec model_;
  GpuSpec gpu_;
  KernelProfile profile_;
  std::string missing_tables_;  // operators priced by the roofline, for Description()
  std::string selection_;
  bool carried_ = false;  // measured on profile_.gpu, carried to gpu_
};

}  // namespace efimsim
