#include "models/latency/latency_model_registry.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>

#include "models/latency/calibrated_fallback.h"
#include "models/latency/moe_backend.h"
#include "models/latency/operator_work.h"
#include "models/formats/kernel_profile.h"
#include "models/latency/profile_latency_model.h"
#include "models/latency/profile_transfer.h"
#include "models/latency/roofline_latency_model.h"
#include "models/formats/shape_profile.h"
#include "models/latency/shape_rule.h"
#include "sim/base/registry.h"

namespace efimsim {
namespace {

using Factory = std::unique_ptr<LatencyModel> (*)(const ModelSpec&, const GpuSpec&,
                                                  const CpuOverheadConfig&,
                                                  const LatencyModelOptions&);
struct Entry {
  std::string help;
  Factory make;
};

// What a resolution depends on: the shape profile, the model's name (the
// resolved profile's label), every shape ShardModel derives from the model
// as served (weights and KV dtypes, experts, routing, parallelism) and the
// MoE backend.
struct ResolutionKey {
  std::string origin;
  std::string model;
  ShardShapes shard;
  std::string moe_backend;
  auto operator<=>(const ResolutionKey&) const = default;
};

// A model's profile resolved from a shape profile, kept per process: a
// sweep prices the same (GPU, engine, model, TP) thousands of times.
KernelProfile ResolvedShapeProfile(const ShapeProfile& shapes, const ModelSpec& model,
                                   int64_t tensor_parallel, const std::string& moe_backend) {
  static std::mutex mutex;
  static std::map<ResolutionKey, KernelProfile> resolved;
  ResolutionKey key{shapes.origin, model.name, ShardModel(model, tensor_parallel), moe_backend};
  const std::lock_guard<std::mutex> lock(mutex);
  const auto it = resolved.find(key);
  if (it != resolved.end()) return it->second;
  KernelProfile profile = ResolveShapeProfile(shapes, model, tensor_parallel, nullptr, moe_backend);
  return resolved.emplace(std::move(key), std::move(profile)).first->second;
}

// The built-in kernels of `source` for the run, if the GPU has them.
std::optional<KernelProfile> FromSource(const std::string& source, const ModelSpec& model,
                                        const GpuSpec& gpu, const LatencyModelOptions& options) {
  // The model's own tables first, then shape tables of the run's engine.
  if (std::optional<KernelProfile> own = FindBuiltinKernelProfile(gpu.name, source, model.name)) {
    if (options.moe_backend != "auto") {
      throw UsageError("--moe-backend " + options.moe_backend + ": kernel source " + source +
                       " measured " + model.name + "'s own MoE layers on " + gpu.name +
                       " (with the backend its engine chose); leave --moe-backend auto or pick "
                       "another --kernel-source");
    }
    return own;
  }
  const ShapeProfile* shapes = FindBuiltinShapeProfile(gpu.name, source, options.engine);
  if (!shapes) return std::nullopt;
  return ResolvedShapeProfile(*shapes, model, options.tensor_parallel,
                              options.moe_backend == "auto" ? "" : options.moe_backend);
}

// The engines whose own software stack `source` timed: those its built-in
// shape profiles (<gpu>/<source>/<engine>) are for. Empty for sources of
// engine-agnostic kernels (efimsim's own, the PyTorch reference, Vidur).
std::vector<std::string> EnginesTimedBy(const std::string& source) {
  std::vector<std::string> engines;
  for (const std::string& name : BuiltinShapeProfileNames()) {
    const size_t first = name.find('/');
    const size_t last = name.rfind('/');
    if (first == last || name.compare(first + 1, last - first - 1, source) != 0) continue;
    const std::string engine = name.substr(last + 1);
    if (std::find(engines.begin(), engines.end(), engine) == engines.end()) engines.push_back(engine);
  }
  return engines;
}

bool TimedEngine(const std::string& source, const std::string& engine) {
  const std::vector<std::string> engines = EnginesTimedBy(source);
  return std::find(engines.begin(), engines.end(), engine) != engines.end();
}

// The sources "auto" tries for `engine`: KernelSourceNames() in order, less
// those that timed other engines' stacks only (LLMServingSim's vLLM layers
// for SGLang).
std::vector<std::string> AutoOrder(const std::string& engine) {
  std::vector<std::string> order;
  for (const std::string& source : KernelSourceNames()) {
    if (EnginesTimedBy(source).empty() || TimedEngine(source, engine)) order.push_back(source);
  }
  return order;
}

std::string AutoReason(const std::string& source, const std::string& engine) {
  if (TimedEngine(source, engine)) return "the " + engine + " engine's own kernels";
  return "no kernels of the " + engine + " engine itself for this GPU and model; next in order";
}

std::unique_ptr<LatencyModel> MakeProfileOrFallback(const ModelSpec& model, const GpuSpec& gpu,
                                                    const CpuOverheadConfig& overhead,
                                                    const LatencyModelOptions& options,
                                                    const std::string& asked_for) {
  if (!options.profile_path.empty()) {
    if (options.kernel_source != "auto") {
      throw UsageError("--kernel-source: not with --profile FILE (the file is the source)");
    }
    // auto: a profile of another model or GPU is transferred and carried,
    // saying so; profile: it is refused (the profile's own kernels only).
    if (asked_for == "auto") {
      return MakeTransferredProfileModel(model, gpu, overhead, LoadKernelProfile(options.profile_path),
                                         options.tensor_parallel);
    }
    return std::make_unique<ProfileLatencyModel>(model, gpu, overhead, LoadKernelProfile(options.profile_path),
                                                 options.tensor_parallel);
  }
  const std::vector<std::string> order =
      options.kernel_source == "auto" ? AutoOrder(options.engine) : std::vector<std::string>{options.kernel_source};
  for (const std::string& source : order) {
    std::optional<KernelProfile> profile = FromSource(source, model, gpu, options);
    if (!profile) continue;
    const std::string selection =
        "kernel source " + source + " (" +
        (options.kernel_source == "auto" ? "auto: " + AutoReason(source, options.engine) : "--kernel-source") + ")";
    return std::make_unique<ProfileLatencyModel>(model, gpu, overhead, std::move(*profile),
                                                 options.tensor_parallel, selection);
  }
  if (options.kernel_source != "auto") {
    const std::vector<std::string> has = KernelSourcesOf(gpu.name);
    std::string list;
    for (const std::string& h : has) list += (list.empty() ? "" : "; ") + h;
    throw UsageError("--kernel-source " + options.kernel_source + ": no built-in tables of it for GPU " +
                     gpu.name + ", model " + model.name + ", engine " + options.engine + " (this GPU has: " +
                     (list.empty() ? "none" : list) + ")");
  }
  return MakeCalibratedFallbackLatencyModel(
      model, gpu, overhead, options.tensor_parallel,
      (asked_for == "auto" ? "auto: " : "profile: ") + std::string("no measured kernels for GPU ") + gpu.name +
          ", model " + model.name + ", engine " + options.engine +
          " (no built-in tables; give --profile FILE), so the calibrated fallback; ");
}

const Registry<Entry>& LatencyModels() {
  static const Registry<Entry> registry = [] {
    Registry<Entry> r("latency model");
    r.Add("roofline",
          {"FLOPs and bytes per operator over the GPU's achievable ceilings, plus host "
           "overheads; uncalibrated",
           [](const ModelSpec& model, const GpuSpec& gpu, const CpuOverheadConfig& overhead,
              const LatencyModelOptions& options) -> std::unique_ptr<LatencyModel> {
             if (!options.profile_path.empty()) {
               throw UsageError("--profile: only the \"profile\" latency model reads a profile");
             }
             if (options.kernel_source != "auto") {
               throw UsageError("--kernel-source: the roofline uses no measured kernels");
             }
             return std::make_unique<RooflineLatencyModel>(model, gpu, overhead,
                                                           options.tensor_parallel);
           }});
    r.Add("fallback",
          {"the calibrated fallback on any GPU: operators at the roofline of the GPU's datasheet "
           "ceilings over efficiencies fitted on measured GPUs (docs/fallback.md); approximate",
           [](const ModelSpec& model, const GpuSpec& gpu, const CpuOverheadConfig& overhead,
              const LatencyModelOptions& options) -> std::unique_ptr<LatencyModel> {
             if (!options.profile_path.empty() || options.kernel_source != "auto") {
               throw UsageError("--profile, --kernel-source: the fallback uses no measured kernels");
             }
             return MakeCalibratedFallbackLatencyModel(model, gpu, overhead, options.tensor_parallel);
           }});
    r.Add("profile",
          {"per-operator times from measured kernels (--kernel-source, or the first the GPU has: "
           "the engine's own, efimsim's, the PyTorch reference's, Vidur's; or --profile FILE), "
           "interpolated, fitted beyond the grid; the calibrated fallback, saying so, when none exists; "
           "a --profile FILE of another model or GPU is refused",
           [](const ModelSpec& model, const GpuSpec& gpu, const CpuOverheadConfig& overhead,
              const LatencyModelOptions& options) {
             return MakeProfileOrFallback(model, gpu, overhead, options, "profile");
           }});
    r.Add("auto",
          {"the default: measured kernels as \"profile\" chooses them when the GPU has any "
           "(or --profile FILE, transferred to another model by the shape rule and carried to another "
           "GPU by the fallback's ratios), the calibrated fallback otherwise (the roofline over "
           "efficiencies fitted on measured GPUs); outputs name the source used",
           [](const ModelSpec& model, const GpuSpec& gpu, const CpuOverheadConfig& overhead,
              const LatencyModelOptions& options) {
             return MakeProfileOrFallback(model, gpu, overhead, options, "auto");
           }});
    return r;
  }();
  return registry;
}

}  // namespace

std::vector<std::string> KernelSourceNames() {
  return {"llmservingsim", "aiconfigurator", "efimsim-kernels", "pytorch-reference", "vidur"};
}

std::vector<std::string> KernelSourcesOf(const std::string& gpu) {
  std::map<std::string, std::string> found;  // source -> engines or models
  for (const std::string& name : BuiltinShapeProfileNames()) {
    const size_t a = name.find('/'), b = name.rfind('/');
    if (name.substr(0, a) != gpu) continue;
    std::string& list = found[name.substr(a + 1, b - a - 1)];
    list += (list.empty() ? "engines " : ", ") + name.substr(b + 1);
  }
  for (const std::string& name : BuiltinKernelProfileNames()) {
    const size_t a = name.find('/'), b = name.rfind('/');
    if (name.substr(0, a) != gpu) continue;
    std::string& list = found[name.substr(a + 1, b - a - 1)];
    list += (list.empty() ? "models " : ", ") + name.substr(b + 1);
  }
  std::vector<std::string> out;
  for (const std::string& source : KernelSourceNames()) {
    const auto it = found.find(source);
    if (it != found.end()) out.push_back(source + " (" + it->second + ")");
  }
  return out;
}

std::vector<LatencyModelInfo> LatencyModelNames() {
  std::vector<LatencyModelInfo> out;
  for (const std::string& name : LatencyModels().Names()) {
    out.push_back({name, LatencyModels().Get(name).help});
  }
  return out;
}

std::unique_ptr<LatencyModel> MakeLatencyModel(const LatencyConfig& config, const ModelSpec& model,
                                               const GpuSpec& gpu) {
  const std::string& backend = config.options.moe_backend;
  if (backend != "auto") {
    const std::vector<std::string>& names = MoeBackendNames();
    if (std::find(names.begin(), names.end(), backend) == names.end()) {
      std::string list;
      for (const std::string& n : names) list += ", " + n;
      throw UsageError("--moe-backend: unknown backend '" + backend + "' (auto" + list + ")");
    }
    if (!model.moe.IsMoe()) throw UsageError("--moe-backend: " + model.name + " has no MoE layers");
    const bool measured = config.name == "auto" || config.name == "profile";
    if (!measured || !config.options.profile_path.empty()) {
      throw UsageError("--moe-backend " + backend + ": chooses among built-in measured MoE tables, so only with "
                       "--latency-model auto or profile and no --profile FILE");
    }
  }
  return LatencyModels().Get(config.name).make(model, gpu, config.cpu, config.options);
}

}  // namespace efimsim
