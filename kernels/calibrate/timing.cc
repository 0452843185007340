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
  start_.resize(options_.reps);
  stop_.resize(options_.reps);
  for (int i = 0; i < options_.reps; ++i) {
    CUDA_CHECK(cudaEventCreate(&start_[i]));
    CUDA_CHECK(cudaEventCreate(&stop_[i]));
  }
}

Timer::~Timer() {
  for (auto e : start_) cudaEventDestroy(e);
  for (auto e : stop_) cudaEventDestroy(e);
}

double Timer::median_us(const std::function<void()>& launch) {
  for (int i = 0; i < options_.warmup; ++i) {
    launch();
    CUDA_CHECK(cudaGetLastError());
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < options_.reps; ++i) {
    if (options_.flush_l2) CUDA_CHECK(cudaMemsetAsync(flush_.data(), i & 0xff, flush_.bytes(), 0));
    LAUNCH_CHECK(cuda::spin(options_.spin_ns, 0));
    CUDA_CHECK(cudaEventRecord(start_[i], 0));
    launch();
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaEventRecord(stop_[i], 0));
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<double> us(options_.reps);
  for (int i = 0; i < options_.reps; ++i) {
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start_[i], stop_[i]));
    us[i] = 1000.0 * ms;
  }
  std::nth_element(us.begin(), us.begin() + us.size() / 2, us.end());
  double median = us[us.size() / 2];
  if (us.size() % 2 == 0) {
    median = 0.5 * (median + *std::max_element(us.begin(), us.begin() + us.size() / 2));
  }
  if (!std::isfinite(median) || median <= 0.0) throw std::runtime_error("timing: non-positive median");
  return median;
}

}  // namespace efimsim::kernels
