#include "models/latency_model_registry.h"

#include <optional>

#include "models/kernel_profile.h"
#include "models/profile_latency_model.h"
#include "models/roofline_latency_model.h"
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

// The roofline standing in for a missing profile; says so in Description().
class FallbackRooflineLatencyModel : public RooflineLatencyModel {
 public:
  FallbackRooflineLatencyModel(const ModelSpec& model, const GpuSpec& gpu,
                               const CpuOverheadConfig& overhead, int64_t tensor_parallel,
                               const std::string& asked_for)
      : RooflineLatencyModel(model, gpu, overhead, tensor_parallel),
        reason_((asked_for == "auto" ? "auto: " : "roofline fallback: ") +
                std::string("no kernel profile for GPU ") + gpu.name + ", model " + model.name +
                " (no built-in models/profiles/" + gpu.name + "/" + model.name +
                ".json; give --profile FILE), so the roofline; ") {}
  std::string Description() const override {
    return reason_ + RooflineLatencyModel::Description();
  }

 private:
  std::string reason_;
};

std::unique_ptr<LatencyModel> MakeProfileOrFallback(const ModelSpec& model, const GpuSpec& gpu,
                                                    const CpuOverheadConfig& overhead,
                                                    const LatencyModelOptions& options,
                                                    const std::string& asked_for) {
  std::optional<KernelProfile> profile;
  if (!options.profile_path.empty()) {
    profile = LoadKernelProfile(options.profile_path);
  } else {
    profile = FindBuiltinKernelProfile(gpu.name, model.name);
  }
  if (!profile) {
    return std::make_unique<FallbackRooflineLatencyModel>(model, gpu, overhead,
                                                          options.tensor_parallel, asked_for);
  }
  return std::make_unique<ProfileLatencyModel>(model, gpu, overhead, std::move(*profile),
                                               options.tensor_parallel);
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
             return std::make_unique<RooflineLatencyModel>(model, gpu, overhead,
                                                           options.tensor_parallel);
           }});
    r.Add("profile",
          {"per-operator times from the measured kernel profile of the (GPU, model) pair "
           "(models/profiles/<gpu>/<model>.json or --profile FILE), interpolated, fitted "
           "beyond the grid; the roofline, saying so, when no profile exists",
           [](const ModelSpec& model, const GpuSpec& gpu, const CpuOverheadConfig& overhead,
              const LatencyModelOptions& options) {
             return MakeProfileOrFallback(model, gpu, overhead, options, "profile");
           }});
    r.Add("auto",
          {"the default: the built-in kernel profile of the (GPU, model) pair when one exists "
           "(or --profile FILE), the roofline otherwise; outputs name the one used",
           [](const ModelSpec& model, const GpuSpec& gpu, const CpuOverheadConfig& overhead,
              const LatencyModelOptions& options) {
             return MakeProfileOrFallback(model, gpu, overhead, options, "auto");
           }});
    return r;
  }();
  return registry;
}

}  // namespace

std::vector<LatencyModelInfo> LatencyModelNames() {
  std::vector<LatencyModelInfo> out;
  for (const std::string& name : LatencyModels().Names()) {
    out.push_back({name, LatencyModels().Get(name).help});
  }
  return out;
}

std::unique_ptr<LatencyModel> MakeLatencyModel(const std::string& name, const ModelSpec& model,
                                               const GpuSpec& gpu,
                                               const CpuOverheadConfig& overhead,
                                               const LatencyModelOptions& options) {
  return LatencyModels().Get(name).make(model, gpu, overhead, options);
}

}  // namespace efimsim
