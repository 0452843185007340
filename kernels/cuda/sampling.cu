// Greedy / top-k sampling over the vocabulary, one CTA per row.
//
// Each thread scans a stride of the row (16-byte loads when the row is
// 16-byte aligned) and keeps its best C (value, id) pairs in registers,
// sorted, C = 1 for greedy and kMaxTopK otherwise (compile-time indices
// only). Then top_k rounds of a block argmax over the threads' heads pick the
// row's top_k in order; the winner's owner pops its head. Thread 0 draws
// the token from the softmax over them. The order is total (value
// descending, then id ascending; NaN never wins), so the result is
// deterministic and the CPU reference (ref/sampling_ref.cc) picks the same
// top-k.

#include <cfloat>
#include <climits>

#include "kernels.h"
#include "launch_config.h"
#include "vec.cuh"

namespace efimsim::kernels::cuda {
namespace {

namespace cfg = launch::sampling;
constexpr int kThreads = cfg::kThreads;
constexpr int kWarps = kThreads / 32;

__device__ __forceinline__ bool better(float av, int ai, float bv, int bi) {
  return av > bv || (av == bv && ai < bi);
}

template <int C>
struct TopList {
  float v[C];
  int i[C];
  __device__ __forceinline__ void init() {
#pragma unroll
    for (int j = 0; j < C; ++j) {
      v[j] = -INFINITY;
      i[j] = INT_MAX;
    }
  }
  __device__ __forceinline__ void offer(float x, int id) {
    if (!better(x, id, v[C - 1], i[C - 1])) return;
    bool placed = false;
#pragma unroll
    for (int j = C - 1; j > 0; --j) {
      if (!placed) {
        if (better(x, id, v[j - 1], i[j - 1])) {
          v[j] = v[j - 1];
          i[j] = i[j - 1];
        } else {
          v[j] = x;
          i[j] = id;
          placed = true;
        }
      }
    }
    if (!placed) {
      v[0] = x;
      i[0] = id;
    }
  }
  __device__ __forceinline__ void pop() {
#pragma unroll
    for (int j = 0; j + 1 < C; ++j) {
      v[j] = v[j + 1];
      i[j] = i[j + 1];
    }
    v[C - 1] = -INFINITY;
    i[C - 1] = INT_MAX;
  }
};

template <int C>
__global__ void __launch_bounds__(kThreads) sampling_kernel(const SamplingParams p, bool vectorized) {
  __shared__ float warp_v[kWarps];
  __shared__ int warp_i[kWarps];
  __shared__ float top_v[cfg::kMaxTopK];
  __shared__ int top_i[cfg::kMaxTopK];
  __shared__ float win_v;
  __shared__ int win_i;
  static_assert(sizeof(warp_v) + sizeof(warp_i) + sizeof(top_v) + sizeof(top_i) + sizeof(win_v) + sizeof(win_i) ==
                cfg::kStaticSmem);
  static_assert(C == 1 || C == cfg::kMaxTopK);

  const int row = blockIdx.x;
  const int tid = threadIdx.x;
  const float* logits = p.logits + static_cast<std::size_t>(row) * p.vocab;
  TopList<C> list;
  list.init();
  int tail = 0;
  if (vectorized) {
    const float4* v4 = reinterpret_cast<const float4*>(logits);
    const int n4 = p.vocab / 4;
    for (int c = tid; c < n4; c += kThreads) {
      const float4 x = v4[c];
      list.offer(x.x, 4 * c);
      list.offer(x.y, 4 * c + 1);
      list.offer(x.z, 4 * c + 2);
      list.offer(x.w, 4 * c + 3);
    }
    tail = n4 * 4;
  }
  for (int c = tail + tid; c < p.vocab; c += kThreads) list.offer(logits[c], c);

  const int warp = tid / 32;
  const int lane = tid % 32;
  for (int r = 0; r < p.top_k; ++r) {
    float bv = list.v[0];
    int bi = list.i[0];
#pragma unroll
    for (int off = 16; off > 0; off /= 2) {
      const float ov = __shfl_xor_sync(0xffffffffu, bv, off);
      const int oi = __shfl_xor_sync(0xffffffffu, bi, off);
      if (better(ov, oi, bv, bi)) {
        bv = ov;
        bi = oi;
      }
    }
    if (lane == 0) {
      warp_v[warp] = bv;
      warp_i[warp] = bi;
    }
    __syncthreads();
    if (tid == 0) {
      float wv = warp_v[0];
      int wi = warp_i[0];
      for (int w = 1; w < kWarps; ++w) {
        if (better(warp_v[w], warp_i[w], wv, wi)) {
          wv = warp_v[w];
          wi = warp_i[w];
        }
      }
      win_v = wv;
      win_i = wi;
      top_v[r] = wv;
      top_i[r] = wi;
    }
    __syncthreads();
    if (list.i[0] == win_i && win_i != INT_MAX) list.pop();  // ids are unique: one owner
  }

  if (tid == 0) {
    const int k = p.top_k;
    int token = top_i[0];
    if (k > 1) {
      // softmax over the top-k, then the first id whose cumulative weight
      // exceeds u * total (the last one if rounding leaves none)
      const float inv_t = 1.0f / p.temperature;
      float total = 0.0f;
      for (int j = 0; j < k; ++j) total += expf((top_v[j] - top_v[0]) * inv_t);
      const float target = p.uniforms[row] * total;
      float cum = 0.0f;
      token = top_i[k - 1];
      for (int j = 0; j < k; ++j) {
        cum += expf((top_v[j] - top_v[0]) * inv_t);
        if (cum > target) {
          token = top_i[j];
          break;
        }
      }
    }
    p.tokens[row] = token == INT_MAX ? -1 : token;
  }
  if (p.top_ids != nullptr || p.top_logits != nullptr) {
    for (int j = tid; j < p.top_k; j += kThreads) {
      const std::size_t o = static_cast<std::size_t>(row) * p.top_k + j;
      if (p.top_ids) p.top_ids[o] = top_i[j] == INT_MAX ? -1 : top_i[j];
      if (p.top_logits) p.top_logits[o] = top_v[j];
    }
  }
}

}  // namespace

cudaError_t sampling(const SamplingParams& p, cudaStream_t stream) {
  const launch::LaunchPlan plan = launch::sampling_plan(p.rows, p.vocab, p.top_k);
  if (!plan.ok()) return set_launch_error(plan.error);
  if (!p.logits || !p.tokens || (p.top_k > 1 && (!p.uniforms || !(p.temperature > 0.0f)))) {
    return set_launch_error("sampling: null pointer, or top_k > 1 without uniforms or a temperature > 0");
  }
  if (plan.count == 0) return cudaSuccess;
  const launch::LaunchConfig& c = plan.launches[0];
  const bool vectorized = vec::aligned16(p.logits) && p.vocab % 4 == 0;
  const dim3 grid(static_cast<unsigned>(c.grid.x));
  if (cfg::capacity(p.top_k) == 1) {
    sampling_kernel<1><<<grid, static_cast<unsigned>(c.block.x), 0, stream>>>(p, vectorized);
  } else {
    sampling_kernel<cfg::kMaxTopK><<<grid, static_cast<unsigned>(c.block.x), 0, stream>>>(p, vectorized);
  }
  return cudaGetLastError();
}

}  // namespace efimsim::kernels::cuda
