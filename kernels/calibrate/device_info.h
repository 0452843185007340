#pragma once
// Provenance of a calibration run: what the device and the software were.

#include <cstddef>
#include <string>

#include "profile.h"

namespace efimsim::kernels {

struct DeviceInfo {
  Provenance provenance;
  std::size_t l2_bytes = 0;
  std::size_t global_memory_bytes = 0;
  int compute_capability = 0;  // e.g. 90
};

// Reads device `device` (clocks as reported at start). `git_commit` is used
// when non-empty; otherwise `git rev-parse HEAD` in `source_dir` (with
// "-dirty" when the tree has changes), or "unknown".
DeviceInfo read_device_info(int device, const std::string& git_commit, const std::string& source_dir);

std::string utc_now_iso8601();

}  // namespace efimsim::kernels
