// Split-KV decode attention over the paged KV cache (flash decoding).
//
// One CTA of 4 warps per (split, KV head, head chunk, sequence) serves G
// query heads of that KV head's group, so each K/V byte is read from memory
// once per step per chunk (the kernel is bandwidth-bound: one query row per
// head). G = launch::decode::heads_per_cta(group): the whole GQA group when
// it has at most 8 heads, otherwise its largest divisor <= 8 (a group of 12
// takes two CTAs of 6, whose second K/V read mostly hits L2); the registers
// hold 16 floats per head per thread, which caps G.
// Keys come in tiles of 64 (four pages), double-buffered in shared memory by
// cp.async. Per tile: (1) scores, D/8 lanes per key each doting a 16-byte
// chunk against G query rows, reduced by shuffles; (2) online softmax per
// head, one warp per head; (3) O += P V, each thread owning 8 output columns
// of every head for a stripe of keys, reduced across stripes at the end.
//
// With one split the CTA writes bf16 output. With S > 1 it writes its
// normalised partial output and log2-sum-exp to the workspace, and a combine
// kernel merges the splits; a split past a sequence's end writes lse = -inf,
// which the combine weights by 0.
//
// Grid, block and shared memory come from launch::decode_attention_plan
// (launch_config.h), which the CPU test checks for every model.

#include <algorithm>
#include <cfloat>

#include "kernels.h"
#include "launch_config.h"
#include "mma.cuh"

