#pragma once
// Everything that describes how a run was set up, in order, for
// summary.json: sections ("policy", "workload", "engine", ...) of typed
// settings. Built by the caller; metrics only writes it.

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "sim/base/setting_value.h"

namespace efimsim {

struct Setting {
  std::string key;
  SettingValue value;
};

struct RunInfoSection {
  std::string name;
  std::vector<Setting> settings;
};

struct RunInfo {
  std::vector<RunInfoSection> sections;

  RunInfoSection& Section(const std::string& name);  // finds or appends
};

// The value of `key` in `section` as text ("" when absent): strings as
// they are, booleans as true/false, doubles with `decimals` fixed decimals.
std::string SettingText(const RunInfo& info, const std::string& section, const std::string& key,
                        int decimals);

}  // namespace efimsim
