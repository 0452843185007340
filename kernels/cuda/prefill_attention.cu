// Varlen prefill attention over the paged KV cache, FlashAttention-2 style.
//
// One CTA of 4 warps per (64-query tile, q head, sequence); each warp owns 16
// query rows and keeps their Q fragments, output accumulators and softmax
// state (running max m, running sum l, base-2 exponent) in registers. K/V
// tiles of 64 keys (four 16-token pages, found through the block table) are
// double-buffered in shared memory with cp.async, rows padded by 8 elements
// so ldmatrix is conflict-free. S = Q K^T and O += P V run on mma.sync
// m16n8k16; P goes from the S accumulators to A fragments without touching
// shared memory.
//
// Lower-right causal alignment: in a sequence with C cached and N new tokens,
// new token i sees keys 0 .. C + i. A CTA stops at the last key its last row
// sees, and only tiles that cross the diagonal are masked. Every row sees
// key 0, so tile 0 gives every row a finite running max. Keys past the last
// visible one are zero-filled, never read, so no garbage can reach P V.
// Tiles are issued longest-first (reverse blockIdx.x) to shorten the tail.
// Grid, block and shared memory come from launch::prefill_attention_plan
// (launch_config.h), which the CPU test checks for every model.

#include <cfloat>

#include "kernels.h"
#include "launch_config.h"
#include "mma.cuh"

namespace efimsim::kernels::cuda {
namespace {

namespace cfg = launch::prefill;
constexpr int kThreads = cfg::kThreads;
constexpr int kBM = cfg::kBM;  // query rows per CTA
constexpr int kBN = cfg::kBN;  // keys per tile
static_assert(sizeof(bf16_t) == launch::kBf16Bytes);

template <int D>
struct Smem {
  static constexpr int kLds = cfg::lds(D);
  static constexpr std::size_t kQ = cfg::q_elems(D);
  static constexpr std::size_t kKV = cfg::kv_elems(D);
  static constexpr std::size_t kBytes = cfg::smem_bytes(D);  // Q, K[2], V[2]
};

template <int D>
__global__ void __launch_bounds__(kThreads) prefill_attention_kernel(const PrefillAttentionParams p) {
  using S = Smem<D>;
  constexpr int kLds = S::kLds;
  constexpr int kChunks = D / 8;  // 16-byte chunks per row
  extern __shared__ __align__(16) unsigned char smem_raw[];
  bf16_t* q_s = reinterpret_cast<bf16_t*>(smem_raw);
  bf16_t* k_s = q_s + S::kQ;            // [2][kBN][kLds]
  bf16_t* v_s = k_s + 2 * S::kKV;       // [2][kBN][kLds]

  const int seq = blockIdx.z;
  const int head = blockIdx.y;
  const int m0 = (gridDim.x - 1 - blockIdx.x) * kBM;
  const int q_start = p.cu_new_tokens[seq];
  const int n_new = p.cu_new_tokens[seq + 1] - q_start;
  if (m0 >= n_new) return;
  const int kv_len = p.kv_lens[seq];
  const int cached = kv_len - n_new;
  const int kv_head = head / (p.q_heads / p.kv_heads);
  const int kv_end = cached + min(m0 + kBM, n_new);  // one past the last key this CTA sees
  const int n_tiles = (kv_end + kBN - 1) / kBN;
  const std::int32_t* table = p.block_table + static_cast<std::size_t>(seq) * p.max_blocks_per_seq;

  const int tid = threadIdx.x;
  const int warp = tid / 32;
  const int lane = tid % 32;

  // Q tile (rows past n_new zero-filled).
  for (int c = tid; c < kBM * kChunks; c += kThreads) {
    const int row = c / kChunks;
    const int col = (c % kChunks) * 8;
    const bool valid = m0 + row < n_new;
    const bf16_t* src =
        valid ? p.q + (static_cast<std::size_t>(q_start + m0 + row) * p.q_heads + head) * D + col : p.q;
    ptx::cp_async_16(q_s + row * kLds + col, src, valid);
  }
  auto load_kv = [&](int tile, int stage) {
    bf16_t* ks = k_s + stage * S::kKV;
    bf16_t* vs = v_s + stage * S::kKV;
    for (int c = tid; c < kBN * kChunks; c += kThreads) {
      const int row = c / kChunks;
      const int col = (c % kChunks) * 8;
      const int key = tile * kBN + row;
      const bool valid = key < kv_end;
      std::size_t off = 0;
      if (valid) {
        const std::size_t block = static_cast<std::size_t>(table[key / kBlockTokens]);
        off = ((block * kBlockTokens + key % kBlockTokens) * p.kv_heads + kv_head) * D + col;
      }
      ptx::cp_async_16(ks + row * kLds + col, p.k_cache + off, valid);
      ptx::cp_async_16(vs + row * kLds + col, p.v_cache + off, valid);
    }
  };
  load_kv(0, 0);
  ptx::cp_async_commit();

  const float scale_log2 = p.scale * 1.4426950408889634f;
  std::uint32_t q_frag[D / 16][4];
  float o[D / 8][4] = {};
  float row_max[2] = {-INFINITY, -INFINITY};
  float row_sum[2] = {0.0f, 0.0f};
  const int row_base = m0 + warp * 16 + lane / 4;  // this thread's rows: row_base, row_base + 8

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
      for (int kk = 0; kk < D / 16; ++kk) {
        ptx::ldmatrix_x4(q_frag[kk], q_s + (warp * 16 + lane % 16) * kLds + kk * 16 + (lane / 16) * 8);
      }
    }
    const bf16_t* ks = k_s + (t & 1) * S::kKV;
    const bf16_t* vs = v_s + (t & 1) * S::kKV;