namespace efimsim::kernels::cuda {
namespace {

namespace cfg = launch::decode;
constexpr int kThreads = cfg::kThreads;
constexpr int kWarps = cfg::kWarps;
constexpr int kTile = cfg::kTile;
static_assert(sizeof(bf16_t) == launch::kBf16Bytes && sizeof(float) == launch::kFloatBytes);

template <int D, int G>
struct DecodeSmem {
  static constexpr std::size_t kKV = cfg::kv_elems(D);        // elements per stage
  static constexpr std::size_t kRegion = cfg::region_bytes(D, G);  // K[2], V[2]; then the stripe reduction
  static constexpr int kStripes = cfg::stripes(D);
  static constexpr std::size_t kBytes = cfg::smem_bytes(D, G);
  static_assert(cfg::kv_bytes(D) <= kRegion && cfg::reduce_bytes(D, G) <= kRegion);
  static_assert(kRegion % 16 == 0, "the floats after the region stay 16-byte aligned");
};

struct SplitArgs {
  int num_splits;
  int keys_per_split;
  int group;           // q_heads / kv_heads
  int ctas_per_group;  // group / G
  float* partial_out;  // [num_seqs, num_splits, q_heads, head_dim]
  float* partial_lse;  // [num_seqs, num_splits, q_heads], log2 domain
};

__device__ __forceinline__ void bf16x8_to_float(const uint4& raw, float (&f)[8]) {
  const __nv_bfloat162* h = reinterpret_cast<const __nv_bfloat162*>(&raw);
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 v = __bfloat1622float2(h[i]);
    f[2 * i] = v.x;
    f[2 * i + 1] = v.y;
  }
}

template <int D, int G>
__global__ void __launch_bounds__(kThreads) decode_attention_kernel(const DecodeAttentionParams p, const SplitArgs sa) {
  using Sm = DecodeSmem<D, G>;
  constexpr int kTpk = D / 8;          // lanes per key in the score phase
  constexpr int kKeysPerPass = 32 / kTpk;
  constexpr int kStripes = Sm::kStripes;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  bf16_t* k_s = reinterpret_cast<bf16_t*>(smem_raw);  // [2][kTile][D]
  bf16_t* v_s = k_s + 2 * Sm::kKV;                     // [2][kTile][D]
  float* q_s = reinterpret_cast<float*>(smem_raw + Sm::kRegion);   // [G][D]
  float* p_s = q_s + G * D;                                        // [G][kTile] scores, then probabilities
  float* alpha_s = p_s + G * kTile;                                // [G]
  float* m_s = alpha_s + G;                                        // [G] running max (log2 domain)
  float* l_s = m_s + G;                                            // [G] running sum
  float* red_s = reinterpret_cast<float*>(smem_raw);               // [kStripes][G][D], after the loop

  const int split = blockIdx.x;
  const int kv_head = blockIdx.y / sa.ctas_per_group;
  const int chunk0 = (blockIdx.y % sa.ctas_per_group) * G;  // first head of this CTA within the group
  const int seq = blockIdx.z;
  const int tid = threadIdx.x;
  const int warp = tid / 32;
  const int lane = tid % 32;
  const int ctx = p.context_lens[seq];
  const int begin = split * sa.keys_per_split;
  const int end = min(ctx, begin + sa.keys_per_split);
  const std::size_t head_in_seq = static_cast<std::size_t>(kv_head) * sa.group + chunk0;
  const std::size_t head0 = static_cast<std::size_t>(seq) * p.q_heads + head_in_seq;
  const std::size_t part0 = (static_cast<std::size_t>(seq) * sa.num_splits + split) * p.q_heads + head_in_seq;

  if (begin >= end) {  // nothing to attend to in this split
    for (int i = tid; i < G * D; i += kThreads) {
      if (sa.num_splits == 1) {
        p.out[head0 * D + i] = __float2bfloat16_rn(0.0f);
      } else {
        sa.partial_out[part0 * D + i] = 0.0f;
        if (i % D == 0) sa.partial_lse[part0 + i / D] = -INFINITY;
      }
    }
    return;
  }

  const std::int32_t* table = p.block_table + static_cast<std::size_t>(seq) * p.max_blocks_per_seq;
  auto load_kv = [&](int tile, int stage) {
    bf16_t* ks = k_s + stage * Sm::kKV;
    bf16_t* vs = v_s + stage * Sm::kKV;
    for (int c = tid; c < kTile * (D / 8); c += kThreads) {
      const int row = c / (D / 8);
      const int col = (c % (D / 8)) * 8;
      const int key = begin + tile * kTile + row;
      const bool valid = key < end;
      std::size_t off = 0;
      if (valid) {
        const std::size_t block = static_cast<std::size_t>(table[key / kBlockTokens]);
        off = ((block * kBlockTokens + key % kBlockTokens) * p.kv_heads + kv_head) * D + col;
      }
      ptx::cp_async_16(ks + row * D + col, p.k_cache + off, valid);
      ptx::cp_async_16(vs + row * D + col, p.v_cache + off, valid);
    }
  };
  load_kv(0, 0);
  ptx::cp_async_commit();

  for (int i = tid; i < G * D; i += kThreads) q_s[i] = __bfloat162float(p.q[head0 * D + i]);
  if (tid < G) {
    m_s[tid] = -INFINITY;
    l_s[tid] = 0.0f;
  }

  const float scale_log2 = p.scale * 1.4426950408889634f;
  const int chunk = lane % kTpk;    // score phase: this lane's 8 columns
  const int col8 = tid % kTpk;      // P V phase: this thread's 8 columns
  const int stripe = tid / kTpk;    // P V phase: keys stripe, stripe + kStripes, ...
  float q_reg[G][8];
  float acc[G][8] = {};
  const int n_tiles = (end - begin + kTile - 1) / kTile;

  for (int t = 0; t < n_tiles; ++t) {
    if (t + 1 < n_tiles) {
      load_kv(t + 1, (t + 1) & 1);
      ptx::cp_async_commit();
      ptx::cp_async_wait<1>();
    } else {
      ptx::cp_async_wait<0>();
    }
    __syncthreads();
    if (t == 0) {
#pragma unroll
      for (int g = 0; g < G; ++g) {
#pragma unroll
        for (int i = 0; i < 8; ++i) q_reg[g][i] = q_s[g * D + chunk * 8 + i];
      }
    }
    const bf16_t* ks = k_s + (t & 1) * Sm::kKV;
    const bf16_t* vs = v_s + (t & 1) * Sm::kKV;

    // (1) scores
#pragma unroll
    for (int pass = 0; pass < 16 / kKeysPerPass; ++pass) {
      const int kk = warp * 16 + pass * kKeysPerPass + lane / kTpk;
      float kf[8];
      bf16x8_to_float(*reinterpret_cast<const uint4*>(ks + kk * D + chunk * 8), kf);
      const bool valid = begin + t * kTile + kk < end;
#pragma unroll
      for (int g = 0; g < G; ++g) {
        float dot = 0.0f;
#pragma unroll
        for (int i = 0; i < 8; ++i) dot = fmaf(q_reg[g][i], kf[i], dot);
#pragma unroll
        for (int off = kTpk / 2; off > 0; off /= 2) dot += __shfl_xor_sync(0xffffffffu, dot, off);
        if (chunk == 0) p_s[g * kTile + kk] = valid ? dot * scale_log2 : -INFINITY;
      }
    }
    __syncthreads();

    // (2) online softmax, one warp per head
    for (int g = warp; g < G; g += kWarps) {
      const float a = p_s[g * kTile + lane];
      const float b = p_s[g * kTile + lane + 32];
      float mx = fmaxf(a, b);
#pragma unroll
      for (int off = 16; off > 0; off /= 2) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, off));
      const float m_old = m_s[g];
      const float m_new = fmaxf(m_old, mx);
      const float base = m_new == -INFINITY ? 0.0f : m_new;
      const float pa = exp2f(a - base);
      const float pb = exp2f(b - base);
      p_s[g * kTile + lane] = pa;
      p_s[g * kTile + lane + 32] = pb;
      float sum = pa + pb;
#pragma unroll
      for (int off = 16; off > 0; off /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, off);
      __syncwarp();
      if (lane == 0) {
        const float alpha = exp2f(m_old - base);
        alpha_s[g] = alpha;
        m_s[g] = m_new;
        l_s[g] = l_s[g] * alpha + sum;
      }
    }
    __syncthreads();

