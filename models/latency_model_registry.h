#pragma once
// Latency models by name. Today: "roofline". The profile-based model
// (issue: measured kernel profiles) registers here too.

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

// Throws UsageError for an unknown name.
std::unique_ptr<LatencyModel> MakeLatencyModel(const std::string& name, const ModelSpec& model,
                                               const GpuSpec& gpu,
                                               const CpuOverheadConfig& overhead);

}  // namespace efimsim
