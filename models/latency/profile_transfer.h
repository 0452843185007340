#pragma once
// A measured kernel profile used for another model or another GPU than the
// one it was measured for (issue 23, "leave-one-out").
//
// Another model (TransferKernelProfile): the profile's tables become a
// shape-keyed profile (its GEMMs by (n, k), its attention by heads) that the
// shape rule (models/latency/shape_rule.h) prices for the target model:
//   GEMMs and decode attention: ResolveShapeProfile (measured (n, k) as
//     measured; others by utilisation transfer at the GPU's datasheet
//     ceilings).
//   Prefill attention: the source's measured (new tokens, cached tokens)
//     grid, each point carried by the same utilisation rule from the
//     source's heads to the target's (time x SOL(target) / SOL(source), SOL
//     = max(FLOPs / datasheet compute, bytes / datasheet bandwidth)). The
//     shape rule's own cached-prefix formula is AIConfigurator's, not the
//     measured stack's, so the measured context rows are kept.
//   Elementwise: the source's own tables (they describe the measured stack's
//     kernels, e.g. the PyTorch reference's unfused ops, which the shape
//     rule's fused-kernel rule does not), each point rescaled by the table's
//     roofline-shaped fit (models/latency/roofline_fit.h) from the source's work to
//     the target's at the same tokens; flagged modelled.
//   CPU overheads, capture sizes and provenance: the source's.
// Every table of a shape that was not measured is flagged (transferred or
// modelled), so every prediction that uses one is flagged extrapolated.
//
// Another GPU (CarryTimerToGpu): each operator's time on the measuring GPU
// A times fallback(B, work) / fallback(A, work), the calibrated fallback's
// (models/latency/calibrated_fallback.h) times of the same operator on the two GPUs'
// datasheet ceilings. Every time is flagged extrapolated, source
// "profile carried to <B>".

#include <cstdint>
#include <memory>
#include <string>

#include "models/latency/calibrated_fallback.h"
#include "models/formats/kernel_profile.h"
#include "models/latency/latency_model.h"
#include "models/formats/model_spec.h"
#include "models/latency/operator_timer.h"
#include "models/formats/shape_profile.h"
#include "models/latency/shape_rule.h"

namespace efimsim {

// The profile's tables keyed by shape: GEMMs by (n, k) (the first of equal
// shapes kept), prefill attention by heads over its context-0 rows, decode
// attention by heads, all-reduce by bytes per GPU. `its_model` is the model
// the profile was measured for (shapes at profile.tensor_parallel), `gpu`
// the GPU it was measured on (its datasheet ceilings). The elementwise rule
// is a placeholder (datasheet bandwidth, fraction 1, no constant):
// TransferKernelProfile carries the source's own elementwise tables instead.
// Throws InputError (naming the profile) when it is not for `its_model`.
ShapeProfile ShapeProfileFromKernelProfile(const KernelProfile& profile, const ModelSpec& its_model,
                                           const GpuSpec& gpu);

// The profile, measured for `its_model` on `gpu`, transferred to `target`
// at `tensor_parallel` as described above (shapes per GPU, its
// tensor_parallel field set so). `resolution`, if given, says which tables
// were measured shapes. Throws as ShapeProfileFromKernelProfile and
// ResolveShapeProfile.
KernelProfile TransferKernelProfile(const KernelProfile& profile, const ModelSpec& its_model,
                                    const ModelSpec& target, const GpuSpec& gpu,
                                    int64_t tensor_parallel, ShapeResolution* resolution = nullptr);

// `measured` (pricing `shapes` on GPU `from`) carried to GPU `to` by the
// calibration's per-operator ratio. Where the fallback prices an operator
// at 0 on `from` (an all-reduce at TP 1) the measured time is kept. Throws
// UsageError as CalibratedFallbackOperatorTimer.
std::unique_ptr<OperatorTimer> CarryTimerToGpu(std::unique_ptr<OperatorTimer> measured,
                                               const ShardShapes& shapes, const GpuSpec& from,
                                               const GpuSpec& to,
                                               const FallbackCalibration& calibration);

// The built-in specs of the model and GPU a profile was measured for.
// Throws InputError naming the profile and its "model" or "gpu" field when
// there is none (a profile of an unknown model or GPU cannot be transferred).
ModelSpec ProfileModelSpec(const KernelProfile& profile);
GpuSpec ProfileGpuSpec(const KernelProfile& profile);

// The latency model of `--profile FILE` under `auto`: the profile model of
// `profile` when it is for the run's model and GPU (as before, no
// selection text); otherwise its tables transferred to `model` and/or
// carried to `gpu`, Description() saying so. Throws InputError naming the
// profile when its model or GPU is not a built-in spec (nothing to transfer
// from).
std::unique_ptr<LatencyModel> MakeTransferredProfileModel(const ModelSpec& model,
                                                          const GpuSpec& gpu,
                                                          const CpuOverheadConfig& overhead,
                                                          KernelProfile profile,
                                                          int64_t tensor_parallel);

}  // namespace efimsim
