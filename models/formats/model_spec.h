#pragma once
// What the simulator needs to know about a model and a GPU. Both are read
// from JSON (models/specs/*.json, models/gpus/*.json); derived figures
// (weight bytes, KV bytes per token) are computed here, never typed in.

#include <cstdint>
#include <string>

#include "sim/base/tokens.h"

namespace efimsim {

enum class MlpKind : uint8_t { kGated, kPlain };  // gate+up+down, or up+down

// Mixture-of-experts MLPs (vLLM's FusedMoE; Mixtral, Qwen3-MoE, Llama-4,
// DeepSeek-V2). Absent (experts == 0): every layer has a dense MLP of
// ffn_size. Experts are gated (gate, up, down) like the dense MLP.
struct MoeSpec {
  int64_t experts = 0;                 // routed experts per MoE layer; 0: dense model
  int64_t experts_per_token = 0;       // top-k, 1 <= k <= experts
  int64_t expert_ffn_size = 0;         // one routed expert's intermediate size
  int64_t shared_expert_ffn_size = 0;  // the always-on shared experts' summed intermediate size; 0: none
  int64_t first_dense_layers = 0;      // leading layers with a dense MLP (DeepSeek's first_k_dense_replace)
  int64_t layer_step = 1;              // after those, layer i is MoE iff (i + 1) % layer_step == 0 (Llama-4's interleave)

  bool IsMoe() const { return experts > 0; }
  // Layer index 0 .. layers-1.
  bool IsMoeLayer(int64_t layer) const {
    return IsMoe() && layer >= first_dense_layers && (layer + 1) % layer_step == 0;
  }
};

// Multi-head latent attention (DeepSeek-V2's MLA, as vLLM's MLAAttention
// runs it). Absent (kv_lora_rank == 0): per-head K and V. With it, a
// layer's attention is q_proj (hidden -> heads x (nope + rope)),
// kv_a_proj_with_mqa (hidden -> kv_lora_rank + rope, one latent per token,
// replicated under TP), kv_b_proj (kv_lora_rank -> heads x (nope + v)) and
// o_proj (heads x v -> hidden); the KV cache holds the latent and the
// shared rope key: kv_lora_rank + rope elements per token and layer, the
// same on every GPU of a TP group. The spec's q_heads is the attention
// heads; kv_heads equals q_heads; head_dim is nope + rope (the query-key
// width). A compressed query (q_lora_rank, DeepSeek-V2/V3's full models) is
// not modelled.
struct MlaSpec {
  int64_t kv_lora_rank = 0;       // the latent's width; 0: no MLA
  int64_t qk_nope_head_dim = 0;   // per head, the query-key part without rotary embedding
  int64_t qk_rope_head_dim = 0;   // per head (and the shared rope key's width)
  int64_t v_head_dim = 0;         // per head

  bool IsMla() const { return kv_lora_rank > 0; }
  int64_t QkHeadDim() const { return qk_nope_head_dim + qk_rope_head_dim; }
  int64_t LatentWidth() const { return kv_lora_rank + qk_rope_head_dim; }  // cached per token and layer
};

// The numeric format a run serves the linear layers' weights in (vLLM's
// --quantization). Embeddings, lm_head, norms and the MoE router stay in the
// checkpoint dtype, as vLLM's FP8 methods leave them.
enum class WeightQuantization : uint8_t {
  kNone,      // the checkpoint dtype
  kFp8,       // FP8 E4M3, per-tensor scales (vLLM --quantization fp8 on a BF16 checkpoint)
  kFp8Block,  // FP8 E4M3, 128x128 block scales (FP8 checkpoints such as Qwen3-*-FP8, DeepSeek)
};
const char* WeightQuantizationName(WeightQuantization q);  // "none", "fp8", "fp8_block"
// The KV cache's element format (vLLM's --kv-cache-dtype).
enum class KvCacheDtype : uint8_t { kAuto, kFp8 };  // auto: the checkpoint dtype
const char* KvCacheDtypeName(KvCacheDtype d);       // "auto", "fp8"
// How tokens spread over the routed experts, which sets how many distinct
// experts (and so expert weights) one step touches.
enum class MoeRouting : uint8_t {
  kUniform,   // each token picks top-k experts uniformly at random (the default)
  kBalanced,  // tokens spread as evenly as possible: min(experts, tokens x k) touched,
              // as AIConfigurator's "balanced" MoE tables were timed
  kPowerLaw,  // skewed: expert popularity falls as a power law (exponent 1.2), as
              // AIConfigurator's "power_law_1.2" tables were timed (with expert
              // parallelism the most loaded GPU sets the time). Only those tables
              // carry the skew: the work formulas count its experts as uniform's
};
const char* MoeRoutingName(MoeRouting r);  // "uniform", "balanced", "power-law"

// Token ids a prompt builder needs. Sentinels are single tokens.
struct SpecialTokens {
  TokenId bos = -1;         // -1: the model has no BOS
  TokenId fim_prefix = -1;  // <PRE>
  TokenId fim_suffix = -1;  // <SUF>
  TokenId fim_middle = -1;  // <MID>
  TokenId text_first = 0;   // synthetic text tokens are drawn from
  TokenId text_last = 0;    // [text_first, text_last]
  friend bool operator==(const SpecialTokens&, const SpecialTokens&) = default;
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
  MoeSpec moe;  // experts == 0: dense
  MlaSpec mla;  // kv_lora_rank == 0: per-head K and V
  // How a run serves it: set from the run's options (ServedAs), never from
  // the spec file. Defaults: the checkpoint's dtype for weights and KV.
  WeightQuantization quantization = WeightQuantization::kNone;
  KvCacheDtype kv_cache_dtype = KvCacheDtype::kAuto;
  bool expert_parallel = false;  // experts spread over the TP group (--enable-expert-parallel)
  MoeRouting moe_routing = MoeRouting::kUniform;  // the routing MoE steps are priced for
  // Data-parallel ranks whose MoE layers run together (vLLM's
  // --data-parallel-size): each rank has its own TP group, attention and
  // KV; an MoE layer's experts span all data_parallel x TP GPUs. 1: none.
  int64_t data_parallel = 1;

