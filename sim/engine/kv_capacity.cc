#include "sim/engine/kv_capacity.h"

#include <cmath>

#include "models/latency/operator_work.h"
#include "sim/base/errors.h"
#include "sim/base/params.h"

namespace efimsim {
namespace {
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
}

KvCapacity ComputeKvCapacity(const EngineConfig& config, const ModelSpec& model,
                             const GpuSpec& gpu, int64_t tensor_parallel, int64_t draft_layers,
                             const ModelSpec* draft_model) {
  KvCapacity capacity;
  const ShardShapes shard = ShardModel(model, tensor_parallel);
  capacity.tensor_parallel = tensor_parallel;
  capacity.memory_gib = config.gpu_memory_gib > 0
                            ? config.gpu_memory_gib
                            : static_cast<double>(gpu.memory_bytes) / kGiB;
  const int64_t weight_bytes = ShardWeightBytes(model, shard);
  capacity.kv_bytes_per_token = ShardKvBytesPerToken(shard);
  if (draft_layers > 0 && shard.layers > 0) {
    // The average decoder layer: every weight but the embedding, lm_head
    // and final norm (the model's with no layers), over the layers.
    ShardShapes no_layers = shard;
    no_layers.layers = 0;
    no_layers.moe_layers = 0;
    const double per_layer =
        static_cast<double>(weight_bytes - ShardWeightBytes(model, no_layers)) / static_cast<double>(shard.layers);
    capacity.draft_layers = draft_layers;
    capacity.draft_weights_gib = per_layer * static_cast<double>(draft_layers) / kGiB;
    capacity.draft_kv_bytes_per_token = capacity.kv_bytes_per_token / shard.layers * draft_layers;
  }
  if (draft_model != nullptr) {
    const ShardShapes draft = ShardModel(*draft_model, tensor_parallel);
    capacity.draft_model = draft_model->name;
    capacity.draft_weights_gib = static_cast<double>(ShardWeightBytes(*draft_model, draft)) / kGiB;
    capacity.draft_kv_bytes_per_token = ShardKvBytesPerToken(draft);
  }
  capacity.weights_gib = static_cast<double>(weight_bytes) / kGiB + capacity.draft_weights_gib;
  const double block_bytes =
      static_cast<double>(config.block_tokens) *
      static_cast<double>(capacity.kv_bytes_per_token + capacity.draft_kv_bytes_per_token);
  if (config.kv_blocks > 0 && config.num_gpu_blocks_override > 0 &&
      config.kv_blocks != config.num_gpu_blocks_override) {
    throw UsageError("--num-gpu-blocks-override: " +
                     std::to_string(config.num_gpu_blocks_override) + " and --kv-blocks " +
                     std::to_string(config.kv_blocks) + " disagree; give one");
  }
  const int64_t override_blocks =
      config.kv_blocks > 0 ? config.kv_blocks : config.num_gpu_blocks_override;
  if (override_blocks > 0) {
    capacity.blocks = override_blocks;
    capacity.overridden = true;
  } else {
    const double kv_bytes =
        (capacity.memory_gib * config.gpu_memory_utilization - capacity.weights_gib -
         config.non_kv_overhead_gib) * kGiB;
    if (kv_bytes < block_bytes) {
      throw UsageError("model " + model.name + " (" + FormatDouble(capacity.weights_gib) +
                       " GiB of weights" +
                       (tensor_parallel > 1 ? " per GPU at TP " + std::to_string(tensor_parallel)
                                            : std::string()) +
                       ") leaves no KV cache memory on " +
                       FormatDouble(capacity.memory_gib) + " GiB at utilization " +
                       FormatDouble(config.gpu_memory_utilization) +
                       " (see --gpu-memory-gib, --gpu-memory-utilization, --non-kv-overhead-gib)");
    }
    capacity.blocks = static_cast<int64_t>(std::floor(kv_bytes / block_bytes));
  }
  if (capacity.blocks > INT32_MAX) {
    throw UsageError(std::string(capacity.overridden ? "--kv-blocks" : "--gpu-memory-gib") +
                     ": " + std::to_string(capacity.blocks) + " KV blocks, more than the " +
                     std::to_string(INT32_MAX) + " one replica can index");
  }
  capacity.tokens = capacity.blocks * config.block_tokens;
  capacity.kv_gib = static_cast<double>(capacity.blocks) * block_bytes / kGiB;
  return capacity;
}

}  // namespace efimsim
