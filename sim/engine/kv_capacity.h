#pragma once
// KV cache size, as vLLM sizes it at start-up, per GPU:
//   blocks = floor((memory x utilization - weights - non-KV overhead)
//                  / (block_tokens x KV bytes per token))
// With a draft head of `draft_layers` decoder layers (speculative decoding
// with EAGLE, EAGLE-3 or MTP), its layers' weights count as weights and
// their KV is held in the same blocks, as vLLM sizes one KV cache over
// every attention layer, the drafter's included: a block costs
// (layers + draft_layers) / layers of the target's. A draft layer is
// priced as the target's average decoder layer (weights and KV); the
// head's other parts (EAGLE-3's fusion layer, a draft vocabulary's lm_head)
// are not counted.
// With a separate draft model (vLLM's draft_model), its shard's weights
// count as weights and its KV bytes per token join the target's in every
// block, as vLLM's one KV cache over both models' attention layers.
// Under tensor parallelism (TP GPUs per replica) weights and KV bytes per
// token are one GPU's shard (models/latency/operator_work.h: 1/TP of the weights
// and of the KV heads, KV heads replicated below TP); every GPU holds the
// same blocks for its heads, so the replica has that many blocks.

#include <cstdint>
#include <string>

#include "models/formats/model_spec.h"
#include "sim/engine/engine_config.h"

namespace efimsim {

struct KvCapacity {
  int64_t blocks = 0;
  int64_t tokens = 0;
  double memory_gib = 0;      // GPU memory assumed
  double weights_gib = 0;     // per GPU
  int64_t tensor_parallel = 1;
  int64_t kv_bytes_per_token = 0;  // per GPU, the target model's layers
  int64_t draft_layers = 0;        // a draft head's decoder layers sharing the cache
  int64_t draft_kv_bytes_per_token = 0;  // per GPU, theirs (in the same blocks)
  double draft_weights_gib = 0;    // per GPU, theirs (inside weights_gib)
  std::string draft_model;         // a separate draft model's name ("" none; draft_layers is then 0)
  double kv_gib = 0;          // memory given to the KV cache
  bool overridden = false;    // --kv-blocks set it directly
};

// Throws UsageError when the model does not fit (no memory left for KV),
// or for a tensor-parallel size the model cannot be split by.
KvCapacity ComputeKvCapacity(const EngineConfig& config, const ModelSpec& model,
                             const GpuSpec& gpu, int64_t tensor_parallel = 1,
                             int64_t draft_layers = 0, const ModelSpec* draft_model = nullptr);

}  // namespace efimsim
