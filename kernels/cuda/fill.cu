// Harness utilities: device-side random fill, NaN poisoning, and a spin
// kernel that holds the GPU while timed launches queue up behind it.

#include "kernels.h"
#include "launch_config.h"

namespace efimsim::kernels::cuda {
namespace {

constexpr int kThreads = launch::fill::kThreads;

__device__ __forceinline__ std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

__global__ void __launch_bounds__(kThreads) fill_uniform_kernel(bf16_t* x, std::size_t n, std::uint64_t seed, float lo, float hi) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    const std::uint64_t r = mix(seed * 0x9e3779b97f4a7c15ull + i + 1);
    const float u = static_cast<float>(r >> 40) * 0x1.0p-24f;
    x[i] = __float2bfloat16_rn(lo + u * (hi - lo));
  }
}

__global__ void __launch_bounds__(kThreads) fill_uniform_f32_kernel(float* x, std::size_t n, std::uint64_t seed,
                                                                     float lo, float hi) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    const std::uint64_t r = mix(seed * 0x9e3779b97f4a7c15ull + i + 1);
    x[i] = lo + static_cast<float>(r >> 40) * 0x1.0p-24f * (hi - lo);
  }
}

__global__ void __launch_bounds__(kThreads) poison_kernel(bf16_t* x, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    x[i] = __ushort_as_bfloat16(static_cast<unsigned short>(0x7fc1));  // quiet NaN
  }
}

__global__ void spin_kernel(std::uint64_t ns) {
  std::uint64_t start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

}  // namespace

cudaError_t fill_uniform_bf16(bf16_t* x, std::size_t n, std::uint64_t seed, float lo, float hi,
                              cudaStream_t stream) {
  const launch::LaunchPlan plan = launch::fill_plan(n);
  if (plan.count == 0) return cudaSuccess;
  if (!x || !(lo < hi)) return set_launch_error("fill_uniform_bf16: null pointer or lo >= hi");
  const launch::LaunchConfig& c = plan.launches[0];
  fill_uniform_kernel<<<static_cast<unsigned>(c.grid.x), static_cast<unsigned>(c.block.x), 0, stream>>>(x, n, seed,
                                                                                                      lo, hi);
  return cudaGetLastError();
}

cudaError_t fill_uniform_f32(float* x, std::size_t n, std::uint64_t seed, float lo, float hi, cudaStream_t stream) {
  const launch::LaunchPlan plan = launch::fill_plan(n);
  if (plan.count == 0) return cudaSuccess;
  if (!x || !(lo < hi)) return set_launch_error("fill_uniform_f32: null pointer or lo >= hi");
  const launch::LaunchConfig& c = plan.launches[0];
  fill_uniform_f32_kernel<<<static_cast<unsigned>(c.grid.x), static_cast<unsigned>(c.block.x), 0, stream>>>(
      x, n, seed, lo, hi);
  return cudaGetLastError();
}

cudaError_t poison_bf16(bf16_t* x, std::size_t n, cudaStream_t stream) {
  const launch::LaunchPlan plan = launch::fill_plan(n);
  if (plan.count == 0) return cudaSuccess;
  if (!x) return set_launch_error("poison_bf16: a null pointer");
  const launch::LaunchConfig& c = plan.launches[0];
  poison_kernel<<<static_cast<unsigned>(c.grid.x), static_cast<unsigned>(c.block.x), 0, stream>>>(x, n);
  return cudaGetLastError();
}

cudaError_t spin(std::uint32_t ns, cudaStream_t stream) {
  const launch::LaunchPlan plan = launch::spin_plan();
  const launch::LaunchConfig& c = plan.launches[0];
  spin_kernel<<<static_cast<unsigned>(c.grid.x), static_cast<unsigned>(c.block.x), 0, stream>>>(ns);
  return cudaGetLastError();
}

}  // namespace efimsim::kernels::cuda
