#include "models/latency/roofline_fit.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <Eigen/Dense>

#include "sim/base/check.h"

namespace efimsim {

namespace {

double RelativeSquaredError(std::span<const RooflineFitSample> samples, const RooflineFit& fit) {
  double sum = 0;
  for (const RooflineFitSample& s : samples) {
    const double r = (fit.Seconds(s.work) - s.seconds) / s.seconds;
    sum += r * r;
  }
  return sum;
}

// Weighted least squares for the coefficients marked free, given which
// branch each sample is on; rows are divided by the measured time so the
// residuals are relative. Coefficients that come out negative are pinned to
// 0 and the rest solved again.
RooflineFit SolveForBranches(std::span<const RooflineFitSample> samples,
                             const std::vector<bool>& on_compute, RooflineFit fit) {
  bool any_compute = false;
  bool any_memory = false;
  for (size_t i = 0; i < samples.size(); ++i) {
    (on_compute[i] ? any_compute : any_memory) = true;
  }
  // Column 0: seconds_per_flop, 1: seconds_per_byte, 2: fixed_seconds.
  bool free[3] = {any_compute, any_memory, true};
  for (int attempt = 0; attempt < 4; ++attempt) {
    std::vector<int> columns;
    for (int c = 0; c < 3; ++c) {
      if (free[c]) columns.push_back(c);
    }
    if (columns.empty()) break;
    const Eigen::Index rows = static_cast<Eigen::Index>(samples.size());
    Eigen::MatrixXd a = Eigen::MatrixXd::Zero(rows, static_cast<Eigen::Index>(columns.size()));
    Eigen::VectorXd b(rows);
    for (Eigen::Index r = 0; r < rows; ++r) {
      const RooflineFitSample& s = samples[static_cast<size_t>(r)];
      const double weight = 1.0 / s.seconds;
      double fixed_part = 0;  // contribution of pinned coefficients
      const double x[3] = {on_compute[static_cast<size_t>(r)] ? s.work.flops : 0.0,
                           on_compute[static_cast<size_t>(r)] ? 0.0 : s.work.bytes, 1.0};
      const double value[3] = {fit.seconds_per_flop, fit.seconds_per_byte, fit.fixed_seconds};
      for (int c = 0; c < 3; ++c) {
        if (!free[c]) fixed_part += x[c] * value[c];
      }
      for (size_t j = 0; j < columns.size(); ++j) {
        a(r, static_cast<Eigen::Index>(j)) = weight * x[columns[j]];
      }
      b(r) = weight * (s.seconds - fixed_part);
    }
    const Eigen::VectorXd solution = a.colPivHouseholderQr().solve(b);
    bool negative = false;
    RooflineFit next = fit;
    for (size_t j = 0; j < columns.size(); ++j) {
      const double v = solution(static_cast<Eigen::Index>(j));
      double* target = columns[j] == 0   ? &next.seconds_per_flop
                       : columns[j] == 1 ? &next.seconds_per_byte
                                         : &next.fixed_seconds;
      if (!(v >= 0) || !std::isfinite(v)) {
        negative = true;
        *target = columns[j] == 2 ? 0.0 : *target;
        free[columns[j]] = false;
      } else {
        *target = v;
      }
    }
    if (!negative) return next;
    fit.fixed_seconds = free[2] ? fit.fixed_seconds : 0.0;
  }
  return fit;
}

}  // namespace

RooflineFit FitRoofline(std::span<const RooflineFitSample> samples, const RooflineFit& initial) {
  EFIMSIM_CHECK(!samples.empty(), "a fit needs samples");
  for (const RooflineFitSample& s : samples) {
    EFIMSIM_CHECK(s.seconds > 0 && std::isfinite(s.seconds), "measured times are > 0");
  }
  RooflineFit start = initial;
  start.fixed_seconds = 0;
  if (samples.size() < 3) {
    // Too few points for three coefficients: the least-squares common scale
    // of the initial roofline (relative residuals).
    double numerator = 0;
    double denominator = 0;
    for (const RooflineFitSample& s : samples) {
      const double model = start.Seconds(s.work) / s.seconds;
      numerator += model;
      denominator += model * model;
    }
    const double scale = denominator > 0 ? numerator / denominator : 1.0;
    return {start.seconds_per_flop * scale, start.seconds_per_byte * scale, 0.0};
  }
  // The active branch of max() is a threshold in arithmetic intensity
  // (FLOPs per byte): samples below the ridge q/p are memory-bound, above it
  // compute-bound. Try every split of the samples sorted by intensity, solve
  // each linear problem, and keep the coefficients with the least error of
  // the full (max-shaped) model.
  std::vector<size_t> order(samples.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto intensity = [&](size_t i) {
    const OperatorWork& w = samples[i].work;
    return w.bytes > 0 ? w.flops / w.bytes : std::numeric_limits<double>::infinity();
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return intensity(a) < intensity(b); });
  RooflineFit best = start;
  double best_error = RelativeSquaredError(samples, start);
  std::vector<bool> on_compute(samples.size());
  for (size_t split = 0; split <= order.size(); ++split) {
    for (size_t rank = 0; rank < order.size(); ++rank) {
      on_compute[order[rank]] = rank >= split && samples[order[rank]].work.flops > 0;
    }
    const RooflineFit candidate = SolveForBranches(samples, on_compute, start);
    const double error = RelativeSquaredError(samples, candidate);
    if (error < best_error) {
      best_error = error;
      best = candidate;
    }
  }
  return best;
}

}  // namespace efimsim
