// Our own bf16 tensor-core GEMM, C[m, n] = A[m, k] * B[n, k]^T (B in nn.Linear
// layout), fp32 accumulation. Reported against cuBLASLt; the profile's GEMM
// table comes from cuBLASLt, the path serving engines use.
//
// CTA tile 128 x 128 x 32, 8 warps in a 2 (m) x 4 (n) grid, each warp
// 64 x 32 = 4 x 4 mma tiles. Shared-memory rows are padded from 32 to 40
// elements (80 bytes), which makes ldmatrix's eight 16-byte row reads hit
// eight distinct bank groups. A 4-stage cp.async pipeline keeps three k-tiles
// in flight. Rows past m or n and columns past k are zero-filled on load and
// masked on store.

#include "kernels.h"
#include "launch_config.h"
#include "mma.cuh"

namespace efimsim::kernels::cuda {
namespace {

namespace cfg = launch::gemm_mma;
constexpr int kBM = cfg::kBM, kBN = cfg::kBN, kBK = cfg::kBK;
constexpr int kStages = cfg::kStages;
constexpr int kThreads = cfg::kThreads;
constexpr int kLds = cfg::kLds;  // padded row length in elements
constexpr int kWarpM = 64, kWarpN = 32;
constexpr int kMTiles = kWarpM / 16, kNTiles = kWarpN / 8;
constexpr std::size_t kStageElems = cfg::kStageElems;
static_assert(sizeof(bf16_t) == launch::kBf16Bytes);

__device__ __forceinline__ void load_stage(bf16_t* sa, bf16_t* sb, const bf16_t* a, const bf16_t* b, int m, int n,
                                           int k, int m0, int n0, int k0) {
  // 128 rows x 4 chunks of 8 elements, for A and for B: 2 chunks each per thread.
#pragma unroll
  for (int i = 0; i < (kBM * kBK / 8) / kThreads; ++i) {
    const int chunk = threadIdx.x + i * kThreads;
    const int row = chunk / (kBK / 8);
    const int col = (chunk % (kBK / 8)) * 8;
    const bool ka = k0 + col < k;
    const bool va = (m0 + row < m) && ka;
    const bool vb = (n0 + row < n) && ka;
    const bf16_t* ga = va ? a + static_cast<std::size_t>(m0 + row) * k + k0 + col : a;
    const bf16_t* gb = vb ? b + static_cast<std::size_t>(n0 + row) * k + k0 + col : b;
    ptx::cp_async_16(sa + row * kLds + col, ga, va);
    ptx::cp_async_16(sb + row * kLds + col, gb, vb);
  }
}

__global__ void __launch_bounds__(kThreads, 2)
    gemm_mma_kernel(const bf16_t* __restrict__ a, const bf16_t* __restrict__ b, bf16_t* __restrict__ c, int m,
                    int n, int k) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  bf16_t* smem = reinterpret_cast<bf16_t*>(smem_raw);
  const int m0 = blockIdx.y * kBM;
  const int n0 = blockIdx.x * kBN;
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int wm = (warp / 4) * kWarpM;  // warp's row offset in the CTA tile
  const int wn = (warp % 4) * kWarpN;
  const int k_tiles = (k + kBK - 1) / kBK;

  float acc[kMTiles][kNTiles][4] = {};

  auto stage_a = [&](int s) { return smem + s * kStageElems; };
  auto stage_b = [&](int s) { return smem + s * kStageElems + kBM * kLds; };

#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < k_tiles) load_stage(stage_a(s), stage_b(s), a, b, m, n, k, m0, n0, s * kBK);
    ptx::cp_async_commit();
  }

  for (int kt = 0; kt < k_tiles; ++kt) {
    ptx::cp_async_wait<kStages - 2>();
    __syncthreads();  // tile kt visible to all; everyone is done with tile kt - 1
    const int next = kt + kStages - 1;
    if (next < k_tiles) {
      load_stage(stage_a(next % kStages), stage_b(next % kStages), a, b, m, n, k, m0, n0, next * kBK);
    }
    ptx::cp_async_commit();

    const bf16_t* sa = stage_a(kt % kStages);
    const bf16_t* sb = stage_b(kt % kStages);
#pragma unroll
    for (int kk = 0; kk < kBK; kk += 16) {
      std::uint32_t af[kMTiles][4];
      std::uint32_t bfr[kNTiles / 2][4];
#pragma unroll
      for (int mt = 0; mt < kMTiles; ++mt) {
        const int row = wm + mt * 16 + (lane % 16);
        const int col = kk + (lane / 16) * 8;
        ptx::ldmatrix_x4(af[mt], sa + row * kLds + col);
      }
#pragma unroll
      for (int np = 0; np < kNTiles / 2; ++np) {
        const int row = wn + np * 16 + (lane % 8) + (lane / 16) * 8;
        const int col = kk + ((lane / 8) % 2) * 8;
        ptx::ldmatrix_x4(bfr[np], sb + row * kLds + col);
      }
#pragma unroll
      for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
        for (int nt = 0; nt < kNTiles; ++nt) {
          ptx::mma_bf16_16816(acc[mt][nt], af[mt], bfr[nt / 2][(nt % 2) * 2], bfr[nt / 2][(nt % 2) * 2 + 1]);
        }
      }
    }
  }
  ptx::cp_async_wait<0>();

#pragma unroll
  for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
    for (int nt = 0; nt < kNTiles; ++nt) {
      const int col = n0 + wn + nt * 8 + (lane % 4) * 2;
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int row = m0 + wm + mt * 16 + lane / 4 + half * 8;
        if (row < m && col < n) {
          *reinterpret_cast<__nv_bfloat162*>(c + static_cast<std::size_t>(row) * n + col) =
              __floats2bfloat162_rn(acc[mt][nt][half * 2], acc[mt][nt][half * 2 + 1]);
        }
      }
    }
  }
}

}  // namespace

cudaError_t gemm_mma(const GemmParams& p, cudaStream_t stream) {
  const launch::LaunchPlan plan = launch::gemm_mma_plan(p.m, p.n, p.k);
  if (!plan.ok()) return set_launch_error(plan.error);
  if (!p.a || !p.b || !p.c) return set_launch_error("gemm_mma: a null pointer");
  if (plan.count == 0) return cudaSuccess;
  const launch::LaunchConfig& c = plan.launches[0];
  const cudaError_t attr = cudaFuncSetAttribute(gemm_mma_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                static_cast<int>(c.dynamic_smem));
  if (attr != cudaSuccess) return attr;
  const dim3 grid(static_cast<unsigned>(c.grid.x), static_cast<unsigned>(c.grid.y));
  gemm_mma_kernel<<<grid, static_cast<unsigned>(c.block.x), c.dynamic_smem, stream>>>(p.a, p.b, p.c, p.m, p.n, p.k);
  return cudaGetLastError();
}

}  // namespace efimsim::kernels::cuda