  // Derived figures.
  // q, k, v, o projections (MLA: q_proj, kv_a_proj_with_mqa, kv_b_proj,
  // o_proj; the latent's RMSNorm is counted with the norms).
  int64_t AttentionParamsPerLayer() const;
  // A dense layer's MLP (ffn_size); for an MoE layer see the Moe* figures.
  int64_t MlpParamsPerLayer() const;
  int64_t MoeLayers() const;   // layers whose MLP is MoE (0 for a dense model)
  int64_t DenseLayers() const { return layers - MoeLayers(); }
  int64_t MoeRouterParamsPerLayer() const { return moe.experts * hidden_size; }
  int64_t MoeExpertParams() const { return 3 * hidden_size * moe.expert_ffn_size; }  // one expert
  int64_t MoeSharedParamsPerLayer() const { return 3 * hidden_size * moe.shared_expert_ffn_size; }
  int64_t EmbeddingParams() const { return vocab_size * hidden_size; }
  int64_t LmHeadParams() const { return vocab_size * hidden_size; }  // shared when tied
  // Parameters of the quantizable linear layers (projections, dense MLPs,
  // routed and shared experts): every layer's weights but norms and routers.
  int64_t LinearParams() const;
  int64_t TotalParams() const;   // norms, routers, embeddings included
  // Parameters one token runs through: routed experts only its top-k.
  int64_t ActiveParams() const;
  // Bytes of one linear-layer weight element as served (1 under FP8).
  int64_t LinearWeightBytes() const {
    return quantization == WeightQuantization::kNone ? dtype_bytes : 1;
  }
  int64_t KvElementBytes() const { return kv_cache_dtype == KvCacheDtype::kFp8 ? 1 : dtype_bytes; }
  // Linear weights at LinearWeightBytes(), everything else at dtype_bytes.
  int64_t WeightBytes() const {
    return LinearParams() * LinearWeightBytes() + (TotalParams() - LinearParams()) * dtype_bytes;
  }
  // 2 (K and V) x layers x kv_heads x head_dim x KV element bytes; MLA:
  // layers x (kv_lora_rank + rope) x KV element bytes.
  int64_t KvBytesPerToken() const {
    if (mla.IsMla()) return layers * mla.LatentWidth() * KvElementBytes();
    return 2 * layers * kv_heads * head_dim * KvElementBytes();
  }
  // "bf16 weights, bf16 KV" / "fp8 weights, fp8 KV": for outputs.
  std::string PrecisionText() const;
};

// How a run serves a model (vLLM's --quantization, --kv-cache-dtype,
// --enable-expert-parallel, --data-parallel-size).
struct ServingFormat {
  WeightQuantization quantization = WeightQuantization::kNone;
  KvCacheDtype kv_cache_dtype = KvCacheDtype::kAuto;
  bool expert_parallel = false;
  MoeRouting moe_routing = MoeRouting::kUniform;
  int64_t data_parallel = 1;
};
// `model` served so. Throws UsageError when FP8 is asked of a float32 model,
// expert parallelism of a dense one, or data_parallel < 1.
ModelSpec ServedAs(ModelSpec model, const ServingFormat& format);

struct GpuSpec {
  std::string name;
  std::string description;
  int64_t memory_bytes = 0;
  double datasheet_bf16_tflops = 0;
  double datasheet_fp8_tflops = 0;  // dense FP8 tensor; 0: no FP8 tensor cores (FP8 weights run as W8A16)
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
  // The node's network, for an MoE group that spans nodes of kGpusPerNode
  // GPUs (operator_work.h): one GPU's own NIC, one direction, GB/s (1e9
  // bytes/s); 0 when the spec has none (such groups are then refused).
  double network_gbps = 0;
  double network_latency_us = 0;  // fixed cost of one collective over it
  std::string network_source;
  // Host (CPU) link, for KV offloading to host memory; 0 when the spec has none.
  double host_link_gbps = 0;  // one direction, GB/s (1e9 bytes/s), datasheet
  std::string host_link_source;
  // L2 cache, bytes; 0 when the spec states none. Only the physics check of
  // measured tables reads it (models/import/physics_check.h): bytes an L2
  // can hold need not come from DRAM when a benchmark repeats a kernel.
  int64_t l2_cache_bytes = 0;
  std::string l2_cache_source;

  // FP8 over BF16 tensor throughput (1 without FP8 tensor cores): what the
  // models scale a BF16 compute ceiling by for FP8 GEMMs.
  double Fp8ComputeRatio() const {
    return datasheet_fp8_tflops > 0 ? datasheet_fp8_tflops / datasheet_bf16_tflops : 1.0;
  }
};

}  // namespace efimsim
