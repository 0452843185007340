#include "models/latency_model_registry.h"

#include "models/roofline_latency_model.h"
#include "sim/base/registry.h"

namespace efimsim {
namespace {

using Factory = std::unique_ptr<LatencyModel> (*)(const ModelSpec&, const GpuSpec&,
                                                  const CpuOverheadConfig&);
struct Entry {
  std::string help;
  Factory make;
};

const Registry<Entry>& LatencyModels() {
  static const Registry<Entry> registry = [] {
    Registry<Entry> r("latency model");
    r.Add("roofline",
          {"FLOPs and bytes per operator over the GPU's achievable ceilings, plus host "
           "overheads; uncalibrated",
           [](const ModelSpec& model, const GpuSpec& gpu, const CpuOverheadConfig& overhead)
               -> std::unique_ptr<LatencyModel> {
             return std::make_unique<RooflineLatencyModel>(model, gpu, overhead);
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
                                               const CpuOverheadConfig& overhead) {
  return LatencyModels().Get(name).make(model, gpu, overhead);
}

}  // namespace efimsim
