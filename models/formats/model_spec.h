#pragma once
// What the simulator needs to know about a model and a GPU. Both are read
// from JSON (models/specs/*.json, models/gpus/*.json); derived figures
// (weight bytes, KV bytes per token) are computed here, never typed in.

#include <cstdint>
#include <string>

#include "sim/base/tokens.h"

namespace efimsim {

enum class MlpKind : uint8_t { kGated, kPlain };  // gate+up+down, or up+down

// Token ids a prompt builder needs. Sentinels are single tokens.
struct SpecialTokens {
  TokenId bos = -1;         // -1: the model has no BOS
  TokenId fim_prefix = -1;  // <PRE>
  TokenId fim_suffix = -1;  // <SUF>
  TokenId fim_middle = -1;  // <MID>
  TokenId text_first = 0;   // synthetic text tokens are drawn from
  TokenId text_last = 0;    // [text_first, text_last]
};

struct ModelSpec {
  std::string name;
  std::string source;  // where the figures come from
  int64_t layers = 0;
  int64_t hidden_size = 0;
  int64_t q_heads = 0;
  int64_t kv_heads = 0;
  int64_t head_dim = 0;
  int64_t ffn_size = 0;
  int64_t vocab_size = 0;
  bool tied_embeddings = false;
  std::string activation;
  MlpKind mlp = MlpKind::kGated;
  int64_t dtype_bytes = 2;
  int64_t max_context_tokens = 0;
  SpecialTokens tokens;

  // Derived figures.
  int64_t AttentionParamsPerLayer() const;  // q, k, v, o projections
  int64_t MlpParamsPerLayer() const;
  int64_t LinearParamsPerLayer() const { return AttentionParamsPerLayer() + MlpParamsPerLayer(); }
  int64_t EmbeddingParams() const { return vocab_size * hidden_size; }
  int64_t LmHeadParams() const { return vocab_size * hidden_size; }  // shared when tied
  int64_t TotalParams() const;  // norms included
  int64_t WeightBytes() const { return TotalParams() * dtype_bytes; }
  // 2 (K and V) x layers x kv_heads x head_dim x dtype bytes.
  int64_t KvBytesPerToken() const { return 2 * layers * kv_heads * head_dim * dtype_bytes; }
};

struct GpuSpec {
  std::string name;
  std::string description;
  int64_t memory_bytes = 0;
  double datasheet_bf16_tflops = 0;
  double datasheet_hbm_tbps = 0;
  double achievable_bf16_tflops = 0;  // the roofline's compute ceiling
  double achievable_hbm_tbps = 0;     // the roofline's bandwidth ceiling
  // True when the achievable figures were measured on this GPU model (by this
  // project or a cited source); false when they are a documented fraction of
  // the datasheet, which every output that uses them must call an estimate.
  bool achievable_measured = false;
  std::string achievable_source;
  // GPU-to-GPU link for tensor-parallel all-reduces; 0 when the spec has none.
  double interconnect_gbps = 0;        // one direction, one GPU, GB/s (1e9 bytes/s)
  double interconnect_latency_us = 0;  // fixed cost of one all-reduce
  std::string interconnect_source;
  // Host (CPU) link, for KV offloading to host memory; 0 when the spec has none.
  double host_link_gbps = 0;  // one direction, GB/s (1e9 bytes/s), datasheet
  std::string host_link_source;
};

}  // namespace efimsim
