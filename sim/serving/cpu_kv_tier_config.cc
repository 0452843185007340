#include "sim/serving/cpu_kv_tier_config.h"

#include <cmath>

namespace efimsim {

const ParamTable<CpuKvTierConfig>& CpuKvTierParams() {
  using C = CpuKvTierConfig;
  static const ParamTable<C> table = {
      {{"cpu-kv-gib", "GiB",
        "host memory per replica for a CPU KV tier (vLLM offloading connector); 0 = off", 0,
        16384},
       &C::cpu_kv_gib},
      {{"offload-gbps", "GB/s",
        "host -> GPU rate of CPU KV loads; 0 = the GPU's host link (estimate, see sim/README.md)",
        0, 1e6},
       &C::offload_gbps},
      {{"offload-latency-us", "us", "fixed cost of one CPU KV load transfer (estimate)", 0, 1e9},
       &C::offload_latency_us},
  };
  return table;
}

HostLinkDefault DefaultHostLink(const std::string& gpu_name) {
  // H100 SXM5 and H200 attach to the host over PCIe Gen5 x16: 64 GB/s per
  // direction theoretical (32 GT/s x 16 lanes, 128b/130b); pinned-memory
  // copies reach about 50 GB/s, which is what we assume. An estimate, not
  // a measurement on the machines modelled.
  if (gpu_name.rfind("h100", 0) == 0 || gpu_name.rfind("h200", 0) == 0 ||
      gpu_name.rfind("NVIDIA H100", 0) == 0 || gpu_name.rfind("NVIDIA H200", 0) == 0) {
    return {50.0, "PCIe Gen5 x16: 64 GB/s per direction theoretical, ~50 GB/s achievable "
                  "(estimate)"};
  }
  return {25.0, "PCIe Gen4 x16 assumed for an unknown GPU: 32 GB/s theoretical, ~25 GB/s "
                "achievable (estimate)"};
}

int64_t CpuKvTierBlocks(const CpuKvTierConfig& config, int64_t bytes_per_block) {
  if (config.cpu_kv_gib <= 0 || bytes_per_block <= 0) return 0;
  return static_cast<int64_t>(
      std::floor(config.cpu_kv_gib * 1073741824.0 / static_cast<double>(bytes_per_block)));
}

}  // namespace efimsim
