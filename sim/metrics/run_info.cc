#include "sim/metrics/run_info.h"

namespace efimsim {

RunInfoSection& RunInfo::Section(const std::string& name) {
  for (RunInfoSection& section : sections) {
    if (section.name == name) return section;
  }
  sections.push_back({name, {}});
  return sections.back();
}

}  // namespace efimsim
