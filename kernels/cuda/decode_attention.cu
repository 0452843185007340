// Split-KV decode attention over the paged KV cache (flash decoding).
//
// Two kernels, chosen by launch::decode_attention_plan from the GQA group
// (query heads per KV head); both read each K/V byte of a KV head once per
// step and split the keys of long sequences over CTAs.
//
// Tensor cores (group >= 2), decode_attention_mma_kernel: one CTA of 4 warps
// per (split, KV head, head chunk, sequence) serves G = heads_per_cta(group)
// heads (the whole group up to 16). The G query rows, zero-padded to 16, are
// the A operand of mma.sync m16n8k16, held as fragments for the whole loop.
// Keys come in tiles of 64 (four pages), double-buffered in shared memory by
// cp.async with rows padded for conflict-free ldmatrix; warp w takes keys
// 16w..16w+15 of every tile: S = Q K^T, its own online softmax (base 2), and
// O += P V, all in registers as in the prefill kernel. After the loop the
// four warps' (max, sum, O) are merged through shared memory. The work per
// key is a few mma instructions for the whole group, where the CUDA-core
// kernel spent dot products and a softmax per head (measured 2026-11-27: its
// bandwidth fell from 2.9 TB/s at group 1 to 1.5 TB/s at group 8).
//
// CUDA cores (MHA, group 1), decode_attention_kernel: one CTA of 4 warps per
// (split, head, sequence). Per tile: (1) scores, D/8 lanes per key each doting
// a 16-byte chunk against the query row, reduced by shuffles; (2) online
// softmax, one warp; (3) O += P V, each thread owning 8 output columns for a
// stripe of keys, reduced across stripes at the end.
//
// With one split a CTA writes bf16 output. With S > 1 it writes its
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

// What one CTA works on: keys [begin, end) of split blockIdx.x of sequence
// blockIdx.z, for `heads` query heads of KV head kv_head starting at
// head0 (in q / out) and part0 (in the split workspace).
struct DecodeCta {
  int kv_head, seq, begin, end;
  std::size_t head0, part0;
};
__device__ __forceinline__ DecodeCta decode_cta(const DecodeAttentionParams& p, const SplitArgs& sa, int heads) {
  DecodeCta c;
  const int split = blockIdx.x;
  c.kv_head = blockIdx.y / sa.ctas_per_group;
  const int chunk0 = (blockIdx.y % sa.ctas_per_group) * heads;  // first head of this CTA within the group
  c.seq = blockIdx.z;
  c.begin = split * sa.keys_per_split;
  c.end = min(p.context_lens[c.seq], c.begin + sa.keys_per_split);
  const std::size_t head_in_seq = static_cast<std::size_t>(c.kv_head) * sa.group + chunk0;
  c.head0 = static_cast<std::size_t>(c.seq) * p.q_heads + head_in_seq;
  c.part0 = (static_cast<std::size_t>(c.seq) * sa.num_splits + split) * p.q_heads + head_in_seq;
  return c;
}

// Writes the CTA's result for head g (0 <= g < heads), column d: bf16
// output with one split, else the normalised partial output and
// log2-sum-exp (lse written by the column-0 thread).
__device__ __forceinline__ void store_decode_row(const DecodeAttentionParams& p, const SplitArgs& sa,
                                                 const DecodeCta& c, int g, int d, int D, float o, float lse) {
  if (sa.num_splits == 1) {
    p.out[(c.head0 + g) * D + d] = __float2bfloat16_rn(o);
  } else {
    sa.partial_out[(c.part0 + g) * D + d] = o;
    if (d == 0) sa.partial_lse[c.part0 + g] = lse;
  }
}

