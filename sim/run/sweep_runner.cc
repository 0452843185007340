#include "sim/run/sweep_runner.h"

#include <algorithm>

#include "sim/base/errors.h"
#include "sim/base/output_dir.h"
#include "sim/metrics/output_writers.h"
#include "sim/run/sweep_table.h"

namespace efimsim {

std::string PointText(const std::vector<OptionSetting>& point) {
  std::string out;
  for (const auto& [key, value] : point) out += (out.empty() ? "" : " ") + key + "=" + value;
  return out;
}

void SweepRunner::Run(int64_t k) {
  PollInterrupt(base);  // the pool starts no further run once one throws
  const int64_t index = runs[static_cast<size_t>(k)];
  const std::vector<OptionSetting> point = GridPoint(axes, index);
  ExperimentConfig config = base;
  for (const auto& [key, value] : point) SetExperimentOption(config, key, value);
  ExperimentResult result;
  try {
    result = RunExperiment(config);
  } catch (const UsageError& error) {
    throw UsageError(RunId(index, grid_size) + " (" + PointText(point) + "): " + error.what());
  }
  const std::string dir = out_dir + "/runs/" + RunId(index, grid_size);
  PrepareOutputDir(dir);
  WriteSummaryJson(dir + "/summary.json", result.info, result.summary);
  WriteRequestsCsv(dir + "/requests.csv", result.records, RequestColumnsFor(config));
  rows[static_cast<size_t>(k)] =
      SweepCsvRow(index, grid_size, ExperimentOptionValues(config, option_keys), result);
  const RunSummary& s = result.summary;
  if (s.requests_completed == 0) {
    warnings[static_cast<size_t>(k)] =
        RunId(index, grid_size) + " (" + PointText(point) + "): no request completed (" +
        std::to_string(s.engine.rejected_requests) + " rejected, " +
        std::to_string(s.requests_cancelled) + " cancelled" +
        (s.engine.rejected_requests > 0
             ? "; first " + SettingText(result.info, "warnings", "rejected_requests", 0)
             : std::string()) +
        "): its latency, rate and hit-rate fields in sweep.csv are empty";
  }
}

void ValidateGrid(const ExperimentConfig& base, const std::vector<GridAxis>& axes,
                  int64_t grid_size) {
  for (int64_t index = 0; index < grid_size; ++index) {
    PollInterrupt(base);
    const std::vector<OptionSetting> point = GridPoint(axes, index);
    ExperimentConfig config = base;
    for (const auto& [key, value] : point) SetExperimentOption(config, key, value);
    try {
      ValidateExperiment(config);
    } catch (const UsageError& error) {
      throw UsageError(RunId(index, grid_size) + " (" + PointText(point) + "): " + error.what());
    }
  }
}

SweepManifest MakeManifest(const ExperimentConfig& base, const std::vector<GridAxis>& axes,
                           int64_t grid_size, const Shard& shard) {
  SweepManifest manifest;
  manifest.grid_size = grid_size;
  manifest.axes = axes;
  manifest.shard = std::to_string(shard.index) + "/" + std::to_string(shard.count);
  for (const OptionSetting& option : ExperimentOptionValues(base)) {
    const bool on_axis = std::any_of(axes.begin(), axes.end(), [&](const GridAxis& axis) {
      return axis.key == option.first;
    });
    if (!on_axis) manifest.options.push_back(option);
  }
  return manifest;
}

}  // namespace efimsim
