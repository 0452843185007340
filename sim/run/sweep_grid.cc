#include "sim/run/sweep_grid.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "sim/run/run_params.h"
#include "sim/base/errors.h"
#include "sim/client/policy.h"

namespace efimsim {
namespace {

constexpr int64_t kMaxGridSize = 1'000'000;

std::vector<std::string> SplitValues(const std::string& key, const std::string& text) {
  std::vector<std::string> values;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    if (item.empty()) throw UsageError("--grid " + key + ": empty value in '" + text + "'");
    if (std::find(values.begin(), values.end(), item) != values.end()) {
      throw UsageError("--grid " + key + ": value '" + item + "' given twice");
    }
    values.push_back(item);
  }
  if (values.empty() || text.back() == ',') {
    throw UsageError("--grid " + key + ": empty value in '" + text + "'");
  }
  return values;
}

}  // namespace

std::string OptionKey(const std::string& name) {
  std::string key = name;
  std::replace(key.begin(), key.end(), '_', '-');
  return key;
}

void SetExperimentOption(ExperimentConfig& config, const std::string& key,
                         const std::string& value) {
  if (key == "policy") {
    GetPolicy(value);  // throws naming the valid policies
    config.policy = value;
    return;
  }
  const RunParam* param = FindRunParam(key);
  if (param == nullptr) {
    throw UsageError("--grid: unknown option '" + key +
                     "' (any option of `efimsim replay --help`, or policy)");
  }
  param->set(value, config);
}

std::vector<std::string> SweepOptionKeys(const ExperimentConfig& base,
                                         const std::vector<GridAxis>& axes) {
  static const ExperimentConfig defaults;
  std::vector<std::string> keys = {"policy"};
  for (const RunParamTable& table : AllParamTables()) {
    for (const RunParam& param : table.params) {
      const std::string& name = param.info->name;
      if (name == "timeline") continue;  // never set in sweeps
      if (param.info->quiet_default && param.value(base) == param.value(defaults) &&
          std::none_of(axes.begin(), axes.end(),
                       [&](const GridAxis& axis) { return axis.key == name; })) {
        continue;
      }
      keys.push_back(name);
    }
  }
  return keys;
}

std::vector<OptionSetting> ExperimentOptionValues(const ExperimentConfig& config,
                                                  const std::vector<std::string>& keys) {
  std::vector<OptionSetting> values;
  for (const std::string& key : keys) {
    values.emplace_back(key, key == "policy" ? config.policy : FindRunParam(key)->value(config));
  }
  return values;
}

std::vector<OptionSetting> ExperimentOptionValues(const ExperimentConfig& config) {
  return ExperimentOptionValues(config, SweepOptionKeys(config, {}));
}

GridAxis ParseGridAxis(const std::string& text) {
  const size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0) {
    throw UsageError("--grid: expected KEY=V1,V2,... (e.g. users=8,16,32), got '" + text + "'");
  }
  GridAxis axis;
  axis.key = OptionKey(text.substr(0, equals));
  if (axis.key == "timeline") {
    throw UsageError("--grid timeline: not a grid option (every run writes its own outputs)");
  }
  axis.values = SplitValues(axis.key, text.substr(equals + 1));
  ExperimentConfig scratch;
  for (const std::string& value : axis.values) {
    if (value.find('\n') != std::string::npos || value.find('"') != std::string::npos) {
      throw UsageError("--grid " + axis.key + ": values may not contain quotes or newlines");
    }
    SetExperimentOption(scratch, axis.key, value);
  }
  return axis;
}

void CheckDistinctAxes(const std::vector<GridAxis>& axes) {
  for (size_t i = 0; i < axes.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (axes[i].key == axes[j].key) {
        throw UsageError("--grid " + axes[i].key + ": the option has two axes");
      }
    }
  }
}

int64_t GridSize(const std::vector<GridAxis>& axes) {
  int64_t size = 1;
  for (const GridAxis& axis : axes) {
    size *= static_cast<int64_t>(axis.values.size());
    if (size > kMaxGridSize) {
      throw UsageError("--grid: more than " + std::to_string(kMaxGridSize) + " runs");
    }
  }
  return size;
}

std::vector<OptionSetting> GridPoint(const std::vector<GridAxis>& axes, int64_t index) {
  std::vector<OptionSetting> point(axes.size());
  for (size_t a = axes.size(); a-- > 0;) {
    const int64_t n = static_cast<int64_t>(axes[a].values.size());
    point[a] = {axes[a].key, axes[a].values[static_cast<size_t>(index % n)]};
    index /= n;
  }
  return point;
}

Shard ParseShard(const std::string& text) {
  const size_t slash = text.find('/');
  auto number = [&](const std::string& part) -> int64_t {
    if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos ||
        part.size() > 9) {
      throw UsageError("--shard: expected I/N with 0 <= I < N (e.g. 0/4), got '" + text + "'");
    }
    return std::strtoll(part.c_str(), nullptr, 10);
  };
  if (slash == std::string::npos) {
    throw UsageError("--shard: expected I/N with 0 <= I < N (e.g. 0/4), got '" + text + "'");
  }
  Shard shard;
  shard.index = number(text.substr(0, slash));
  shard.count = number(text.substr(slash + 1));
  if (shard.count < 1 || shard.index >= shard.count) {
    throw UsageError("--shard: expected I/N with 0 <= I < N (e.g. 0/4), got '" + text + "'");
  }
  return shard;
}

}  // namespace efimsim