// Issues the cp.async copies of K/V tile `tile` of keys [begin, end) of one
// KV head into K and V buffers of kTile rows of `kLds` elements (the row
// stride: D unpadded, D + 8 padded); keys past `end` are zero-filled.
template <int D, int kLds>
__device__ __forceinline__ void load_kv_tile(bf16_t* ks, bf16_t* vs, const DecodeAttentionParams& p,
                                             const std::int32_t* table, int kv_head, int begin, int end, int tile) {
  for (int c = threadIdx.x; c < kTile * (D / 8); c += kThreads) {
    const int row = c / (D / 8);
    const int col = (c % (D / 8)) * 8;
    const int key = begin + tile * kTile + row;
    const bool valid = key < end;
    std::size_t off = 0;
    if (valid) {
      const std::size_t block = static_cast<std::size_t>(table[key / kBlockTokens]);
      off = ((block * kBlockTokens + key % kBlockTokens) * p.kv_heads + kv_head) * D + col;
    }
    ptx::cp_async_16(ks + row * kLds + col, p.k_cache + off, valid);
    ptx::cp_async_16(vs + row * kLds + col, p.v_cache + off, valid);
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

  const DecodeCta cta = decode_cta(p, sa, G);
  const int kv_head = cta.kv_head, seq = cta.seq, begin = cta.begin, end = cta.end;
  const std::size_t head0 = cta.head0;
  const int tid = threadIdx.x;
  const int warp = tid / 32;
  const int lane = tid % 32;
  if (begin >= end) {  // nothing to attend to in this split
    for (int i = tid; i < G * D; i += kThreads) store_decode_row(p, sa, cta, i / D, i % D, D, 0.0f, -INFINITY);
    return;
  }

  const std::int32_t* table = p.block_table + static_cast<std::size_t>(seq) * p.max_blocks_per_seq;
  auto load_kv = [&](int tile, int stage) {
    load_kv_tile<D, D>(k_s + stage * Sm::kKV, v_s + stage * Sm::kKV, p, table, kv_head, begin, end, tile);
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
    // l >= 1: the running max's own term contributes exp2(0)
    store_decode_row(p, sa, cta, g, i % D, D, sum / l, m_s[g] + log2f(l));
  }
}

template <int D>
struct MmaSmem {
  static constexpr int kLds = cfg::mma_lds(D);
  static constexpr std::size_t kKV = cfg::mma_kv_elems(D);         // elements per stage
  static constexpr std::size_t kRegion = cfg::mma_region_bytes(D);  // K[2], V[2]; then the warps' O
  static constexpr std::size_t kQ = cfg::mma_q_bytes(D);            // bytes of Q after the region
  static constexpr std::size_t kBytes = cfg::mma_smem_bytes(D);
  static_assert(kRegion % 16 == 0 && kQ % 16 == 0, "Q and the floats stay 16-byte aligned");
};

template <int D>
__global__ void __launch_bounds__(kThreads) decode_attention_mma_kernel(const DecodeAttentionParams p,
                                                                        const SplitArgs sa, const int G) {
  using Sm = MmaSmem<D>;
  constexpr int kLds = Sm::kLds;
  constexpr int kRows = cfg::kMmaRows;
  static_assert(kTile == 16 * kWarps, "each warp takes 16 keys of a tile");
  extern __shared__ __align__(16) unsigned char smem_raw[];
  bf16_t* k_s = reinterpret_cast<bf16_t*>(smem_raw);  // [2][kTile][kLds]
  bf16_t* v_s = k_s + 2 * Sm::kKV;                     // [2][kTile][kLds]
  bf16_t* q_s = reinterpret_cast<bf16_t*>(smem_raw + Sm::kRegion);                 // [kRows][kLds]
  float* m_s = reinterpret_cast<float*>(smem_raw + Sm::kRegion + Sm::kQ);  // [kWarps][kRows]
  float* l_s = m_s + kWarps * kRows;                                                // [kWarps][kRows]
  float* o_s = reinterpret_cast<float*>(smem_raw);  // [kWarps][kRows][D], after the loop

  const DecodeCta cta = decode_cta(p, sa, G);
  const int kv_head = cta.kv_head, seq = cta.seq, begin = cta.begin, end = cta.end;
  const std::size_t head0 = cta.head0;
  const int tid = threadIdx.x;
  const int warp = tid / 32;
  const int lane = tid % 32;
  if (begin >= end) {  // nothing to attend to in this split
    for (int i = tid; i < G * D; i += kThreads) store_decode_row(p, sa, cta, i / D, i % D, D, 0.0f, -INFINITY);
    return;
  }

  // Q rows 0..G-1 of this chunk, rows G..15 zero-filled.
  for (int c = tid; c < kRows * (D / 8); c += kThreads) {
    const int row = c / (D / 8);
    const int col = (c % (D / 8)) * 8;
    const bool valid = row < G;
    ptx::cp_async_16(q_s + row * kLds + col, valid ? p.q + (head0 + row) * D + col : p.q, valid);
  }
  const std::int32_t* table = p.block_table + static_cast<std::size_t>(seq) * p.max_blocks_per_seq;
  auto load_kv = [&](int tile, int stage) {
    load_kv_tile<D, kLds>(k_s + stage * Sm::kKV, v_s + stage * Sm::kKV, p, table, kv_head, begin, end, tile);
  };
  load_kv(0, 0);
  ptx::cp_async_commit();  // the first group holds Q and tile 0

  const float scale_log2 = p.scale * 1.4426950408889634f;
  std::uint32_t q_frag[D / 16][4];
  float o[D / 8][4] = {};
  float row_max[2] = {-INFINITY, -INFINITY};  // rows lane/4 and lane/4 + 8, log2 domain
  float row_sum[2] = {0.0f, 0.0f};            // this thread's share; summed over the quad at the end
  const int n_tiles = (end - begin + kTile - 1) / kTile;
  const int key_w = warp * 16;  // this warp's keys within a tile

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
      for (int kk = 0; kk < D / 16; ++kk) ptx::ldmatrix_x4(q_frag[kk], q_s + (lane % 16) * kLds + kk * 16 + (lane / 16) * 8);
    }
    const bf16_t* ks = k_s + (t & 1) * Sm::kKV;
    const bf16_t* vs = v_s + (t & 1) * Sm::kKV;

    // S = Q K^T for this warp's 16 keys: s[0] keys 0-7, s[1] keys 8-15.
    float s[2][4] = {};
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
      std::uint32_t b[4];
      ptx::ldmatrix_x4(b, ks + (key_w + lane % 8 + (lane / 16) * 8) * kLds + kk * 16 + ((lane / 8) % 2) * 8);
      ptx::mma_bf16_16816(s[0], q_frag[kk], b[0], b[1]);
      ptx::mma_bf16_16816(s[1], q_frag[kk], b[2], b[3]);
    }
    const int key0 = begin + t * kTile + key_w;
