// RMSNorm, one CTA per token: a block reduction of the sum of squares in
// fp32, then a second pass (an L1/L2 hit) that scales and writes bf16.

#include "kernels.h"
#include "launch_config.h"
#include "vec.cuh"

namespace efimsim::kernels::cuda {
namespace {

constexpr int kThreads = launch::rmsnorm::kThreads;

__global__ void __launch_bounds__(kThreads) rmsnorm_kernel(const RmsNormParams p) {
  __shared__ float warp_sums[launch::rmsnorm::kWarpSums];
  static_assert(sizeof(warp_sums) == launch::rmsnorm::kStaticSmem);
  const std::size_t row = static_cast<std::size_t>(blockIdx.x) * p.hidden;
  const int chunks = p.hidden / 8;
  float sum2 = 0.0f;
  for (int c = threadIdx.x; c < chunks; c += kThreads) {
    float f[8];
    vec::to_float(vec::load(p.x + row + c * 8), f);
#pragma unroll
    for (int i = 0; i < 8; ++i) sum2 = fmaf(f[i], f[i], sum2);
  }
#pragma unroll
  for (int off = 16; off > 0; off /= 2) sum2 += __shfl_xor_sync(0xffffffffu, sum2, off);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = sum2;
  __syncthreads();
  float total = 0.0f;
#pragma unroll
  for (int w = 0; w < kThreads / 32; ++w) total += warp_sums[w];
  const float inv = rsqrtf(total / static_cast<float>(p.hidden) + p.eps);
  for (int c = threadIdx.x; c < chunks; c += kThreads) {
    float f[8], w[8];
    vec::to_float(vec::load(p.x + row + c * 8), f);
    vec::to_float(vec::load(p.weight + c * 8), w);
#pragma unroll
    for (int i = 0; i < 8; ++i) f[i] = f[i] * inv * w[i];
    vec::store(p.out + row + c * 8, vec::from_float(f));
  }
}

}  // namespace

cudaError_t rmsnorm(const RmsNormParams& p, cudaStream_t stream) {
  const launch::LaunchPlan plan = launch::rmsnorm_plan(p.tokens, p.hidden);
  if (!plan.ok()) return set_launch_error(plan.error);
  if (!p.x || !p.weight || !p.out || !(p.eps >= 0.0f) || !vec::aligned16(p.x) || !vec::aligned16(p.weight) ||
      !vec::aligned16(p.out)) {
    return set_launch_error("rmsnorm: null or misaligned pointer, or eps < 0");
  }
  if (plan.count == 0) return cudaSuccess;
  const launch::LaunchConfig& c = plan.launches[0];
  rmsnorm_kernel<<<static_cast<unsigned>(c.grid.x), static_cast<unsigned>(c.block.x), 0, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace efimsim::kernels::cuda
