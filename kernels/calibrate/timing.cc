#include "timing.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "../cuda/kernels.h"
#include "cuda_check.h"

namespace efimsim::kernels {

Timer::Timer(const TimingOptions& options, std::size_t l2_bytes)
    : options_(options), flush_(options.flush_l2 ? 2 * std::max<std::size_t>(l2_bytes, 1u << 20) : 0) {
  if (options_.reps < 20) throw std::invalid_argument("timing needs at least 20 runs");
  if (options_.warmup < 1) throw std::invalid_argument("timing needs a warm-up");
  if (options_.long_point_reps < 5) throw std::invalid_argument("a long point needs at least 5 timed runs");
  if (!(options_.long_point_us >= 0.0)) throw std::invalid_argument("long_point_us must be >= 0");
  const int slots = std::max(options_.reps, options_.long_point_reps);
  start_.resize(slots);
  stop_.resize(slots);
  for (int i = 0; i < slots; ++i) {
    CUDA_CHECK(cudaEventCreate(&start_[i]));
    CUDA_CHECK(cudaEventCreate(&stop_[i]));
  }
}

Timer::~Timer() {
  for (auto e : start_) cudaEventDestroy(e);
  for (auto e : stop_) cudaEventDestroy(e);
}

void Timer::enqueue_timed(const std::function<void()>& launch, int slot) {
  if (options_.flush_l2) CUDA_CHECK(cudaMemsetAsync(flush_.data(), slot & 0xff, flush_.bytes(), 0));
  LAUNCH_CHECK(cuda::spin(options_.spin_ns, 0));
  CUDA_CHECK(cudaEventRecord(start_[slot], 0));
  launch();
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaEventRecord(stop_[slot], 0));
}

float Timer::elapsed_us(int slot) const {
  float ms = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start_[slot], stop_[slot]));
  return 1000.0f * ms;
}

double Timer::median_us(const std::function<void()>& launch) {
  // First warm-up: module load and first-call set-up stay out of the probe.
  launch();
  CUDA_CHECK(cudaGetLastError());
  // Second warm-up, timed: the probe that tells a long point.
  enqueue_timed(launch, 0);
  CUDA_CHECK(cudaDeviceSynchronize());
  const bool long_point = options_.long_point_us > 0.0 && elapsed_us(0) > options_.long_point_us;
  for (int i = 2; !long_point && i < options_.warmup; ++i) {
    launch();
    CUDA_CHECK(cudaGetLastError());
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  const int reps = long_point ? options_.long_point_reps : options_.reps;
  if (long_point) ++long_points_;
  for (int i = 0; i < reps; ++i) enqueue_timed(launch, i);
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<double> us(reps);
  for (int i = 0; i < reps; ++i) us[i] = elapsed_us(i);
  std::nth_element(us.begin(), us.begin() + us.size() / 2, us.end());
  double median = us[us.size() / 2];
  if (us.size() % 2 == 0) {
    median = 0.5 * (median + *std::max_element(us.begin(), us.begin() + us.size() / 2));
  }
  if (!std::isfinite(median) || median <= 0.0) throw std::runtime_error("timing: non-positive median");
  return median;
}

}  // namespace efimsim::kernels