#pragma unroll
    for (int j = 0; j < 2; ++j) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int key = key0 + j * 8 + (lane % 4) * 2 + (e & 1);
        s[j][e] = key < end ? s[j][e] * scale_log2 : -INFINITY;
      }
    }

#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float mx = fmaxf(row_max[r], fmaxf(fmaxf(s[0][2 * r], s[0][2 * r + 1]), fmaxf(s[1][2 * r], s[1][2 * r + 1])));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
      const float base = mx == -INFINITY ? 0.0f : mx;
      const float alpha = exp2f(row_max[r] - base);
      row_max[r] = mx;
      float sum = 0.0f;
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        s[j][2 * r] = exp2f(s[j][2 * r] - base);
        s[j][2 * r + 1] = exp2f(s[j][2 * r + 1] - base);
        sum += s[j][2 * r] + s[j][2 * r + 1];
      }
      row_sum[r] = row_sum[r] * alpha + sum;
#pragma unroll
      for (int dt = 0; dt < D / 8; ++dt) {
        o[dt][2 * r] *= alpha;
        o[dt][2 * r + 1] *= alpha;
      }
    }

    // O += P V: P (16 rows x 16 keys) from the S accumulators as one A fragment.
    const std::uint32_t pa[4] = {ptx::pack_bf16(s[0][0], s[0][1]), ptx::pack_bf16(s[0][2], s[0][3]),
                                 ptx::pack_bf16(s[1][0], s[1][1]), ptx::pack_bf16(s[1][2], s[1][3])};
