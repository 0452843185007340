#pragma once
// A sweep's grid: axes of option values, expanded in a fixed order.
//
// An axis is "KEY=V1,V2,..." where KEY is any option of the simulation
// commands (compare/replay), spelled with dashes or underscores
// ("max_num_batched_tokens" == "max-num-batched-tokens"), or "policy".
// Values are validated by the same parameter tables that parse the
// command line, so a bad value fails with the option's own message.
//
// Expansion: the cartesian product of the axes in the order given, the
// first axis varying slowest; run i of a grid of size S is the i-th point of
// that order (0-based). Shard I/N holds the runs with i % N == I.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sim/run/experiment.h"

namespace efimsim {

struct GridAxis {
  std::string key;                  // CLI spelling with dashes, e.g. "max-num-batched-tokens"
  std::vector<std::string> values;  // in the order given, no duplicates
};

using OptionSetting = std::pair<std::string, std::string>;  // (key, value text)

// Parses and validates one --grid value; throws UsageError("--grid ...").
GridAxis ParseGridAxis(const std::string& text);
// Throws UsageError when two axes name the same option.
void CheckDistinctAxes(const std::vector<GridAxis>& axes);
// Number of points (1 for no axes). Throws UsageError above 1,000,000.
int64_t GridSize(const std::vector<GridAxis>& axes);
// The settings of point `index` (one per axis, in axis order).
std::vector<OptionSetting> GridPoint(const std::vector<GridAxis>& axes, int64_t index);

// "users" -> "users", "max_num_batched_tokens" -> "max-num-batched-tokens".
std::string OptionKey(const std::string& name);
// Sets one simulation option (or "policy") by name; throws UsageError
// naming the option for an unknown name or a bad value.
void SetExperimentOption(ExperimentConfig& config, const std::string& key,
                         const std::string& value);
// The options a sweep lists in sweep.csv: "policy", then every option of
// AllParamTables() in --help order, except those marked quiet_default
// (ParamInfo) that neither `base` sets nor an axis varies, so a sweep that
// does not use an option added later writes the bytes it wrote before.
std::vector<std::string> SweepOptionKeys(const ExperimentConfig& base,
                                         const std::vector<GridAxis>& axes);
// The values of `keys` (SweepOptionKeys) in `config`.
std::vector<OptionSetting> ExperimentOptionValues(const ExperimentConfig& config,
                                                  const std::vector<std::string>& keys);
// With the keys of SweepOptionKeys(config, no axes).
std::vector<OptionSetting> ExperimentOptionValues(const ExperimentConfig& config);

struct Shard {
  int64_t index = 0;  // I in [0, count)
  int64_t count = 1;  // N
  bool Holds(int64_t run_index) const { return run_index % count == index; }
};
// Parses "I/N"; throws UsageError("--shard: ...").
Shard ParseShard(const std::string& text);

}  // namespace efimsim
