#pragma once
// The summary of one metric's samples: count, mean, percentiles and max.
// Percentiles use linear interpolation between closest ranks (numpy's and
// pandas' default), so they match what a notebook computes from
// requests.csv. The mean is the sum taken in ascending order over the
// count: deterministic whatever order the samples came in.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace efimsim {

struct Distribution {
  int64_t count = 0;
  double mean = 0, p50 = 0, p90 = 0, p99 = 0, max = 0;
};
// Precondition-free: an empty input gives count 0 and zeros.
Distribution Summarize(std::vector<double> values);
// Linear-interpolation percentile of sorted values, q in [0, 100].
double PercentileOfSorted(std::span<const double> sorted, double q);

// Where percentile q of n sorted values lies: between the values at
// indices `below` and `above`, `fraction` of the way (PercentileOfSorted's
// rule, for callers that visit the sorted values one at a time).
struct PercentileRank {
  size_t below = 0;
  size_t above = 0;
  double fraction = 0;
  double Of(double at_below, double at_above) const {
    return at_below + (at_above - at_below) * fraction;
  }
};
// Requires n >= 1 and q in [0, 100].
PercentileRank PercentileRankOf(size_t n, double q);

}  // namespace efimsim
