// efimsim models: the built-in specs with derived figures; efimsim models
// import: a Hugging Face config.json as an efimsim model spec.
#include <cstdio>
#include <iostream>

#include "models/formats/hf_config.h"
#include "models/formats/spec_catalog.h"
#include "models/latency/latency_model_registry.h"
#include "sim/app/cli_options.h"
#include "sim/app/commands.h"
#include "sim/base/atomic_file.h"
#include "sim/base/errors.h"
#include "sim/base/output_dir.h"
#include "sim/engine/kv_capacity.h"

namespace efimsim::cli {
namespace {

double Billions(int64_t count) { return static_cast<double>(count) / 1e9; }

void PrintGpus() {
  std::printf("GPUs (bf16 and HBM: the roofline's ceilings, measured or estimated from the "
              "datasheet;\nGPU link: per direction, for tensor-parallel all-reduces; network: "
              "per GPU and direction, for MoE groups across nodes, - where the spec has none)\n");
  std::printf("%-14s %10s %12s %9s %-9s %11s %10s  %s\n", "name", "memory_GiB", "bf16_TFLOP/s",
              "HBM_TB/s", "ceilings", "link_GB/s", "net_GB/s", "description");
  for (const std::string& name : BuiltinGpuNames()) {
    const GpuSpec gpu = LoadGpuSpec(name);
    char network[16] = "-";
    if (gpu.network_gbps > 0) std::snprintf(network, sizeof network, "%.0f", gpu.network_gbps);
    std::printf("%-14s %10.1f %12.0f %9.2f %-9s %11.0f %10s  %s\n", gpu.name.c_str(),
                static_cast<double>(gpu.memory_bytes) / (1024.0 * 1024 * 1024),
                gpu.achievable_bf16_tflops, gpu.achievable_hbm_tbps,
                gpu.achievable_measured ? "measured" : "estimate", gpu.interconnect_gbps, network,
                gpu.description.c_str());
  }
  std::printf("(sources of every figure: models/gpus/<name>.json)\n");
}

// One row per built-in model: total and active parameters (active: what one
// token runs through, the top-k routed experts of an MoE model; = total for
// a dense one), weights, KV per token, KV tokens per GPU at the defaults.
void PrintModels() {
  const EngineConfig defaults;
  std::printf("\nModels (active: parameters one token runs through; KV tokens: utilization %.2f, "
              "non-KV overhead %.1f GiB)\n",
              defaults.gpu_memory_utilization, defaults.non_kv_overhead_gib);
  std::printf("%-22s %8s %8s %10s %12s", "name", "params_B", "active_B", "weights_GB", "KV_KiB/token");
  const std::vector<std::string> gpus = BuiltinGpuNames();
  for (const std::string& gpu : gpus) std::printf(" %14s", ("KV_tokens@" + gpu).c_str());
  std::printf("\n");
  for (const std::string& name : BuiltinModelNames()) {
    const ModelSpec model = LoadModelSpec(name);
    std::printf("%-22s %8.2f %8.2f %10.2f %12.0f", model.name.c_str(), Billions(model.TotalParams()),
                Billions(model.ActiveParams()), static_cast<double>(model.WeightBytes()) / 1e9,
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
  std::printf("(sources: models/specs/<name>.json; a Hugging Face config.json works as --model too, "
              "or becomes a spec with `efimsim models import`)\n");
}

void PrintKernelSourcesAndLatencyModels() {
  std::printf("\nMeasured kernels per GPU (--kernel-source; auto takes the run engine's own first,\n"
              "then efimsim-kernels, pytorch-reference, vidur; a GPU without any uses the calibrated "
              "fallback)\n");
  for (const std::string& gpu : BuiltinGpuNames()) {
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
}

// models import's options.
struct ModelsImportOptions {
  std::string config;
  std::string name;
  std::string out;
};

const CommandParamTable<ModelsImportOptions>& ModelsImportParams() {
  using C = ModelsImportOptions;
  static const CommandParamTable<C> table = {
      {{"config", "", "a Hugging Face config.json (also the positional argument)"}, &C::config,
       {.positional = 1}},
      {{"name", "",
        "the spec's name (default: the last part of the config's _name_or_path, else the name "
        "of the folder holding it)"},
       &C::name},
      {{"out", "",
        "write the spec to this file, completely or not at all (default: standard output)"},
       &C::out},
  };
  return table;
}

CommandRows ModelsImportRows() {
  return OwnRows("models import",
                 "Converts a Hugging Face config.json into an efimsim model spec "
                 "(models/specs/*.json's format)\nto commit, checked as a built-in spec is. "
                 "Shapes efimsim does not model (MLA, sliding\nwindows, quantized checkpoints "
                 "but FP8) are refused naming the field (models/README.md).\n"
                 "usage: efimsim models import PATH/config.json [--name N] [--out FILE]",
                 "Models import", ModelsImportParams());
}

CommandRows ModelsRows() {
  return CommandRows("models",
                     "Lists the built-in model and GPU specs with derived figures: parameters "
                     "(total and active),\nweights, KV bytes per token, and the KV tokens that "
                     "fit one GPU at the default engine settings.\n`efimsim models import "
                     "PATH/config.json` turns a Hugging Face config.json into a spec (see its "
                     "--help).");
}

// efimsim models import CONFIG [--name N] [--out FILE]: the spec on stdout,
// or written to FILE whole or not at all; a one-line summary on stderr.
int RunModelsImport(int argc, const char* const* argv) {
  po::variables_map values;
  ModelsImportOptions own;
  if (!ParseCommandRows(ModelsImportRows(), ModelsImportParams(), argc, argv, values, own)) {
    return 0;
  }
  if (own.config.empty()) {
    throw UsageError("models import needs a config.json (see efimsim models import --help)");
  }
  const std::string& path = own.config;
  const std::string& out = own.out;
  if (!out.empty()) CheckOutputFileDir("--out", out);  // before the work
  ModelSpecFile file = LoadHfConfig(path);
  if (!values["name"].defaulted()) {
    file.spec.name = own.name;
    if (file.spec.name.empty()) throw UsageError("--name: must not be empty");
  }
  const std::string json = ModelSpecFileJson(file);
  const ModelSpec spec = ParseModelSpec(json, path);  // what --model reads back from it
  if (out.empty()) {
    std::cout << json << std::flush;
  } else {
    WriteFileAtomically(out, json);
  }
  std::fprintf(stderr, "%s%s: %.2fB parameters, %.2fB active, weights %.2f GB, KV %.0f KiB/token\n",
               out.empty() ? "" : ("wrote " + out + ", ").c_str(), spec.name.c_str(),
               Billions(spec.TotalParams()), Billions(spec.ActiveParams()),
               static_cast<double>(spec.WeightBytes()) / 1e9, static_cast<double>(spec.KvBytesPerToken()) / 1024.0);
  return 0;
}

}  // namespace

std::vector<CommandRows> ModelsCommandRows() { return {ModelsRows(), ModelsImportRows()}; }

int RunModelsCommand(int argc, const char* const* argv) {
  if (argc >= 2 && std::string(argv[1]) == "import") return RunModelsImport(argc - 1, argv + 1);
  po::variables_map values;
  if (!ParseCommandLine(ModelsRows(), argc, argv, values)) return 0;
  PrintGpus();
  PrintModels();
  PrintKernelSourcesAndLatencyModels();
  return 0;
}

}  // namespace efimsim::cli
