#pragma once
// Machine-readable forms of a step breakdown (efimsim predict --json) and of
// a validation report (efimsim validate-latency --json). Times in the JSON
// are microseconds (operators) and milliseconds (steps), as the key names say.

#include <string>
#include <vector>

#include "models/latency/latency_model.h"
#include "models/latency/latency_validation.h"

namespace efimsim {

// What the report says about where the numbers come from.
struct PredictionContext {
  std::string latency_model;  // LatencyModel::Name()
  std::string description;    // LatencyModel::Description()
  std::string model;
  std::string gpu;
  int64_t tensor_parallel = 1;
  std::string mode;  // "eager" or "graph"
  std::string timing;  // validate-latency: "gpu" or "step" (what measured_ms is); "" elsewhere
};

// One JSON object, pretty-printed, ending in a newline.
std::string StepBreakdownJson(const PredictionContext& context,
                              const std::vector<SequenceWork>& batch,
                              const StepBreakdown& breakdown);
std::string ValidationReportJson(const PredictionContext& context, const ValidationReport& report);

}  // namespace efimsim
