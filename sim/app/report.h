#pragma once
// Human-readable tables and the comparison CSV. Plain text, fixed-width
// columns, deterministic number formats.

#include <string>
#include <vector>

#include "sim/serving/experiment.h"

namespace efimsim::cli {

struct PolicyResult {
  std::string policy;
  ExperimentResult result;
};

// The header lines every table starts with: workload, model, GPU, latency
// model (named, with its caveats), documents.
std::string RenderRunHeader(const ExperimentResult& result);
// Side-by-side metrics, one column per policy.
std::string RenderComparisonTable(const std::vector<PolicyResult>& results);
// "EFIM vs FIM: mean E2E latency -52.0%, throughput +98.0%" lines, for each
// pair of (efim, other) present.
std::string RenderGains(const std::vector<PolicyResult>& results);
// comparison.csv: one row per policy, summary metrics as columns.
std::string RenderComparisonCsv(const std::vector<PolicyResult>& results);

}  // namespace efimsim::cli
