// Llama rotate-half rotary embedding of q and k, in place, one CTA per token.
// cos/sin of the token's D/2 angles are computed once into shared memory
// (fp32: inv_freq = theta^(-2i/D), angle = pos * inv_freq, exactly as the
// CPU reference) and reused by every q and k head.

#include "kernels.h"
#include "launch_config.h"

namespace efimsim::kernels::cuda {
namespace {

constexpr int kThreads = launch::rope::kThreads;
constexpr int kMaxHeadDim = launch::rope::kMaxHeadDim;

__global__ void __launch_bounds__(kThreads) rope_kernel(const RopeParams p) {
  __shared__ float cos_s[kMaxHeadDim / 2];
  __shared__ float sin_s[kMaxHeadDim / 2];
  static_assert(sizeof(cos_s) + sizeof(sin_s) == launch::rope::kStaticSmem);
  const int token = blockIdx.x;
  const int half = p.head_dim / 2;
  const float pos = static_cast<float>(p.positions[token]);
  for (int i = threadIdx.x; i < half; i += kThreads) {
    const float inv_freq = powf(p.theta, static_cast<float>(-2 * i) / static_cast<float>(p.head_dim));
    sincosf(pos * inv_freq, &sin_s[i], &cos_s[i]);
  }
  __syncthreads();
  const int heads = p.q_heads + p.kv_heads;
  for (int j = threadIdx.x; j < heads * half; j += kThreads) {
    const int h = j / half;
    const int i = j % half;
    bf16_t* x = h < p.q_heads
                    ? p.q + (static_cast<std::size_t>(token) * p.q_heads + h) * p.head_dim
                    : p.k + (static_cast<std::size_t>(token) * p.kv_heads + (h - p.q_heads)) * p.head_dim;
    const float x1 = __bfloat162float(x[i]);
    const float x2 = __bfloat162float(x[i + half]);
    x[i] = __float2bfloat16_rn(x1 * cos_s[i] - x2 * sin_s[i]);
    x[i + half] = __float2bfloat16_rn(x2 * cos_s[i] + x1 * sin_s[i]);
  }
}

}  // namespace

cudaError_t rope(const RopeParams& p, cudaStream_t stream) {
  const launch::LaunchPlan plan = launch::rope_plan(p.tokens, p.q_heads, p.kv_heads, p.head_dim);
  if (!plan.ok()) return set_launch_error(plan.error);
  if (!p.q || !p.k || !p.positions || !(p.theta > 0.0f)) return set_launch_error("rope: null pointer or theta <= 0");
  if (plan.count == 0) return cudaSuccess;
  const launch::LaunchConfig& c = plan.launches[0];
  rope_kernel<<<static_cast<unsigned>(c.grid.x), static_cast<unsigned>(c.block.x), 0, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace efimsim::kernels::cuda
