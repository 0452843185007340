#pragma once
// Latency models by name:
//   "auto":     the default; "profile" when a profile exists for the pair
//               (or options.profile_path), "roofline" otherwise.
//   "roofline": operators at the GPU's ceilings, uncalibrated.
//   "profile":  the measured kernel profile of the (GPU, model) pair
//               (options.profile_path, or the built-in
//               models/profiles/<gpu>/<model>.json); when there is none, the
//               roofline, and Name() is "roofline" and Description() starts
//               with "roofline fallback: no kernel profile for ...".

#include <memory>
#include <string>
#include <vector>

#include "models/latency_model.h"

namespace efimsim {

struct LatencyModelInfo {
  std::string name;
  std::string help;
};

std::vector<LatencyModelInfo> LatencyModelNames();

// Settings of a latency model beyond the model, GPU and host overheads.
struct LatencyModelOptions {
  int64_t tensor_parallel = 1;  // GPUs per replica (1, 2, 4, 8)
  std::string profile_path;     // "profile": this file instead of the built-in lookup
};

// Throws UsageError for an unknown name or a bad option, InputError for a
// bad profile file.
std::unique_ptr<LatencyModel> MakeLatencyModel(const std::string& name, const ModelSpec& model,
                                               const GpuSpec& gpu,
                                               const CpuOverheadConfig& overhead,
                                               const LatencyModelOptions& options = {});

}  // namespace efimsim
