#include "traces/benchmark_arrivals.h"

#include <cmath>
#include <limits>

namespace efimsim {
namespace {

constexpr double kNsPerS = 1e9;

double StandardNormal(RandomStream& random) {
  // Box-Muller; 1 - U keeps the logarithm's argument in (0, 1].
  const double u1 = 1.0 - random.UniformDouble();
  const double u2 = random.UniformDouble();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

// Appends `count` times over [start, start + length): exponential gaps
// scaled to sum to `length`, as inference-perf's ConstantLoadTimer.
void AppendConstantSchedule(int64_t count, double start_s, double length_s, RandomStream& random,
                            std::vector<double>& out_s) {
  std::vector<double> gaps(static_cast<size_t>(count));
  double total = 0;
  for (double& gap : gaps) {
    gap = random.Exponential(1.0);
    total += gap;
  }
  double t = start_s;
  for (const double gap : gaps) {
    t += gap * (length_s / total);
    out_s.push_back(t);
  }
}

std::vector<int64_t> ToNs(const std::vector<double>& seconds) {
  std::vector<int64_t> out;
  out.reserve(seconds.size());
  for (const double s : seconds) out.push_back(static_cast<int64_t>(std::llround(s * kNsPerS)));
  return out;
}

}  // namespace

double GammaSample(double shape, double scale, RandomStream& random) {
  if (shape < 1.0) {
    // Boost to shape + 1, then scale by U^(1/shape) (Marsaglia-Tsang).
    const double u = 1.0 - random.UniformDouble();
    return GammaSample(shape + 1.0, scale, random) * std::pow(u, 1.0 / shape);
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  while (true) {
    double x;
    double v;
    do {
      x = StandardNormal(random);
      v = 1.0 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const double u = 1.0 - random.UniformDouble();
    if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v * scale;
  }
}

int64_t PoissonSample(double mean, RandomStream& random) {
  // Unit-rate exponential gaps that fit in `mean`: exact, O(mean) draws.
  int64_t count = 0;
  double t = random.Exponential(1.0);
  while (t <= mean) {
    ++count;
    t += random.Exponential(1.0);
  }
  return count;
}

VllmBenchArrivalSchedule::VllmBenchArrivalSchedule(int64_t n, double rate, double burstiness,
                                                   const RandomStream& random)
    : rate_(rate), burstiness_(burstiness), random_(random) {
  if (std::isinf(rate_)) return;
  double total = 0;
  for (int64_t i = 0; i < n; ++i) total += Delay();
  if (total > 0) factor_ = (static_cast<double>(n) / rate_) / total;
  random_ = random;  // NextNs draws the same delays again
}

double VllmBenchArrivalSchedule::Delay() {
  return std::isinf(burstiness_) ? 1.0 / rate_
                                 : GammaSample(burstiness_, 1.0 / (rate_ * burstiness_), random_);
}

int64_t VllmBenchArrivalSchedule::NextNs() {
  if (std::isinf(rate_)) return 0;
  cumulative_s_ += Delay();
  return static_cast<int64_t>(std::llround(cumulative_s_ * factor_ * kNsPerS));
}

std::vector<int64_t> VllmBenchArrivalsNs(int64_t n, double rate, double burstiness,
                                         const RandomStream& random) {
  VllmBenchArrivalSchedule schedule(n, rate, burstiness, random);
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) out.push_back(schedule.NextNs());
  return out;
}

std::vector<int64_t> InferencePerfStageArrivalsNs(InferencePerfLoad load, double rate,
                                                  double duration_s, RandomStream& random) {
  const auto n = static_cast<int64_t>(rate * duration_s);  // Python's int(): truncation
  std::vector<double> times_s;
  times_s.reserve(static_cast<size_t>(n));
  if (n == 0) return {};
  if (load == InferencePerfLoad::kConstant) {
    AppendConstantSchedule(n, 0.0, duration_s, random, times_s);
    return ToNs(times_s);
  }
  double second_start = 0;
  while (static_cast<int64_t>(times_s.size()) < n) {
    const int64_t count = PoissonSample(rate, random);
    if (count > 0) AppendConstantSchedule(count, second_start, 1.0, random, times_s);
    second_start += 1.0;
  }
  times_s.resize(static_cast<size_t>(n));
  return ToNs(times_s);
}

}  // namespace efimsim
