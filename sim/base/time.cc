#include "sim/base/time.h"

#include <cmath>

#include "sim/base/check.h"

namespace efimsim {

Duration FromSeconds(double seconds) {
  EFIMSIM_CHECK(std::isfinite(seconds) && seconds >= 0.0, "FromSeconds: bad value");
  EFIMSIM_CHECK(seconds < 9.2e9, "FromSeconds: overflows int64 nanoseconds");
  return Duration{std::llround(seconds * 1e9)};
}

}  // namespace efimsim
