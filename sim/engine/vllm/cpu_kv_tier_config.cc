#include "sim/engine/vllm/cpu_kv_tier_config.h"

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

namespace {
// The tier's key in the engine OptionStore.
const char* const kCpuKvTierKey = "vllm_v1.cpu_kv_tier";
}  // namespace

const CpuKvTierConfig& CpuKvTierSettings(const OptionStore& options) {
  return options.Get<CpuKvTierConfig>(kCpuKvTierKey);
}

BoundParamTable<OptionStore> CpuKvTierOptionTable() {
  return BindParamTable("CPU KV tier (vLLM offloading connector; vLLM engine only)",
                        CpuKvTierParams(), StoredPart<CpuKvTierConfig>(kCpuKvTierKey),
                        ParamScope{"engine", {"vllm_v1"}});
}

HostLinkDefault DefaultHostLink(const GpuSpec& gpu) {
  // The spec's host link is a theoretical per-direction rate (datasheet).
  // Pinned-memory host -> GPU copies reach about 25/32 of it: ~50 of 64 GB/s
  // on PCIe Gen5 x16, ~25 of 32 GB/s on Gen4 x16 (published cudaMemcpy
  // bandwidth-test figures; an estimate, not measured on the machines
  // modelled). 0 when the spec names no host link.
  constexpr double kPinnedCopyShare = 25.0 / 32.0;
  if (gpu.host_link_gbps <= 0) return {};
  return {gpu.host_link_gbps * kPinnedCopyShare,
          "25/32 of the GPU spec's host link (" + gpu.host_link_source +
              "): pinned-copy share, estimate"};
}

int64_t CpuKvTierBlocks(const CpuKvTierConfig& config, int64_t bytes_per_block) {
  if (config.cpu_kv_gib <= 0 || bytes_per_block <= 0) return 0;
  return static_cast<int64_t>(
      std::floor(config.cpu_kv_gib * 1073741824.0 / static_cast<double>(bytes_per_block)));
}

}  // namespace efimsim
