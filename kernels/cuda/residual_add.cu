// out = a + b elementwise (out may alias an input). 16-byte vectors when all
// pointers are 16-byte aligned, a scalar tail otherwise.

#include "kernels.h"
#include "launch_config.h"
#include "vec.cuh"

namespace efimsim::kernels::cuda {
namespace {

constexpr int kThreads = launch::pointwise::kThreads;

__global__ void __launch_bounds__(kThreads) residual_add_kernel(const bf16_t* a, const bf16_t* b, bf16_t* out,
                                                                std::size_t n, bool vectorized) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * kThreads;
  const std::size_t first = blockIdx.x * static_cast<std::size_t>(kThreads) + threadIdx.x;
  const std::size_t vec_end = vectorized ? n / 8 * 8 : 0;
  for (std::size_t c = first; c < vec_end / 8; c += stride) {
    float x[8], y[8];
    vec::to_float(vec::load(a + c * 8), x);
    vec::to_float(vec::load(b + c * 8), y);
#pragma unroll
    for (int i = 0; i < 8; ++i) x[i] += y[i];
    vec::store(out + c * 8, vec::from_float(x));
  }
  for (std::size_t i = vec_end + first; i < n; i += stride) {
    out[i] = __float2bfloat16_rn(__bfloat162float(a[i]) + __bfloat162float(b[i]));
  }
}

}  // namespace

cudaError_t residual_add(const ResidualAddParams& p, cudaStream_t stream) {
  if (!p.a || !p.b || !p.out) return set_launch_error("residual_add: a null pointer");
  const bool vectorized = vec::aligned16(p.a) && vec::aligned16(p.b) && vec::aligned16(p.out);
  const launch::LaunchPlan plan = launch::residual_add_plan(p.n, vectorized);
  if (plan.count == 0) return cudaSuccess;
  const launch::LaunchConfig& c = plan.launches[0];
  residual_add_kernel<<<static_cast<unsigned>(c.grid.x), static_cast<unsigned>(c.block.x), 0, stream>>>(
      p.a, p.b, p.out, p.n, vectorized);
  return cudaGetLastError();
}

}  // namespace efimsim::kernels::cuda
