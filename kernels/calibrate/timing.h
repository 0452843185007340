#pragma once
// GPU timing as docs/gpu-calibration.md prescribes: CUDA events around each launch, a
// warm-up, the median of at least 20 runs. Before every timed run the L2 is
// flushed (a memset of twice its size: in a real step each layer's weights
// and KV come from HBM) and a spin kernel holds the GPU while the host queues
// the start event, the launch and the stop event, so launch latency is not
// counted. Every launch is checked, and so is the last error after it.

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "../cuda/device_buffer.h"

namespace efimsim::kernels {

struct TimingOptions {
  int warmup = 5;
  int reps = 25;  // at least 20
  bool flush_l2 = true;
  std::uint32_t spin_ns = 50000;
};

class Timer {
 public:
  Timer(const TimingOptions& options, std::size_t l2_bytes);
  ~Timer();
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

  // `launch` enqueues the kernel(s) on stream 0 and throws on failure.
  // Returns the median GPU time of one launch in microseconds.
  double median_us(const std::function<void()>& launch);

 private:
  TimingOptions options_;
  cuda::DeviceBuffer<unsigned char> flush_;
  std::vector<cudaEvent_t> start_, stop_;
};

}  // namespace efimsim::kernels
