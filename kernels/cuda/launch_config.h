#pragma once
// Launch configurations of every kernel in kernels/cuda, derived from the
// shapes by plain host functions (no CUDA types, compiles without nvcc).
// The launchers call these functions and launch exactly what they return;
// the kernels take their tile sizes, thread counts and shared-memory layout
// from the constants here. So the CPU test (tests/launch_config_test.cc) can
// derive every launch of every model's sweep and check it against the limits
// of sm_80 and sm_90 without a GPU, and a bad launch is caught there instead
// of as cudaErrorInvalidValue on the calibration machine.
//
// A plan function validates its shape arguments (the launcher returns
// cudaErrorInvalidValue with plan.error set when they are not supported) and
// returns the launches in order: none when there is nothing to do.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace efimsim::kernels::launch {

inline constexpr std::size_t kBf16Bytes = 2;
inline constexpr std::size_t kFloatBytes = 4;
inline constexpr int kWarpSize = 32;
inline constexpr int kBlockTokens = 16;  // KV-cache page size the attention kernels support

struct Dim3 {
  std::uint64_t x = 1, y = 1, z = 1;
};

struct LaunchConfig {
  const char* kernel = "";       // for messages
  Dim3 grid;
  Dim3 block;
  std::size_t dynamic_smem = 0;  // bytes, third <<<>>> argument (above 48 KiB needs the opt-in attribute)
  std::size_t static_smem = 0;   // bytes of the kernel's own __shared__ arrays
  int launch_bounds = 1024;      // the kernel's __launch_bounds__ (max threads per block)
  bool whole_warps = true;       // block threads must be a multiple of 32 (the kernel shuffles with full masks)
};

struct DeviceLimits;
bool launch_fits(const LaunchConfig& c, const DeviceLimits& dev);
std::string check_launch(const LaunchConfig& c, const DeviceLimits& dev);

struct LaunchPlan {
  std::string error;  // empty: the shapes are supported
  std::array<LaunchConfig, 2> launches{};
  int count = 0;      // launches[0, count) in order
  bool ok() const { return error.empty(); }
  // Appends a launch; one that does not fit the oldest supported device
  // (sm_80, kMinSupported) refuses the whole plan with the reason, so a
  // launcher never launches an invalid configuration.
  void add(const LaunchConfig& c);
};

// What a device allows one block and one grid (cudaDeviceProp). The 48 KiB
// static limit holds on every architecture; more dynamic shared memory needs
// cudaFuncAttributeMaxDynamicSharedMemorySize, up to max_smem_optin (static
// and dynamic together).
struct DeviceLimits {
  const char* name = "";
  int max_threads_per_block = 1024;
  std::uint64_t max_block_x = 1024, max_block_y = 1024, max_block_z = 64;
  std::uint64_t max_grid_x = 2147483647ull, max_grid_y = 65535, max_grid_z = 65535;
  std::size_t max_static_smem = 48 * 1024;
  std::size_t max_smem_optin = 0;
};
inline constexpr DeviceLimits kSm80{"sm_80 (A100)", 1024, 1024, 1024, 64, 2147483647ull, 65535, 65535,
                                    48 * 1024, 163 * 1024};
inline constexpr DeviceLimits kSm90{"sm_90 (H100/H200)", 1024, 1024, 1024, 64, 2147483647ull, 65535, 65535,
                                    48 * 1024, 227 * 1024};
inline constexpr const DeviceLimits& kMinSupported = kSm80;  // the kernels need sm_80 (cp.async, bf16 mma)

// launch_fits: whether `c` is a valid launch on `dev` (no allocation).
// check_launch: empty when it is, otherwise every violated limit.
// check_launch of every launch of the plan (and its own error, if any).
std::string check_plan(const LaunchPlan& p, const DeviceLimits& dev);

