#pragma once
// Latency models by name:
//   "auto":     the default; "profile" when measured kernels exist for the
//               (GPU, model, engine) (or options.profile_path), the
//               calibrated fallback (models/latency/calibrated_fallback.h) otherwise,
//               saying so.
//   "roofline": operators at the GPU's ceilings, uncalibrated.
//   "fallback": the calibrated fallback, also where measured kernels exist
//               (for comparisons).
//   "profile":  measured kernels from one kernel source (KernelSourceNames):
//               options.kernel_source, or with "auto" the first the GPU has
//               of: the serving engine's own kernels (LLMServingSim's vLLM
//               layer timings of the model, then AIConfigurator's shape
//               tables of the engine), efimsim's own kernels, the PyTorch
//               reference, Vidur. When there is none, the calibrated
//               fallback, whose Name() is "fallback" and Description() says why.
//   Model-keyed sources are the built-in models/profiles/<gpu>/<source>/
//   <model>.json; the shape-keyed one is models/shape_profiles/<gpu>/
//   aiconfigurator/<engine>.json, priced for the model by models/latency/shape_rule.h.

#include <memory>
#include <string>
#include <vector>

#include "models/latency/latency_model.h"

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
  std::string kernel_source = "auto";  // "auto" or one of KernelSourceNames()
  std::string engine = "vllm_v1";      // the serving engine whose kernels "auto" prefers
  // "auto" (MoE experts priced from the tables of any backend, nearest shape
  // first) or one of MoeBackendNames(): that backend's tables only.
  std::string moe_backend = "auto";
};

// The kernel sources, in the order "auto" tries them.
std::vector<std::string> KernelSourceNames();
// The sources with built-in tables for `gpu`, "<source> (<engines or
// models>)" each, for `efimsim models`.
std::vector<std::string> KernelSourcesOf(const std::string& gpu);

// Everything a latency model is built from besides the model and GPU
// specs, passed whole to MakeLatencyModel. A run derives it from its
// options in one place (sim/run/experiment.h, RunLatencyConfig): the
// engine's name and its CUDA-graph setting are copied nowhere else.
struct LatencyConfig {
  std::string name = "auto";    // --latency-model: a name of LatencyModelNames()
  LatencyModelOptions options;  // tensor parallelism, profile, kernel source, engine
  CpuOverheadConfig cpu;        // host overheads and the CUDA-graph mode
};

// Throws UsageError for an unknown name or a bad option, InputError for a
// bad profile file.
std::unique_ptr<LatencyModel> MakeLatencyModel(const LatencyConfig& config, const ModelSpec& model,
                                               const GpuSpec& gpu);

}  // namespace efimsim