    float s[kBN / 8][4] = {};
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
#pragma unroll
      for (int np = 0; np < kBN / 16; ++np) {
        std::uint32_t b[4];
        ptx::ldmatrix_x4(b, ks + (np * 16 + lane % 8 + (lane / 16) * 8) * kLds + kk * 16 + ((lane / 8) % 2) * 8);
        ptx::mma_bf16_16816(s[2 * np], q_frag[kk], b[0], b[1]);
        ptx::mma_bf16_16816(s[2 * np + 1], q_frag[kk], b[2], b[3]);
      }
    }

    const int n0 = t * kBN;
    const bool need_mask = n0 + kBN - 1 > cached + m0;
#pragma unroll
    for (int j = 0; j < kBN / 8; ++j) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        float v = s[j][e] * scale_log2;
        if (need_mask) {
          const int key = n0 + j * 8 + (lane % 4) * 2 + (e & 1);
          const int qi = row_base + (e >> 1) * 8;
          if (key > cached + qi) v = -INFINITY;
        }
        s[j][e] = v;
      }
    }

#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float mx = row_max[r];
#pragma unroll
      for (int j = 0; j < kBN / 8; ++j) mx = fmaxf(mx, fmaxf(s[j][2 * r], s[j][2 * r + 1]));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
      const float base = mx == -INFINITY ? 0.0f : mx;
      const float alpha = exp2f(row_max[r] - base);
      row_max[r] = mx;
      float sum = 0.0f;
#pragma unroll
      for (int j = 0; j < kBN / 8; ++j) {
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

#pragma unroll
    for (int kc = 0; kc < kBN / 16; ++kc) {
      const std::uint32_t pa[4] = {ptx::pack_bf16(s[2 * kc][0], s[2 * kc][1]),
                                   ptx::pack_bf16(s[2 * kc][2], s[2 * kc][3]),
                                   ptx::pack_bf16(s[2 * kc + 1][0], s[2 * kc + 1][1]),
                                   ptx::pack_bf16(s[2 * kc + 1][2], s[2 * kc + 1][3])};
#pragma unroll
      for (int dp = 0; dp < D / 16; ++dp) {
        std::uint32_t b[4];
        ptx::ldmatrix_x4_trans(b, vs + (kc * 16 + lane % 8 + ((lane / 8) % 2) * 8) * kLds + dp * 16 + (lane / 16) * 8);
        ptx::mma_bf16_16816(o[2 * dp], pa, b[0], b[1]);
        ptx::mma_bf16_16816(o[2 * dp + 1], pa, b[2], b[3]);
      }
    }
    __syncthreads();  // the next iteration's prefetch overwrites this stage
  }

#pragma unroll
  for (int r = 0; r < 2; ++r) {
    float l = row_sum[r];
    l += __shfl_xor_sync(0xffffffffu, l, 1);
    l += __shfl_xor_sync(0xffffffffu, l, 2);
    const float inv = l > 0.0f ? 1.0f / l : 0.0f;
    const int qi = row_base + r * 8;
    if (qi >= n_new) continue;
    bf16_t* dst = p.out + (static_cast<std::size_t>(q_start + qi) * p.q_heads + head) * D + (lane % 4) * 2;
#pragma unroll
    for (int dt = 0; dt < D / 8; ++dt) {
      *reinterpret_cast<__nv_bfloat162*>(dst + dt * 8) =
          __floats2bfloat162_rn(o[dt][2 * r] * inv, o[dt][2 * r + 1] * inv);
    }
  }
}

template <int D>
cudaError_t launch(const PrefillAttentionParams& p, const launch::LaunchConfig& c, cudaStream_t stream) {
  static_assert(Smem<D>::kBytes == cfg::smem_bytes(D));
  const cudaError_t attr = cudaFuncSetAttribute(prefill_attention_kernel<D>,
                                                cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                static_cast<int>(c.dynamic_smem));
  if (attr != cudaSuccess) return attr;
  const dim3 grid(static_cast<unsigned>(c.grid.x), static_cast<unsigned>(c.grid.y), static_cast<unsigned>(c.grid.z));
  prefill_attention_kernel<D><<<grid, static_cast<unsigned>(c.block.x), c.dynamic_smem, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace

cudaError_t prefill_attention(const PrefillAttentionParams& p, cudaStream_t stream) {
  launch::PrefillShape shape;
  shape.num_seqs = p.num_seqs;
  shape.max_new_tokens = p.max_new_tokens;
  shape.q_heads = p.q_heads;
  shape.kv_heads = p.kv_heads;
  shape.head_dim = p.head_dim;
  shape.block_tokens = p.block_tokens;
  shape.max_blocks_per_seq = p.max_blocks_per_seq;
  const launch::LaunchPlan plan = launch::prefill_attention_plan(shape);
  if (!plan.ok()) return set_launch_error(plan.error);
  if (!p.q || !p.out || !p.k_cache || !p.v_cache || !p.block_table || !p.cu_new_tokens || !p.kv_lens) {
    return set_launch_error("prefill_attention: a null pointer");
  }
  if (plan.count == 0) return cudaSuccess;
  return p.head_dim == 64 ? launch<64>(p, plan.launches[0], stream) : launch<128>(p, plan.launches[0], stream);
}

}  // namespace efimsim::kernels::cuda
