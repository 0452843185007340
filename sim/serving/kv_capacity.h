#pragma once
// KV cache size, as vLLM sizes it at start-up:
//   blocks = floor((memory x utilization - weights - non-KV overhead)
//                  / (block_tokens x KV bytes per token))

#include <cstdint>
#include <string>

#include "models/model_spec.h"
#include "sim/serving/engine_config.h"

namespace efimsim {

struct KvCapacity {
  int64_t blocks = 0;
  int64_t tokens = 0;
  double memory_gib = 0;      // GPU memory assumed
  double weights_gib = 0;
  double kv_gib = 0;          // memory given to the KV cache
  bool overridden = false;    // --kv-blocks set it directly
};

// Throws UsageError when the model does not fit (no memory left for KV).
KvCapacity ComputeKvCapacity(const EngineConfig& config, const ModelSpec& model,
                             const GpuSpec& gpu);

}  // namespace efimsim