// ---- prefill attention (prefill_attention.cu) -----------------------------------
namespace prefill {
inline constexpr int kWarps = 4;
inline constexpr int kThreads = kWarps * kWarpSize;
inline constexpr int kBM = 16 * kWarps;  // query rows per CTA
inline constexpr int kBN = 64;           // keys per tile
constexpr int lds(int head_dim) { return head_dim + 8; }
constexpr std::size_t q_elems(int head_dim) { return static_cast<std::size_t>(kBM) * lds(head_dim); }
constexpr std::size_t kv_elems(int head_dim) { return static_cast<std::size_t>(kBN) * lds(head_dim); }
// Q, K[2], V[2], padded rows.
constexpr std::size_t smem_bytes(int head_dim) { return (q_elems(head_dim) + 4 * kv_elems(head_dim)) * kBf16Bytes; }
}  // namespace prefill
struct PrefillShape {
  long long num_seqs = 0, max_new_tokens = 0, q_heads = 0, kv_heads = 0, head_dim = 0;
  long long block_tokens = kBlockTokens, max_blocks_per_seq = 0;
};
LaunchPlan prefill_attention_plan(const PrefillShape& s);

// ---- decode attention (decode_attention.cu) -------------------------------------
namespace decode {
inline constexpr int kThreads = 128;
inline constexpr int kWarps = kThreads / kWarpSize;
inline constexpr int kTile = 64;  // keys per tile
inline constexpr int kMaxSplits = 128;
inline constexpr int kMaxGroup = 64;  // q_heads / kv_heads supported

// Two kernels. A GQA group of 2 or more heads runs on the tensor cores: the
// CTA's heads are the 16 rows of an mma.sync m16n8k16 tile (rows past the
// heads are zero), so one CTA serves up to kMaxHeadsPerCta heads of one KV
// head and reads its K/V once. MHA (group 1) runs on CUDA cores (one query
// row per head would waste 15 of the 16 rows).
inline constexpr int kMmaRows = 16;
inline constexpr int kMaxHeadsPerCta = kMmaRows;
constexpr bool uses_tensor_cores(int group) { return group >= 2; }
// The largest divisor of `group` that is <= kMaxHeadsPerCta (1 for MHA); a
// group of G heads takes G / heads_per_cta CTAs per KV head, which read the
// same K/V (the second read mostly from L2).
constexpr int heads_per_cta(int group) {
  if (!uses_tensor_cores(group)) return 1;
  for (int g = kMaxHeadsPerCta; g > 1; --g) {
    if (group % g == 0) return g;
  }
  return 1;
}

// CUDA-core kernel (MHA): K/V tiles unpadded, then a cross-stripe reduction.
constexpr int stripes(int head_dim) { return kThreads / (head_dim / 8); }
constexpr std::size_t kv_elems(int head_dim) { return static_cast<std::size_t>(kTile) * head_dim; }  // per stage
constexpr std::size_t kv_bytes(int head_dim) { return 4 * kv_elems(head_dim) * kBf16Bytes; }  // K[2], V[2]
// After the key loop the K/V region is reused for the cross-stripe reduction.
constexpr std::size_t reduce_bytes(int head_dim, int heads) {
  return static_cast<std::size_t>(stripes(head_dim)) * heads * head_dim * kFloatBytes;
}
constexpr std::size_t region_bytes(int head_dim, int heads) {
  return std::max(kv_bytes(head_dim), reduce_bytes(head_dim, heads));
}
// q [G][D], p [G][kTile], alpha/m/l [3][G], floats after the region.
constexpr std::size_t float_elems(int head_dim, int heads) {
  return static_cast<std::size_t>(heads) * head_dim + static_cast<std::size_t>(heads) * kTile + 3 * heads;
}
constexpr std::size_t smem_bytes(int head_dim, int heads) {
  return region_bytes(head_dim, heads) + float_elems(head_dim, heads) * kFloatBytes;
}

// Tensor-core kernel (group >= 2): K/V rows padded by 8 elements so ldmatrix
// is conflict-free; each warp takes 16 keys of every tile with its own
// softmax state, and after the loop the K/V region holds the warps' output
// rows [kWarps][kMmaRows][D] floats for the merge. Then Q [kMmaRows][lds]
// bf16 and the warps' running max and sum [2][kWarps][kMmaRows] floats.
constexpr int mma_lds(int head_dim) { return head_dim + 8; }
constexpr std::size_t mma_kv_elems(int head_dim) { return static_cast<std::size_t>(kTile) * mma_lds(head_dim); }
constexpr std::size_t mma_kv_bytes(int head_dim) { return 4 * mma_kv_elems(head_dim) * kBf16Bytes; }
constexpr std::size_t mma_merge_bytes(int head_dim) {
  return static_cast<std::size_t>(kWarps) * kMmaRows * head_dim * kFloatBytes;
}
constexpr std::size_t mma_region_bytes(int head_dim) {
  return std::max(mma_kv_bytes(head_dim), mma_merge_bytes(head_dim));
}
constexpr std::size_t mma_q_bytes(int head_dim) {
  return static_cast<std::size_t>(kMmaRows) * mma_lds(head_dim) * kBf16Bytes;
}
constexpr std::size_t mma_smem_bytes(int head_dim) {
  return mma_region_bytes(head_dim) + mma_q_bytes(head_dim) + 2 * kWarps * kMmaRows * kFloatBytes;
}
}  // namespace decode
struct DecodeShape {
  long long num_seqs = 0, max_context_len = 0, q_heads = 0, kv_heads = 0, head_dim = 0;
  long long block_tokens = kBlockTokens, max_blocks_per_seq = 0, num_splits = 1;
};
struct DecodePlan : LaunchPlan {
  int group = 0;           // q_heads / kv_heads
  bool tensor_cores = false;  // decode::uses_tensor_cores(group)
  int heads_per_cta = 0;   // decode::heads_per_cta(group)
  int ctas_per_group = 0;  // group / heads_per_cta
  int keys_per_split = 0;  // multiple of kTile
};
// launches[0]: the split-KV kernel; launches[1]: the combine (num_splits > 1).
DecodePlan decode_attention_plan(const DecodeShape& s);
// A split factor that gives about two CTAs per SM, never splitting below
// 256 keys per split (kernels.h: decode_attention_default_splits).
int decode_default_splits(long long num_seqs, long long q_heads, long long kv_heads, long long max_context_len,
                          int sm_count);

