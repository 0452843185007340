// Scatter the step's new K/V rows into the paged cache through the slot
// mapping (vLLM's reshape_and_cache_flash): one CTA per token, 16-byte
// chunks; a negative slot (padding) writes nothing.

#include "kernels.h"
#include "launch_config.h"
#include "vec.cuh"

namespace efimsim::kernels::cuda {
namespace {

constexpr int kThreads = launch::kv_cache_write::kThreads;

__global__ void __launch_bounds__(kThreads) kv_cache_write_kernel(const KvCacheWriteParams p) {
  const int token = blockIdx.x;
  const std::int64_t slot = p.slot_mapping[token];
  if (slot < 0) return;
  const std::size_t row = static_cast<std::size_t>(p.kv_heads) * p.head_dim;
  const bf16_t* k = p.k + static_cast<std::size_t>(token) * row;
  const bf16_t* v = p.v + static_cast<std::size_t>(token) * row;
  bf16_t* kc = p.k_cache + static_cast<std::size_t>(slot) * row;
  bf16_t* vc = p.v_cache + static_cast<std::size_t>(slot) * row;
  for (std::size_t c = threadIdx.x; c < row / 8; c += kThreads) {
    vec::store(kc + c * 8, vec::load(k + c * 8));
    vec::store(vc + c * 8, vec::load(v + c * 8));
  }
}

}  // namespace

cudaError_t kv_cache_write(const KvCacheWriteParams& p, cudaStream_t stream) {
  const launch::LaunchPlan plan = launch::kv_cache_write_plan(p.tokens, p.kv_heads, p.head_dim);
  if (!plan.ok()) return set_launch_error(plan.error);
  if (!p.k || !p.v || !p.k_cache || !p.v_cache || !p.slot_mapping || !vec::aligned16(p.k) || !vec::aligned16(p.v) ||
      !vec::aligned16(p.k_cache) || !vec::aligned16(p.v_cache)) {
    return set_launch_error("kv_cache_write: null or misaligned pointer");
  }
  if (plan.count == 0) return cudaSuccess;
  const launch::LaunchConfig& c = plan.launches[0];
  kv_cache_write_kernel<<<static_cast<unsigned>(c.grid.x), static_cast<unsigned>(c.block.x), 0, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace efimsim::kernels::cuda
