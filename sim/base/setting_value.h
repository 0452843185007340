#pragma once
// A typed setting's value as outputs write it (summary.json, sweep.csv,
// run descriptions): an integer, a double, a boolean or text.

#include <cstdint>
#include <string>
#include <variant>

namespace efimsim {

using SettingValue = std::variant<int64_t, double, bool, std::string>;

}  // namespace efimsim