// ---- per-token operators -------------------------------------------------------------
namespace rmsnorm {
inline constexpr int kThreads = 256;
inline constexpr int kWarpSums = kThreads / kWarpSize;
inline constexpr std::size_t kStaticSmem = kWarpSums * kFloatBytes;
}  // namespace rmsnorm
LaunchPlan rmsnorm_plan(long long tokens, long long hidden);

namespace rope {
inline constexpr int kThreads = 128;
inline constexpr int kMaxHeadDim = 512;
inline constexpr std::size_t kStaticSmem = 2 * (kMaxHeadDim / 2) * kFloatBytes;  // cos, sin
}  // namespace rope
LaunchPlan rope_plan(long long tokens, long long q_heads, long long kv_heads, long long head_dim);

// Grid-stride kernels over 8-element chunks: silu_and_mul, gelu, residual_add.
namespace pointwise {
inline constexpr int kThreads = 256;
inline constexpr std::uint64_t kMaxBlocks = 1u << 20;
}  // namespace pointwise
LaunchPlan silu_and_mul_plan(long long tokens, long long ffn);
LaunchPlan gelu_plan(long long tokens, long long ffn);
LaunchPlan residual_add_plan(unsigned long long n, bool vectorized);

namespace kv_cache_write {
inline constexpr int kThreads = 128;
}  // namespace kv_cache_write
LaunchPlan kv_cache_write_plan(long long tokens, long long kv_heads, long long head_dim);

// Sampling: one CTA per row; each thread keeps its best `capacity` (value,
// index) pairs in registers, then top_k rounds of a block argmax merge them.
namespace sampling {
inline constexpr int kThreads = 256;
inline constexpr int kMaxTopK = 64;
// Register capacity of the per-thread list: 1 (greedy) or kMaxTopK.
constexpr int capacity(int top_k) { return top_k <= 1 ? 1 : kMaxTopK; }
// Per-warp winners of a merge round, and the selected top-k.
inline constexpr std::size_t kStaticSmem =
    (kThreads / kWarpSize) * (kFloatBytes + 4) + kMaxTopK * (kFloatBytes + 4) + 4 * 2;
}  // namespace sampling
LaunchPlan sampling_plan(long long rows, long long vocab, long long top_k);

// ---- harness utilities (fill.cu) ----------------------------------------------------
namespace fill {
inline constexpr int kThreads = 256;
inline constexpr std::uint64_t kMaxBlocks = 1u << 16;
}  // namespace fill
LaunchPlan fill_plan(unsigned long long n);  // fill_uniform_bf16 and poison_bf16
LaunchPlan spin_plan();

}  // namespace efimsim::kernels::launch
