#pragma once
// Arrival times as two public serving benchmarks schedule them, on
// efimsim's named random streams (sim/core/random.h) instead of numpy's,
// so the same seed gives the same times on every platform. Times are
// integer nanoseconds from the start of the schedule.

#include <cstdint>
#include <vector>

#include "sim/core/random.h"

namespace efimsim {

// vLLM `bench serve` (vllm/benchmarks/serve.py, get_request): request i
// waits a gamma-distributed delay (shape = burstiness, scale =
// 1 / (rate x burstiness): mean 1 / rate; burstiness 1 is Poisson, lower is
// burstier, infinite is a constant 1 / rate) after request i - 1, the
// first included; the cumulative delays are then rescaled so that the last
// request is sent at exactly n / rate. An infinite rate sends all at 0.
// Requires n >= 1, rate > 0, burstiness > 0.
//
// One time at a time in O(1) memory (a run of 10^7 requests need not hold
// them): the constructor draws the n delays once for their sum, which
// rescales every time, and NextNs draws them again from a copy of the
// stream as the requests are sent, so the times are the same to the bit as
// drawing and rescaling them all at once. The caller's stream is not
// advanced.
class VllmBenchArrivalSchedule {
 public:
  VllmBenchArrivalSchedule(int64_t n, double rate, double burstiness, const RandomStream& random);
  // The next request's time; call at most n times.
  int64_t NextNs();

 private:
  double Delay();  // the next gap, in seconds

  double rate_;
  double burstiness_;
  RandomStream random_;
  double factor_ = 1;        // n / rate over the delays' sum (1 if the sum is 0)
  double cumulative_s_ = 0;  // the delays drawn by NextNs so far, unscaled
};

// All n times at once (the same as n calls of NextNs).
std::vector<int64_t> VllmBenchArrivalsNs(int64_t n, double rate, double burstiness,
                                         const RandomStream& random);

// inference-perf (inference_perf/loadgen/load_timer.py) for one stage of
// int(rate x duration) requests, relative to the stage's start:
//   constant  exponential gaps of mean 1 / rate, scaled to sum to exactly
//             `duration_s` (so the last request is at the stage's end)
//   poisson   second by second: a Poisson(rate) count k; k = 0 skips the
//             second; otherwise k requests at the second's "constant"
//             schedule (the k-th at the second's end); until int(rate x
//             duration) requests have times (which can run past duration)
// Requires rate > 0 and duration_s > 0.
enum class InferencePerfLoad { kConstant, kPoisson };
std::vector<int64_t> InferencePerfStageArrivalsNs(InferencePerfLoad load, double rate,
                                                  double duration_s, RandomStream& random);

// Distributions the schedules draw from (exposed for tests).
double GammaSample(double shape, double scale, RandomStream& random);  // Marsaglia-Tsang
int64_t PoissonSample(double mean, RandomStream& random);  // count of unit-rate arrivals

}  // namespace efimsim
