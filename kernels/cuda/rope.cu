// Llama rotate-half rotary embedding of q and k, in place, one CTA per token.
// cos/sin of the token's D/2 angles are computed once into shared memory
// (fp32: inv_freq = theta^(-2i/D), angle = pos * inv_freq, exactly as the
// CPU reference) and reused by every q and k head.

#include "kernels.h"

namespace efimsim::kernels::cuda {
namespace {

constexpr int kThreads = 128;
constexpr int kMaxHeadDim = 512;

__global__ void __launch_bounds__(kThreads) rope_kernel(const RopeParams p) {
  __shared__ float cos_s[kMaxHeadDim / 2];
  __shared__ float sin_s[kMaxHeadDim / 2];
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
  if (!p.q || !p.k || !p.positions || p.tokens < 0 || p.q_heads <= 0 || p.kv_heads <= 0 || p.head_dim <= 0 ||
      p.head_dim % 2 != 0 || p.head_dim > kMaxHeadDim || !(p.theta > 0.0f)) {
    return cudaErrorInvalidValue;
  }
  if (p.tokens == 0) return cudaSuccess;
  rope_kernel<<<p.tokens, kThreads, 0, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace efimsim::kernels::cuda
