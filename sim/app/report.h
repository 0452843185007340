#pragma once
// Human-readable tables and the comparison CSV. Plain text, fixed-width
// columns, deterministic number formats.

#include <functional>
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

// InputError (naming the trace when there is one) when a run completed no
// request: its latencies would print as 0.0 ms, which no run measured.
void RequireMeasuredRequests(const ExperimentConfig& config, const ExperimentResult& result);
// Side-by-side metrics, one column per policy.
std::string RenderComparisonTable(const std::vector<PolicyResult>& results);
// "EFIM vs FIM: mean E2E latency -52.0%, throughput +98.0%" lines, for each
// pair of (efim, other) present.
std::string RenderGains(const std::vector<PolicyResult>& results);
// comparison.csv: one row per policy, summary metrics as columns.
std::string RenderComparisonCsv(const std::vector<PolicyResult>& results);

// Progress of long runs on stderr (ExperimentConfig::progress):
// "<label>: 812.4 s simulated, 1204331 requests ended, 41 s wall", one
// updating line on a terminal (cleared by Finish), a line per report
// otherwise. Runs shorter than the report interval print nothing.
class StderrProgress {
 public:
  // `mid_line`: stderr holds an unfinished line (such as "[1/3] efim ...")
  // that the first report must not run into.
  explicit StderrProgress(std::string label, bool mid_line = false);
  std::function<void(const RunProgress&)> Callback();
  // Clears the terminal line, if one was written. Returns whether any
  // report was written (the caller may then repeat its unfinished line).
  bool Finish();

 private:
  std::string label_;
  bool mid_line_ = false;
  bool tty_ = false;
  bool written_ = false;
};

}  // namespace efimsim::cli
