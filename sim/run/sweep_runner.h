#pragma once
// Running a sweep: a grid of runs over a base configuration (sweep_grid.h),
// checked whole before the first run, each run writing its own outputs and
// its sweep.csv row (sweep_table.h), and the sweep's identity for merge
// (sweep_manifest.h). The sweep command (sim/app) parses options, stages
// the output folder and drives a SweepRunner on a thread pool
// (thread_pool.h).

#include <cstdint>
#include <string>
#include <vector>

#include "sim/run/experiment.h"
#include "sim/run/sweep_grid.h"
#include "sim/run/sweep_manifest.h"

namespace efimsim {

// "policy=fim users=8": a grid point as text, for messages.
std::string PointText(const std::vector<OptionSetting>& point);

// This shard's runs of the grid of `axes` over `base`, each writing
// out_dir/runs/<run-id>/ and its sweep.csv row.
struct SweepRunner {
  const ExperimentConfig& base;
  const std::vector<GridAxis>& axes;
  int64_t grid_size = 0;
  const std::vector<int64_t>& runs;  // grid indices, ascending
  const std::string& out_dir;
  std::vector<std::string> option_keys;  // sweep.csv's option columns
  // By k: sweep.csv's row of runs[k], and why it measured nothing (no
  // request completed; "" when it did).
  std::vector<std::string> rows = std::vector<std::string>(runs.size());
  std::vector<std::string> warnings = std::vector<std::string>(runs.size());

  // Runs grid run runs[k] (thread-safe across k): writes its summary.json
  // and requests.csv and fills rows[k]. A usage error names the run and
  // its point; Interrupted (base.interrupt) before or during the run.
  void Run(int64_t k);
};

// Every grid point checked as its run would check it (ValidateExperiment),
// before any run: a bad combination (e.g. --grid engine=vllm_v1,sglang with
// --cpu-kv-gib) fails at once, naming its run, instead of mid-sweep.
// Interrupted (base.interrupt) between points.
void ValidateGrid(const ExperimentConfig& base, const std::vector<GridAxis>& axes,
                  int64_t grid_size);

// The sweep's identity for merge: its grid and every option not on an axis.
SweepManifest MakeManifest(const ExperimentConfig& base, const std::vector<GridAxis>& axes,
                           int64_t grid_size, const Shard& shard);

}  // namespace efimsim
