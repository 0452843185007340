#include "sim/metrics/distribution.h"

#include <algorithm>
#include <cmath>

#include "sim/base/check.h"

namespace efimsim {

PercentileRank PercentileRankOf(size_t n, double q) {
  EFIMSIM_CHECK(n > 0, "percentile of nothing");
  EFIMSIM_CHECK(q >= 0.0 && q <= 100.0, "percentile out of range");
  const double rank = q / 100.0 * static_cast<double>(n - 1);
  PercentileRank r;
  r.below = static_cast<size_t>(std::floor(rank));
  r.above = std::min(r.below + 1, n - 1);
  r.fraction = rank - static_cast<double>(r.below);
  return r;
}

double PercentileOfSorted(std::span<const double> sorted, double q) {
  const PercentileRank r = PercentileRankOf(sorted.size(), q);
  return r.Of(sorted[r.below], sorted[r.above]);
}

Distribution Summarize(std::vector<double> values) {
  Distribution d;
  if (values.empty()) return d;
  std::sort(values.begin(), values.end());
  d.count = static_cast<int64_t>(values.size());
  double sum = 0;
  for (const double v : values) sum += v;  // sorted order: deterministic
  d.mean = sum / static_cast<double>(values.size());
  d.p50 = PercentileOfSorted(values, 50);
  d.p90 = PercentileOfSorted(values, 90);
  d.p99 = PercentileOfSorted(values, 99);
  d.max = values.back();
  return d;
}

}  // namespace efimsim
