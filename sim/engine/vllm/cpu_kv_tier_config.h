#pragma once
// Settings of the CPU KV tier (vLLM's CPU offloading connector; see
// sim/engine/vllm/cpu_kv_tier.h and sim/README.md "CPU KV tier"). It applies to
// the vLLM v1 engine only. cpu_kv_gib = 0 switches it off: then no tier
// exists and every output is what it was before the tier was added.

#include <cstdint>
#include <string>

#include "models/formats/model_spec.h"
#include "sim/base/bound_params.h"
#include "sim/base/option_store.h"
#include "sim/base/params.h"
#include "sim/base/time.h"

namespace efimsim {

struct CpuKvTierConfig {
  double cpu_kv_gib = 0;         // host memory for offloaded KV per replica; 0 = off
  double offload_gbps = 0;       // host -> GPU link, GB/s (1e9 bytes/s); 0 = the GPU's default
  double offload_latency_us = 20;  // fixed cost of one load transfer (estimate)
};

const ParamTable<CpuKvTierConfig>& CpuKvTierParams();

// The tier's settings in a run's engine OptionStore (defaults: off), and
// its table bound there, scoped to --engine vllm_v1: the vLLM engine's part
// tables (EngineEntry::part_option_tables).
const CpuKvTierConfig& CpuKvTierSettings(const OptionStore& options);
BoundParamTable<OptionStore> CpuKvTierOptionTable();

// The host link's achievable host -> GPU rate in GB/s assumed for a GPU,
// with where it comes from: a share of the spec's `host_link_gbps` (see the
// .cc). gbps = 0 when the spec has no host link.
struct HostLinkDefault {
  double gbps = 0;
  std::string source;
};
HostLinkDefault DefaultHostLink(const GpuSpec& gpu);

// Blocks the tier holds: floor(gib x 2^30 / bytes_per_block). 0 when off.
int64_t CpuKvTierBlocks(const CpuKvTierConfig& config, int64_t bytes_per_block);

}  // namespace efimsim
