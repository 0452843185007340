// gelu_pytorch_tanh over [tokens, ffn] -> [tokens, ffn] (StarCoder2's plain
// MLP activation), eight elements per thread with 16-byte loads, fp32 math:
// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).

#include "kernels.h"
#include "launch_config.h"
#include "vec.cuh"

namespace efimsim::kernels::cuda {
namespace {

constexpr int kThreads = launch::pointwise::kThreads;

__global__ void __launch_bounds__(kThreads) gelu_tanh_kernel(const GeluParams p) {
  const std::size_t total = static_cast<std::size_t>(p.ffn) / 8 * p.tokens;
  for (std::size_t c = blockIdx.x * static_cast<std::size_t>(kThreads) + threadIdx.x; c < total;
       c += static_cast<std::size_t>(gridDim.x) * kThreads) {
    float x[8];
    vec::to_float(vec::load(p.x + c * 8), x);
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const float inner = 0.7978845608028654f * fmaf(0.044715f * x[i], x[i] * x[i], x[i]);
      x[i] = 0.5f * x[i] * (1.0f + tanhf(inner));
    }
    vec::store(p.out + c * 8, vec::from_float(x));
  }
}

}  // namespace

cudaError_t gelu_tanh(const GeluParams& p, cudaStream_t stream) {
  const launch::LaunchPlan plan = launch::gelu_plan(p.tokens, p.ffn);
  if (!plan.ok()) return set_launch_error(plan.error);
  if (!p.x || !p.out || !vec::aligned16(p.x) || !vec::aligned16(p.out)) {
    return set_launch_error("gelu_tanh: null or misaligned pointer");
  }
  if (plan.count == 0) return cudaSuccess;
  const launch::LaunchConfig& c = plan.launches[0];
  gelu_tanh_kernel<<<static_cast<unsigned>(c.grid.x), static_cast<unsigned>(c.block.x), 0, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace efimsim::kernels::cuda