    // (3) O += P V
#pragma unroll
    for (int g = 0; g < G; ++g) {
      const float alpha = alpha_s[g];
#pragma unroll
      for (int i = 0; i < 8; ++i) acc[g][i] *= alpha;
    }
#pragma unroll 4
    for (int kk = stripe; kk < kTile; kk += kStripes) {
      float vf[8];
      bf16x8_to_float(*reinterpret_cast<const uint4*>(vs + kk * D + col8 * 8), vf);
#pragma unroll
      for (int g = 0; g < G; ++g) {
        const float pr = p_s[g * kTile + kk];
#pragma unroll
        for (int i = 0; i < 8; ++i) acc[g][i] = fmaf(pr, vf[i], acc[g][i]);
      }
    }
    __syncthreads();  // the next prefetch and scores overwrite this stage and p_s
  }

#pragma unroll
  for (int g = 0; g < G; ++g) {
#pragma unroll
    for (int i = 0; i < 8; ++i) red_s[(stripe * G + g) * D + col8 * 8 + i] = acc[g][i];
  }
  __syncthreads();
  for (int i = tid; i < G * D; i += kThreads) {
    const int g = i / D;
    float sum = 0.0f;
#pragma unroll
    for (int st = 0; st < kStripes; ++st) sum += red_s[(st * G) * D + i];
    const float l = l_s[g];
    const float o = sum / l;  // l >= 1: the running max's own term contributes exp2(0)
    if (sa.num_splits == 1) {
      p.out[head0 * D + i] = __float2bfloat16_rn(o);
    } else {
      sa.partial_out[part0 * D + i] = o;
      if (i % D == 0) sa.partial_lse[part0 + g] = m_s[g] + log2f(l);
    }
  }
}

// Merges the splits of one (q head, sequence): out = sum_j w_j o_j / sum_j w_j,
// w_j = 2^(lse_j - max lse).
__global__ void decode_combine_kernel(const float* __restrict__ partial_out, const float* __restrict__ partial_lse,
                                      bf16_t* __restrict__ out, int num_splits, int q_heads, int head_dim) {
  const int head = blockIdx.x;
  const int seq = blockIdx.y;
  const std::size_t row0 = static_cast<std::size_t>(seq) * num_splits * q_heads + head;
  float mx = -INFINITY;
  for (int j = 0; j < num_splits; ++j) mx = fmaxf(mx, partial_lse[row0 + static_cast<std::size_t>(j) * q_heads]);
  for (int d = threadIdx.x; d < head_dim; d += blockDim.x) {
    float acc = 0.0f, wsum = 0.0f;
    if (mx != -INFINITY) {
      for (int j = 0; j < num_splits; ++j) {
        const std::size_t row = row0 + static_cast<std::size_t>(j) * q_heads;
        const float w = exp2f(partial_lse[row] - mx);
        wsum += w;
        acc = fmaf(w, partial_out[row * head_dim + d], acc);
      }
    }
    out[(static_cast<std::size_t>(seq) * q_heads + head) * head_dim + d] =
        __float2bfloat16_rn(wsum > 0.0f ? acc / wsum : 0.0f);
  }
}

