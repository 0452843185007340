#pragma once
// GPU timing as docs/gpu-calibration.md prescribes: CUDA events around each launch, a
// warm-up, the median of at least 20 runs (a long point: of long_point_reps,
// see TimingOptions). Before every timed run the L2 is
// flushed (a memset of twice its size: in a real step each layer's weights
// and KV come from HBM) and a spin kernel holds the GPU while the host queues
// the start event, the launch and the stop event, so launch latency is not
// counted. Every launch is checked, and so is the last error after it.

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "../cuda/device_buffer.h"

namespace efimsim::kernels {

struct TimingOptions {
  int warmup = 5;  // runs before the timed ones, at least 2 in effect (the second is the probe below)
  int reps = 25;   // timed runs of a point, at least 20
  bool flush_l2 = true;
  std::uint32_t spin_ns = 50000;
  // Long points. The second warm-up run is timed like a timed run (the
  // probe); when it takes more than long_point_us, no further warm-up runs
  // and only long_point_reps timed runs follow. Such points (prefill at 16k
  // new tokens, lm_head at M = 16384) took 85% of a sweep's GPU time at 30
  // runs each, and their two repetitions' medians differed by a median of
  // 0.04% (H200 logs of 2026-11-27, kernels/calibrate/runs/). 0 disables.
  double long_point_us = 2000.0;
  int long_point_reps = 7;  // at least 5
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

  // Points timed with long_point_reps since the last call (for the log).
  int take_long_points() { return std::exchange(long_points_, 0); }

 private:
  // One run as a timed run is made: L2 flush, spin, events around it.
  void enqueue_timed(const std::function<void()>& launch, int slot);
  float elapsed_us(int slot) const;

  TimingOptions options_;
  cuda::DeviceBuffer<unsigned char> flush_;
  std::vector<cudaEvent_t> start_, stop_;
  int long_points_ = 0;
};

}  // namespace efimsim::kernels
