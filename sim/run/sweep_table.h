#pragma once
// sweep.csv: one row per run, in grid order. Columns: run_index (0-based
// index in the whole grid), run_id (the run's folder under runs/),
// grid_size (runs in the whole grid), then every simulation option's value
// (underscored names: policy, users, ..., max_num_batched_tokens, ...), then
// every summary metric (same names as summary.json's results; latency
// distributions flattened as ttft_p99_ms etc.). Numbers are fixed-format, so
// equal runs give equal bytes whatever the thread count or shard.

#include <cstdint>
#include <string>
#include <vector>

#include "sim/run/sweep_grid.h"
#include "sim/run/experiment.h"

namespace efimsim {

// "run-0007": the run's folder name; width >= 4, enough for grid_size.
std::string RunId(int64_t run_index, int64_t grid_size);

std::string SweepCsvHeader(const std::vector<OptionSetting>& options);
// One line, newline-terminated. `options` are ExperimentOptionValues(config).
// A run that completed no request (every one rejected or cancelled) leaves
// its latency, rate and hit-rate fields empty: it measured none.
std::string SweepCsvRow(int64_t run_index, int64_t grid_size,
                        const std::vector<OptionSetting>& options, const ExperimentResult& result);

// Joins shard sweep.csv files (content, and a name for errors): equal
// headers, no run twice, and together every run of the grid; rows sorted by
// run_index. Throws InputError naming the file otherwise. The result equals
// the sweep.csv of the whole grid run at once, byte for byte.
std::string MergeSweepCsvs(const std::vector<std::string>& contents,
                           const std::vector<std::string>& names);

}  // namespace efimsim
