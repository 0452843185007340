// efimsim sweep: a grid of runs on a thread pool, sweep.csv plus each run's
// own outputs. See sweep_grid.h for the grid order and sharding, and
// sweep_table.h for sweep.csv.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <thread>

#include "sim/app/cli_options.h"
#include "sim/app/commands.h"
#include "sim/app/interrupt.h"
#include "sim/base/output_dir.h"
#include "sim/app/staged_output_dir.h"
#include "sim/run/sweep_runner.h"
#include "sim/run/sweep_table.h"
#include "sim/run/thread_pool.h"
#include "sim/base/atomic_file.h"
#include "sim/base/errors.h"
#include "sim/metrics/output_writers.h"

namespace efimsim::cli {
namespace {

std::string Clock(double seconds) {
  const long long s = static_cast<long long>(seconds + 0.5);
  char text[32];
  if (s >= 3600) {
    std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
  } else {
    std::snprintf(text, sizeof text, "%lld:%02lld", s / 60, s % 60);
  }
  return text;
}

// sweep's own options besides the run's (AllParamTables()).
struct SweepCommandOptions {
  std::vector<std::string> grid;
  std::string policies = "baseline,fim,efim";
  int64_t jobs = std::max<int64_t>(1, std::thread::hardware_concurrency());
  std::string shard = "0/1";
  std::string out = "efimsim-sweep";
};

const CommandParamTable<SweepCommandOptions>& SweepParams() {
  using C = SweepCommandOptions;
  static const CommandParamTable<C> table = {
      {{"grid", "",
        "an axis KEY=V1,V2,... over any option below (dashes or underscores), or policy; "
        "repeat for more axes (the first varies slowest). An axis overrides the plain option"},
       &C::grid},
      {{"policies", "", "the policy axis (first, slowest) when no --grid policy=... is given"},
       &C::policies},
      {{"jobs", "threads", "worker threads (results do not depend on it)", 1}, &C::jobs},
      {{"shard", "",
        "I/N: run only grid runs whose index i has i % N == I (join shards with efimsim merge)"},
       &C::shard},
      {{"out", "", "output directory: sweep.csv and runs/<run-id>/{summary.json,requests.csv}"},
       &C::out},
  };
  return table;
}

CommandRows SweepRows() {
  return SimulationCommandRows(
      "sweep",
      "Runs every point of a grid (e.g. --grid users=1,2,4,8 --grid "
      "max_num_batched_tokens=2048,8192,\nby default for each of baseline, fim and efim) on a "
      "thread pool; writes DIR/sweep.csv\n(one row per run: every option and every summary "
      "metric, in grid order) and\nDIR/runs/<run-id>/{summary.json,requests.csv}. The same grid "
      "gives the same bytes\nwhatever --jobs; shards (--shard I/N) joined by `efimsim merge` "
      "equal the whole sweep.",
      "Sweep", SweepParams());
}

// The grid's axes: each --grid in order, checked distinct, after the
// policy axis from --policies unless a --grid policy=... gives it (giving
// both, `policies_given`, is a usage error).
std::vector<GridAxis> SweepAxes(const SweepCommandOptions& own, bool policies_given) {
  std::vector<GridAxis> axes;
  for (const std::string& text : own.grid) axes.push_back(ParseGridAxis(text));
  CheckDistinctAxes(axes);
  bool has_policy_axis = false;
  for (const GridAxis& axis : axes) has_policy_axis |= axis.key == "policy";
  if (has_policy_axis && policies_given) {
    throw UsageError("--policies: give the policies either with --policies or --grid policy=..., "
                     "not both");
  }
  if (!has_policy_axis) axes.insert(axes.begin(), ParseGridAxis("policy=" + own.policies));
  return axes;
}

// "sweep: N runs: policy (3) x users (4)[; shard I/N: M runs]; T threads"
// on stderr.
void AnnounceSweep(int64_t grid_size, const std::vector<GridAxis>& axes, const Shard& shard,
                   size_t runs, int jobs) {
  std::string axes_text;
  for (const GridAxis& axis : axes) {
    axes_text += (axes_text.empty() ? "" : " x ") + axis.key + " (" +
                 std::to_string(axis.values.size()) + ")";
  }
  std::cerr << "sweep: " << grid_size << " runs: " << axes_text;
  if (shard.count > 1) {
    std::cerr << "; shard " << shard.index << "/" << shard.count << ": " << runs << " runs";
  }
  std::cerr << "; " << std::min<int64_t>(jobs, static_cast<int64_t>(runs)) << " threads\n";
}

double SecondsSince(std::chrono::steady_clock::time_point started) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

// "sweep: D/N runs done, L left, elapsed, ~ETA left" on stderr: a line of
// its own, or rewriting one line on a terminal (`tty`).
void PrintSweepProgress(int64_t done, size_t total, std::chrono::steady_clock::time_point started,
                        bool tty) {
  const double elapsed = SecondsSince(started);
  const int64_t left = static_cast<int64_t>(total) - done;
  const double eta = elapsed / static_cast<double>(done) * static_cast<double>(left);
  std::cerr << (tty ? "\r" : "") << "sweep: " << done << "/" << total << " runs done, "
            << left << " left, " << Clock(elapsed) << " elapsed, ~" << Clock(eta) << " left"
            << (tty ? "   " : "\n") << std::flush;
}

}  // namespace

std::vector<CommandRows> SweepCommandRows() { return {SweepRows()}; }

int RunSweepCommand(int argc, const char* const* argv) {
  po::variables_map values;
  SweepCommandOptions own;
  if (!ParseCommandRows(SweepRows(), SweepParams(), argc, argv, values, own)) return 0;
  ExperimentConfig base = ExperimentFromOptions(values);
  if (!base.timeline_path.empty()) {
    throw UsageError("--timeline: not available in sweep (use replay for one run's timeline)");
  }
  base.interrupt = InterruptFlag();
  const std::vector<GridAxis> axes = SweepAxes(own, !values["policies"].defaulted());
  const int64_t grid_size = GridSize(axes);
  const Shard shard = ParseShard(own.shard);
  const int jobs = static_cast<int>(std::min<int64_t>(own.jobs, 4096));
  std::vector<int64_t> runs;
  for (int64_t i = 0; i < grid_size; ++i) {
    if (shard.Holds(i)) runs.push_back(i);
  }
  ValidateGrid(base, axes, grid_size);
  const std::string out_dir = OutputDirOption(own.out);
  StagedOutputDir staged(out_dir);  // the sweep appears under --out whole, or not at all
  PrepareOutputDir(staged.Path("runs"));
  AnnounceSweep(grid_size, axes, shard, runs.size(), jobs);

  SweepRunner sweep{base, axes, grid_size, runs, staged.dir(), SweepOptionKeys(base, axes)};
  const std::string header = SweepCsvHeader(ExperimentOptionValues(base, sweep.option_keys));
  const bool tty = isatty(STDERR_FILENO) != 0;
  const auto started = std::chrono::steady_clock::now();
  try {
    ParallelFor(
        static_cast<int64_t>(runs.size()), jobs, [&](int64_t k) { sweep.Run(k); },
        [&](int64_t done) { PrintSweepProgress(done, runs.size(), started, tty); });
  } catch (const Interrupted&) {
    std::cerr << "\n";  // after the progress line; main reports the interrupt
    throw;
  }
  if (tty) std::cerr << "\n";
  for (const std::string& warning : sweep.warnings) {
    if (!warning.empty()) std::cerr << "sweep: warning: " << warning << "\n";
  }
  std::string csv = header;
  for (const std::string& row : sweep.rows) csv += row;
  WriteFileAtomically(staged.Path("sweep.csv"), csv);
  WriteFileAtomically(staged.Path("sweep.json"),
                      SweepManifestJson(MakeManifest(base, axes, grid_size, shard)));
  staged.Commit();
  char line[200];
  std::snprintf(line, sizeof line, "wrote %s/sweep.csv (%zu runs) and %s/runs/<run-id>/ in %.1f s\n",
                out_dir.c_str(), runs.size(), out_dir.c_str(), SecondsSince(started));
  std::cout << line;
  return 0;
}

}  // namespace efimsim::cli
