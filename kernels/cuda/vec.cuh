#pragma once
// 16-byte vectors of eight bf16 for the bandwidth-bound per-token kernels.

#include <cuda_bf16.h>

namespace efimsim::kernels::cuda::vec {

struct alignas(16) Bf16x8 {
  __nv_bfloat162 h[4];
};

__device__ __forceinline__ void to_float(const Bf16x8& v, float (&f)[8]) {
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 x = __bfloat1622float2(v.h[i]);
    f[2 * i] = x.x;
    f[2 * i + 1] = x.y;
  }
}

__device__ __forceinline__ Bf16x8 from_float(const float (&f)[8]) {
  Bf16x8 v;
#pragma unroll
  for (int i = 0; i < 4; ++i) v.h[i] = __floats2bfloat162_rn(f[2 * i], f[2 * i + 1]);
  return v;
}

__device__ __forceinline__ Bf16x8 load(const __nv_bfloat16* p) { return *reinterpret_cast<const Bf16x8*>(p); }
__device__ __forceinline__ void store(__nv_bfloat16* p, const Bf16x8& v) { *reinterpret_cast<Bf16x8*>(p) = v; }

__host__ __device__ inline bool aligned16(const void* p) {
  return (reinterpret_cast<unsigned long long>(p) & 15ull) == 0;
}

}  // namespace efimsim::kernels::cuda::vec