template <int D, int G>
cudaError_t launch(const DecodeAttentionParams& p, const SplitArgs& sa, const launch::LaunchConfig& c,
                   cudaStream_t stream) {
  static_assert(DecodeSmem<D, G>::kBytes == cfg::smem_bytes(D, G));
  const cudaError_t attr = cudaFuncSetAttribute(decode_attention_kernel<D, G>,
                                                cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                static_cast<int>(c.dynamic_smem));
  if (attr != cudaSuccess) return attr;
  const dim3 grid(static_cast<unsigned>(c.grid.x), static_cast<unsigned>(c.grid.y), static_cast<unsigned>(c.grid.z));
  decode_attention_kernel<D, G><<<grid, static_cast<unsigned>(c.block.x), c.dynamic_smem, stream>>>(p, sa);
  return cudaGetLastError();
}

template <int D>
cudaError_t launch_heads(const DecodeAttentionParams& p, const SplitArgs& sa, int heads_per_cta,
                         const launch::LaunchConfig& c, cudaStream_t stream) {
  static_assert(cfg::kMaxHeadsPerCta == 8, "one instantiation per heads_per_cta below");
  switch (heads_per_cta) {
    case 1: return launch<D, 1>(p, sa, c, stream);
    case 2: return launch<D, 2>(p, sa, c, stream);
    case 3: return launch<D, 3>(p, sa, c, stream);
    case 4: return launch<D, 4>(p, sa, c, stream);
    case 5: return launch<D, 5>(p, sa, c, stream);
    case 6: return launch<D, 6>(p, sa, c, stream);
    case 7: return launch<D, 7>(p, sa, c, stream);
    case 8: return launch<D, 8>(p, sa, c, stream);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace

int decode_attention_default_splits(int num_seqs, int q_heads, int kv_heads, int max_context_len, int sm_count) {
  return launch::decode_default_splits(num_seqs, q_heads, kv_heads, max_context_len, sm_count);
}

std::size_t decode_attention_workspace_bytes(int num_seqs, int q_heads, int head_dim, int num_splits) {
  if (num_splits <= 1) return 0;
  return static_cast<std::size_t>(num_seqs) * num_splits * q_heads * (head_dim + 1) * sizeof(float);
}

cudaError_t decode_attention(const DecodeAttentionParams& p, cudaStream_t stream) {
  launch::DecodeShape shape;
  shape.num_seqs = p.num_seqs;
  shape.max_context_len = p.max_context_len;
  shape.q_heads = p.q_heads;
  shape.kv_heads = p.kv_heads;
  shape.head_dim = p.head_dim;
  shape.block_tokens = p.block_tokens;
  shape.max_blocks_per_seq = p.max_blocks_per_seq;
  shape.num_splits = p.num_splits;
  const launch::DecodePlan plan = launch::decode_attention_plan(shape);
  if (!plan.ok()) return set_launch_error(plan.error);
  if (!p.q || !p.out || !p.k_cache || !p.v_cache || !p.block_table || !p.context_lens) {
    return set_launch_error("decode_attention: a null pointer");
  }
  if (plan.count == 0) return cudaSuccess;
  SplitArgs sa{};
  sa.num_splits = p.num_splits;
  sa.keys_per_split = plan.keys_per_split;
  sa.group = plan.group;
  sa.ctas_per_group = plan.ctas_per_group;
  if (p.num_splits > 1) {
    if (!p.workspace || p.workspace_bytes < decode_attention_workspace_bytes(p.num_seqs, p.q_heads, p.head_dim,
                                                                              p.num_splits)) {
      return set_launch_error("decode_attention: num_splits > 1 needs decode_attention_workspace_bytes() of workspace");
    }
    sa.partial_out = p.workspace;
    sa.partial_lse = p.workspace + static_cast<std::size_t>(p.num_seqs) * p.num_splits * p.q_heads * p.head_dim;
  }
  const launch::LaunchConfig& main = plan.launches[0];
  const cudaError_t err = p.head_dim == 64 ? launch_heads<64>(p, sa, plan.heads_per_cta, main, stream)
                                           : launch_heads<128>(p, sa, plan.heads_per_cta, main, stream);
  if (err != cudaSuccess || plan.count == 1) return err;
  const launch::LaunchConfig& comb = plan.launches[1];
  decode_combine_kernel<<<dim3(static_cast<unsigned>(comb.grid.x), static_cast<unsigned>(comb.grid.y)),
                          static_cast<unsigned>(comb.block.x), 0, stream>>>(
      sa.partial_out, sa.partial_lse, p.out, p.num_splits, p.q_heads, p.head_dim);
  return cudaGetLastError();
}

}  // namespace efimsim::kernels::cuda
