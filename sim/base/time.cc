#include "sim/base/time.h"

#include <cmath>

#include "sim/base/check.h"

namespace efimsim {

Duration FromSeconds(double seconds) {
  EFIMSIM_CHECK(std::isfinite(seconds) && seconds >= 0.0, "FromSeconds: bad value");
  EFIMSIM_CHECK(FitsFromSeconds(seconds), "FromSeconds: more than 2^62 ns (about 146 years)");
  return Duration{std::llround(seconds * 1e9)};
}

}  // namespace efimsim
