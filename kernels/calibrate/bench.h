#pragma once
// Timed runs of each kernel at one shape, on fresh random inputs (device-side
// fill; never zeros) in freshly allocated buffers, with shuffled pages for
// the attention kernels. Each returns the median microseconds of one launch
// (timing.h) and the work it does, for roofline reporting.

#include <cstdint>
#include <string>

#include "../cuda/gemm_cublaslt.h"
#include "model_spec.h"
#include "timing.h"

namespace efimsim::kernels {

struct Work {
  double flops = 0;  // useful floating-point operations
  double bytes = 0;  // minimum HBM traffic (each input read once, each output written once)
};

struct Peaks {
  double tflops = 790.0;  // bf16 dense, measured 8192^3 (docs/gpu-calibration.md)
  double tbps = 3.0;      // HBM, device-to-device copy (docs/gpu-calibration.md)
};

// "123.4 us  512.3 TFLOP/s  1.23 TB/s  81% of roofline (compute)"
std::string describe_perf(double us, const Work& w, const Peaks& peaks);
// Time the roofline allows for `w`, in microseconds.
double roofline_us(const Work& w, const Peaks& peaks);

class Bench {
 public:
  Bench(cuda::CublasLtGemm& cublaslt, Timer& timer, int sm_count, std::uint64_t seed)
      : cublaslt_(cublaslt), timer_(timer), sm_count_(sm_count), seed_(seed) {}

  static Work gemm_work(int m, int n, int k);
  double gemm_cublaslt_us(int m, int n, int k);

  static Work prefill_work(const ModelSpec& s, int new_tokens, int context_tokens);
  double prefill_us(const ModelSpec& s, int new_tokens, int context_tokens);

  static Work decode_work(const ModelSpec& s, int batch, int context_tokens);
  double decode_us(const ModelSpec& s, int batch, int context_tokens);

  // op: rmsnorm, rope, silu_and_mul, gelu, residual_add, kv_cache_write
  static Work elementwise_work(const ModelSpec& s, const std::string& op, int tokens);
  double elementwise_us(const ModelSpec& s, const std::string& op, int tokens);

  // Sampling of `rows` tokens over fp32 logits of the model's vocabulary
  // (top_k 1: greedy argmax).
  static Work sampling_work(const ModelSpec& s, int rows);
  double sampling_us(const ModelSpec& s, int rows, int top_k);

  // True once after a point that was timed as a long point (TimingOptions).
  bool took_long_point() { return timer_.take_long_points() > 0; }

 private:
  std::uint64_t next_seed() { return seed_++; }
  cuda::CublasLtGemm& cublaslt_;
  Timer& timer_;
  int sm_count_;
  std::uint64_t seed_;
};

}  // namespace efimsim::kernels
