#pragma once
// A roofline-shaped model of one operator, fitted to its measurements:
//
//   seconds = max(flops x seconds_per_flop, bytes x seconds_per_byte) + fixed_seconds
//
// (i.e. max(flops / a, bytes / b) + c with a = 1 / seconds_per_flop, ...).
// The fit minimizes the sum of squared *relative* residuals (times span
// orders of magnitude) with all three coefficients >= 0. Which branch of the
// max is active is a threshold in arithmetic intensity (FLOPs per byte), so
// the fit tries every split of the samples sorted by intensity, solves each
// resulting linear least-squares problem (Eigen), and keeps the best; exact
// roofline data is recovered exactly. Eigen stays in roofline_fit.cc.

#include <algorithm>
#include <span>

#include "models/latency/operator_work.h"

namespace efimsim {

struct RooflineFitSample {
  OperatorWork work;
  double seconds = 0;  // measured, > 0
};

struct RooflineFit {
  double seconds_per_flop = 0;
  double seconds_per_byte = 0;
  double fixed_seconds = 0;
  // Inline: the profile model evaluates it for every extrapolated lookup.
  double Seconds(const OperatorWork& work) const {
    return std::max(work.flops * seconds_per_flop, work.bytes * seconds_per_byte) + fixed_seconds;
  }
};

// `initial`: the starting point and the value kept for a coefficient the data
// cannot determine (a branch no sample is on, e.g. FLOPs of a memory-bound
// operator); typically the GPU spec's ceilings with fixed_seconds 0. With
// fewer than 3 samples only a common scale of `initial` is fitted.
// Precondition: samples non-empty, every seconds > 0.
RooflineFit FitRoofline(std::span<const RooflineFitSample> samples, const RooflineFit& initial);

}  // namespace efimsim