#pragma unroll
    for (int dp = 0; dp < D / 16; ++dp) {
      std::uint32_t b[4];
      ptx::ldmatrix_x4_trans(b, vs + (key_w + lane % 8 + ((lane / 8) % 2) * 8) * kLds + dp * 16 + (lane / 16) * 8);
      ptx::mma_bf16_16816(o[2 * dp], pa, b[0], b[1]);
      ptx::mma_bf16_16816(o[2 * dp + 1], pa, b[2], b[3]);
    }
    __syncthreads();  // the next iteration's prefetch overwrites this stage
  }

  // Each warp's state to shared memory (the K/V region is free: the loop
  // ended with a barrier), then merge the warps per (head, column).
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    float l = row_sum[r];
    l += __shfl_xor_sync(0xffffffffu, l, 1);
    l += __shfl_xor_sync(0xffffffffu, l, 2);
    const int row = lane / 4 + r * 8;
    if (lane % 4 == 0) {
      m_s[warp * kRows + row] = row_max[r];
      l_s[warp * kRows + row] = l;
    }
    float* dst = o_s + (warp * kRows + row) * D + (lane % 4) * 2;
#pragma unroll
    for (int dt = 0; dt < D / 8; ++dt) {
      dst[dt * 8] = o[dt][2 * r];
      dst[dt * 8 + 1] = o[dt][2 * r + 1];
    }
  }
  __syncthreads();
  for (int i = tid; i < G * D; i += kThreads) {
    const int g = i / D;
    const int d = i % D;
    float mx = -INFINITY;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) mx = fmaxf(mx, m_s[w * kRows + g]);
    // Warp 0 holds key `begin`, so mx is finite; a warp that saw no key has
    // max -inf and weight 0.
    float l = 0.0f, acc = 0.0f;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
      const float wt = exp2f(m_s[w * kRows + g] - mx);
      l = fmaf(wt, l_s[w * kRows + g], l);
      acc = fmaf(wt, o_s[(w * kRows + g) * D + d], acc);
    }
    store_decode_row(p, sa, cta, g, d, D, acc / l, mx + log2f(l));  // l >= 1: the max's own term
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
cudaError_t launch_mma(const DecodeAttentionParams& p, const SplitArgs& sa, int heads_per_cta,
                       const launch::LaunchConfig& c, cudaStream_t stream) {
  static_assert(MmaSmem<D>::kBytes == cfg::mma_smem_bytes(D));
  const cudaError_t attr = cudaFuncSetAttribute(decode_attention_mma_kernel<D>,
                                                cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                static_cast<int>(c.dynamic_smem));
  if (attr != cudaSuccess) return attr;
  const dim3 grid(static_cast<unsigned>(c.grid.x), static_cast<unsigned>(c.grid.y), static_cast<unsigned>(c.grid.z));
  decode_attention_mma_kernel<D><<<grid, static_cast<unsigned>(c.block.x), c.dynamic_smem, stream>>>(p, sa,
                                                                                                     heads_per_cta);
  return cudaGetLastError();
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
  cudaError_t err;
  if (plan.tensor_cores) {
    err = p.head_dim == 64 ? launch_mma<64>(p, sa, plan.heads_per_cta, main, stream)
                           : launch_mma<128>(p, sa, plan.heads_per_cta, main, stream);
  } else {
    err = p.head_dim == 64 ? launch<64, 1>(p, sa, main, stream) : launch<128, 1>(p, sa, main, stream);
  }
  if (err != cudaSuccess || plan.count == 1) return err;
  const launch::LaunchConfig& comb = plan.launches[1];
  decode_combine_kernel<<<dim3(static_cast<unsigned>(comb.grid.x), static_cast<unsigned>(comb.grid.y)),
                          static_cast<unsigned>(comb.block.x), 0, stream>>>(
      sa.partial_out, sa.partial_lse, p.out, p.num_splits, p.q_heads, p.head_dim);
  return cudaGetLastError();
}

}  // namespace efimsim::kernels::cuda
