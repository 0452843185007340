#include "sim/metrics/run_info.h"

#include <type_traits>

#include "sim/metrics/output_writers.h"

namespace efimsim {

RunInfoSection& RunInfo::Section(const std::string& name) {
  for (RunInfoSection& section : sections) {
    if (section.name == name) return section;
  }
  sections.push_back({name, {}});
  return sections.back();
}

std::string SettingText(const RunInfo& info, const std::string& section, const std::string& key,
                        int decimals) {
  for (const RunInfoSection& s : info.sections) {
    if (s.name != section) continue;
    for (const Setting& setting : s.settings) {
      if (setting.key != key) continue;
      return std::visit(
          [decimals](const auto& v) -> std::string {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::string>) {
              return v;
            } else if constexpr (std::is_same_v<T, bool>) {
              return v ? "true" : "false";
            } else if constexpr (std::is_same_v<T, double>) {
              return FormatFixed(v, decimals);
            } else {
              return std::to_string(v);
            }
          },
          setting.value);
    }
  }
  return "";
}

}  // namespace efimsim
