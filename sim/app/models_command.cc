#include <cstdio>
#include <iostream>

#include "models/latency/latency_model_registry.h"
#include "models/formats/spec_catalog.h"
#include "sim/app/cli_options.h"
#include "sim/app/commands.h"
#include "sim/base/errors.h"
#include "sim/engine/kv_capacity.h"

namespace efimsim::cli {

int RunModelsCommand(int argc, const char* const* argv) {
  po::options_description visible("Models");
  po::variables_map values;
  if (!ParseCommandLine("models",
                        "Lists the built-in model and GPU specs with derived figures: weights, "
                        "KV bytes per\ntoken, and the KV tokens that fit one GPU at the default "
                        "engine settings.",
                        visible, argc, argv, values)) {
    return 0;
  }
  const EngineConfig defaults;
  std::printf("GPUs (bf16 and HBM: the roofline's ceilings, measured or estimated from the "
              "datasheet;\nGPU link: per direction, for tensor-parallel all-reduces)\n");
  std::printf("%-14s %10s %12s %9s %-9s %11s  %s\n", "name", "memory_GiB", "bf16_TFLOP/s",
              "HBM_TB/s", "ceilings", "link_GB/s", "description");
  for (const std::string& name : BuiltinGpuNames()) {
    const GpuSpec gpu = LoadGpuSpec(name);
    std::printf("%-14s %10.1f %12.0f %9.2f %-9s %11.0f  %s\n", gpu.name.c_str(),
                static_cast<double>(gpu.memory_bytes) / (1024.0 * 1024 * 1024),
                gpu.achievable_bf16_tflops, gpu.achievable_hbm_tbps,
                gpu.achievable_measured ? "measured" : "estimate", gpu.interconnect_gbps,
                gpu.description.c_str());
  }
  std::printf("(sources of every figure: models/gpus/<name>.json)\n");
  std::printf("\nModels (KV tokens: utilization %.2f, non-KV overhead %.1f GiB)\n",
              defaults.gpu_memory_utilization, defaults.non_kv_overhead_gib);
  std::printf("%-22s %7s %10s %12s", "name", "params_B", "weights_GB", "KV_KiB/token");
  const std::vector<std::string> gpus = BuiltinGpuNames();
  for (const std::string& gpu : gpus) std::printf(" %14s", ("KV_tokens@" + gpu).c_str());
  std::printf("\n");
  for (const std::string& name : BuiltinModelNames()) {
    const ModelSpec model = LoadModelSpec(name);
    std::printf("%-22s %7.2f %10.2f %12.0f", model.name.c_str(),
                static_cast<double>(model.TotalParams()) / 1e9,
                static_cast<double>(model.WeightBytes()) / 1e9,
                static_cast<double>(model.KvBytesPerToken()) / 1024.0);
    for (const std::string& gpu_name : gpus) {
      EngineConfig config = defaults;
      config.model = name;
      try {
        const KvCapacity capacity = ComputeKvCapacity(config, model, LoadGpuSpec(gpu_name));
        std::printf(" %14lld", static_cast<long long>(capacity.tokens));
      } catch (const UsageError&) {
        std::printf(" %14s", "does not fit");
      }
    }
    std::printf("\n");
  }
  std::printf("\nMeasured kernels per GPU (--kernel-source; auto takes the run engine's own first,\n"
              "then efimsim-kernels, pytorch-reference, vidur; a GPU without any uses the calibrated "
              "fallback)\n");
  for (const std::string& gpu : gpus) {
    const std::vector<std::string> sources = KernelSourcesOf(gpu);
    std::string text;
    for (const std::string& source : sources) text += (text.empty() ? "" : "; ") + source;
    std::printf("%-14s %s\n", gpu.c_str(), text.empty() ? "none: calibrated fallback" : text.c_str());
  }
  std::printf("(aiconfigurator tables are keyed by shape and price every model above; the others "
              "are the models named)\n");
  std::printf("\nLatency models\n");
  for (const LatencyModelInfo& info : LatencyModelNames()) {
    std::printf("%-12s %s\n", info.name.c_str(), info.help.c_str());
  }
  return 0;
}

}  // namespace efimsim::cli
