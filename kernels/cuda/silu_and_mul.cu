// out = silu(gate) * up over [tokens, 2 * ffn] -> [tokens, ffn], eight
// elements per thread with 16-byte loads, fp32 math.

#include "kernels.h"
#include "launch_config.h"
#include "vec.cuh"

namespace efimsim::kernels::cuda {
namespace {

constexpr int kThreads = launch::pointwise::kThreads;

__global__ void __launch_bounds__(kThreads) silu_and_mul_kernel(const SiluAndMulParams p) {
  const std::size_t chunks_per_token = static_cast<std::size_t>(p.ffn) / 8;
  const std::size_t total = chunks_per_token * p.tokens;
  for (std::size_t c = blockIdx.x * static_cast<std::size_t>(kThreads) + threadIdx.x; c < total;
       c += static_cast<std::size_t>(gridDim.x) * kThreads) {
    const std::size_t token = c / chunks_per_token;
    const std::size_t col = (c % chunks_per_token) * 8;
    const bf16_t* row = p.x + token * 2 * p.ffn;
    float g[8], u[8];
    vec::to_float(vec::load(row + col), g);
    vec::to_float(vec::load(row + p.ffn + col), u);
#pragma unroll
    for (int i = 0; i < 8; ++i) g[i] = g[i] / (1.0f + expf(-g[i])) * u[i];
    vec::store(p.out + token * p.ffn + col, vec::from_float(g));
  }
}

}  // namespace

cudaError_t silu_and_mul(const SiluAndMulParams& p, cudaStream_t stream) {
  const launch::LaunchPlan plan = launch::silu_and_mul_plan(p.tokens, p.ffn);
  if (!plan.ok()) return set_launch_error(plan.error);
  if (!p.x || !p.out || !vec::aligned16(p.x) || !vec::aligned16(p.out)) {
    return set_launch_error("silu_and_mul: null or misaligned pointer");
  }
  if (plan.count == 0) return cudaSuccess;
  const launch::LaunchConfig& c = plan.launches[0];
  silu_and_mul_kernel<<<static_cast<unsigned>(c.grid.x), static_cast<unsigned>(c.block.x), 0, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace efimsim::kernels::cuda
