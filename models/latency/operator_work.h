#pragma once
// FLOPs and bytes of every operator of a transformer step, on one GPU's shard
// of the model. The one place these formulas live: the roofline model prices
// them directly, the profile model fits its measurements to them and uses
// them to extrapolate and to rescale measured shapes to sharded ones.
//
// Units: FLOPs and bytes of one launch of one operator for one layer.
// Tokens are counts; all arithmetic is in double.

#include <compare>
#include <cstdint>
#include <string_view>

#include "models/formats/model_spec.h"

namespace efimsim {

struct OperatorWork {
  double flops = 0;
  double bytes = 0;  // bytes read plus bytes written in HBM
};

// GPUs of one node (an HGX/DGX baseboard): tensor parallelism and an MoE
// group of up to this many GPUs run over NVLink (GpuSpec::interconnect_gbps);
// a larger MoE group fills whole nodes and its dispatch and combine cross the
// node's network (GpuSpec::network_gbps).
inline constexpr int64_t kGpusPerNode = 8;
// Whether a group of `gpus` GPUs (an MoE group: data parallel x tensor
// parallel) spans nodes.
constexpr bool GroupSpansNodes(int64_t gpus) { return gpus > kGpusPerNode; }

// One GPU's shapes of the model under tensor parallelism (Megatron-style:
// heads and the FFN split across GPUs; KV heads replicated when there are
// fewer than GPUs; norms and residuals replicated; lm_head split by vocab).
struct ShardShapes {
  int64_t tensor_parallel = 1;
  int64_t layers = 0;
  int64_t hidden = 0;
  int64_t q_heads = 0;   // per GPU
  int64_t kv_heads = 0;  // per GPU
  int64_t head_dim = 0;
  int64_t ffn = 0;       // per GPU
  int64_t vocab = 0;     // per GPU (lm_head shard)
  int64_t dtype_bytes = 2;         // activations, norms, embeddings, lm_head, router
  int64_t weight_bytes = 2;        // one linear-layer weight element as served (1 under FP8)
  int64_t kv_bytes = 2;            // one KV-cache element as served (1 under an FP8 KV cache)
  WeightQuantization quantization = WeightQuantization::kNone;
  bool gated_mlp = true;
  // Mixture of experts (experts == 0: dense). Without expert parallelism
  // (vLLM's default) every GPU holds all experts, each split by TP along its
  // intermediate size; with it (expert_parallel > 1) each GPU holds
  // experts / expert_parallel whole experts and tokens are sent to them.
  int64_t moe_layers = 0;          // layers with an MoE MLP; the rest are dense
  int64_t experts = 0;             // routed experts of the model (router width)
  int64_t experts_per_gpu = 0;     // experts whose weights one GPU holds
  int64_t experts_per_token = 0;   // top-k
  int64_t expert_ffn = 0;          // one expert's intermediate size on one GPU
  int64_t shared_expert_ffn = 0;   // per GPU; 0: no shared expert
  int64_t expert_parallel = 1;     // GPUs the experts are spread over (1: TP-sharded experts)
  MoeRouting moe_routing = MoeRouting::kUniform;
  // Data-parallel ranks of the MoE group (ModelSpec::data_parallel): the
  // experts span data_parallel x tensor_parallel GPUs, and an MoE layer runs
  // over every rank's tokens, gathered to each GPU and scattered back.
  int64_t data_parallel = 1;
  // Whether the MoE group (data_parallel x tensor_parallel GPUs) spans nodes.
  bool MoeGroupSpansNodes() const { return moe_layers > 0 && GroupSpansNodes(data_parallel * tensor_parallel); }
  // Multi-head latent attention (mla_latent == 0: none; models/formats/
  // model_spec.h MlaSpec). q_heads are this GPU's heads, kv_heads equal
  // them and head_dim is the query-key width (nope + rope); the latent and
  // the rope key are whole on every GPU.
  int64_t mla_latent = 0;  // kv_lora_rank
  int64_t mla_rope = 0;    // qk_rope_head_dim
  int64_t mla_nope = 0;    // qk_nope_head_dim
  int64_t mla_v = 0;       // v_head_dim

  bool IsMla() const { return mla_latent > 0; }
  int64_t QWidth() const { return q_heads * head_dim; }
  int64_t KvWidth() const { return kv_heads * head_dim; }
  // Elements one token writes to the KV cache per layer: K and V of the
  // GPU's KV heads, or MLA's latent and rope key.
  int64_t KvCacheWidth() const { return IsMla() ? mla_latent + mla_rope : 2 * KvWidth(); }
  // Elements the rotary embedding rotates per token: q and k, or under MLA
  // the rope part of each head's query and the one shared rope key.
  int64_t RopeWidth() const { return IsMla() ? q_heads * mla_rope + mla_rope : QWidth() + KvWidth(); }
  int64_t UpWidth() const { return gated_mlp ? 2 * ffn : ffn; }  // gate_up_proj's N
  int64_t DenseLayers() const { return layers - moe_layers; }
  // GPUs one expert's intermediate size is split over: 1 under expert
  // parallelism, else the whole MoE group (vLLM flattens TP over DP ranks
  // for its MoE layers).
  int64_t MoeTensorParallel() const { return expert_parallel > 1 ? 1 : tensor_parallel * data_parallel; }
  // Every field, in declaration order: shapes that compare equal are priced
  // alike (resolved profiles are kept by them).
  auto operator<=>(const ShardShapes&) const = default;
};

// Throws UsageError unless tensor_parallel is 1, 2, 4 or 8 and divides the
// q heads, the FFN size and the vocabulary (and kv heads, or is a multiple of
// them); for an MoE model, the expert FFN (or, with model.expert_parallel,
// the experts) by the MoE group, model.data_parallel x tensor_parallel GPUs
// (up to kGpusPerNode over NVLink, or whole nodes of them over the network;
// expert_parallel is 1 or the group), as
// vLLM's --enable-expert-parallel and --data-parallel-size. A dense model's
// data-parallel ranks are independent replicas: nothing here changes.
ShardShapes ShardModel(const ModelSpec& model, int64_t tensor_parallel);

// Bytes of weights one GPU holds: its shard of every layer's projections
// and MLP (KV projections replicated where the KV heads are), the embedding
// and an untied lm_head split by vocabulary, norms whole. At TP 1 this is
// ModelSpec::WeightBytes().
int64_t ShardWeightBytes(const ModelSpec& model, const ShardShapes& shapes);
// KV cache bytes one GPU holds per token: K and V of its KV heads in every
// layer (MLA: the whole latent and rope key, on every GPU). At TP 1 this is
// ModelSpec::KvBytesPerToken().
int64_t ShardKvBytesPerToken(const ShardShapes& shapes);

// The weight matrices of a layer plus lm_head: C[M, N] = A[M, K] x W[K, N].
// The MoE ones exist only in MoE models (HasGemm): the router (always the
// checkpoint dtype, replicated) and the shared expert's two GEMMs. Under
// MLA, qkv_proj is q_proj and kv_a_proj_with_mqa as one GEMM (N = heads x
// (nope + rope) + kv_lora_rank + rope), and kv_b_proj (kv_lora_rank ->
// heads x (nope + v)) expands the latent: over the prefill tokens and their
// cached context (vLLM's MLA prefill), and, absorbed into the query and the
// output, over every decode token (the same multiply-adds and weights).
enum class GemmId : uint8_t {
  kQkvProj, kOProj, kGateUpProj, kDownProj, kLmHead,
  kMoeRouter, kSharedExpertGateUp, kSharedExpertDown, kKvBProj,
};
inline constexpr int kGemmCount = 9;
std::string_view GemmName(GemmId id);  // "qkv_proj", ... as in PROFILE.md
// Whether the model of `shapes` has GEMM `id` at all (dense MLP GEMMs exist
// when some layer is dense; the MoE ones when some layer is MoE).
bool HasGemm(const ShardShapes& shapes, GemmId id);
struct GemmShape {
  int64_t n = 0;
  int64_t k = 0;
};
GemmShape GemmShapeOf(const ShardShapes& shapes, GemmId id);

// Per-token operators; names as in PROFILE.md's "elementwise" tables.
enum class ElementwiseId : uint8_t {
  kRmsnorm, kRope, kKvCacheWrite, kActivation, kResidualAdd, kSampling
};
inline constexpr int kElementwiseCount = 6;
// kActivation is "silu_and_mul" for a gated MLP and "gelu" for a plain one;
// kSampling is "sampling" (per emitting sequence, over the vocabulary).
std::string_view ElementwiseName(ElementwiseId id, bool gated_mlp);

OperatorWork GemmWork(const ShardShapes& shapes, GemmId id, double m);
// Whether GEMM `id` runs on FP8 weights under the shapes' quantization
// (every linear layer but lm_head and the router).
bool GemmIsQuantized(const ShardShapes& shapes, GemmId id);
// One sequence: `new_tokens` queries attend causally over `context_tokens`
// cached tokens plus their own earlier new tokens. Two matrix products (QK^T
// and PV) of 2 FLOPs per multiply-add; query i of the chunk sees context +
// i + 1 keys. Bytes: the whole K and V once, plus queries read and outputs
// written. (Inline: the roofline model prices every decode sequence.)
// An FP8 KV cache (kv_bytes 1) reads K and V at one byte an element.
// MLA prefill (vLLM's MLA prefill path): ordinary attention of every head
// over K and V that kv_b_proj expanded from the latent (query-key width
// head_dim, value width mla_v, activations in dtype whatever the cache's).
inline OperatorWork PrefillAttentionWork(const ShardShapes& s, double n, double c) {
  if (s.IsMla()) {
    const double width = static_cast<double>(s.q_heads * (s.head_dim + s.mla_v));  // q.k plus p.v
    const double dtype = static_cast<double>(s.dtype_bytes);
    return {2.0 * width * n * (c + (n + 1.0) / 2.0), ((c + n) + n) * width * dtype};
  }
  const double q_width = static_cast<double>(s.QWidth());
  const double kv_width = static_cast<double>(s.KvWidth());
  const double dtype = static_cast<double>(s.dtype_bytes);
  const double flops = 4.0 * q_width * n * (c + (n + 1.0) / 2.0);
  if (s.kv_bytes != s.dtype_bytes) {
    return {flops, (c + n) * 2.0 * kv_width * static_cast<double>(s.kv_bytes) + 2.0 * n * q_width * dtype};
  }
  return {flops, ((c + n) * 2.0 * kv_width + 2.0 * n * q_width) * dtype};
}
// `batch` sequences, one query each, each over `context_tokens` cached tokens.
// MLA decode (absorbed, as vLLM's FlashMLA and Triton MLA decode): each
// head's query, already multiplied into the latent space, scores the cached
// latent and rope key (mla_latent + mla_rope wide) and sums the latents
// (mla_latent wide); the cache is read once for all heads.
inline OperatorWork DecodeAttentionWork(const ShardShapes& s, double batch, double c) {
  if (s.IsMla()) {
    const double heads = static_cast<double>(s.q_heads);
    const double key = static_cast<double>(s.mla_latent + s.mla_rope);
    const double value = static_cast<double>(s.mla_latent);
    const double dtype = static_cast<double>(s.dtype_bytes);
    const double flops = 2.0 * heads * (c + 1.0) * (key + value);
    const double bytes = (c + 1.0) * key * static_cast<double>(s.kv_bytes) + heads * (key + value) * dtype;
    return {batch * flops, batch * bytes};
  }
  const OperatorWork one = PrefillAttentionWork(s, 1.0, c);
  return {batch * one.flops, batch * one.bytes};
}
// `tokens` rows (for kSampling: emitting sequences).
OperatorWork ElementwiseWork(const ShardShapes& shapes, ElementwiseId id, double tokens);
// Bytes one GPU contributes to a layer's all-reduce of the hidden state.
double AllReduceBytes(const ShardShapes& shapes, double tokens);
// Bytes one GPU moves in one MoE layer of a data-parallel group whose ranks
// each run `rank_tokens` rows (padded to the group's largest, as vLLM pads
// them): the dispatch all-gathers every rank's hidden states and the
// combine reduce-scatters the outputs back (vLLM's allgather_reducescatter
// all2all backend), each (D - 1) x rank_tokens x hidden x dtype bytes.
// 0 when data_parallel is 1.
double MoeDispatchCombineBytes(const ShardShapes& shapes, double rank_tokens);

// Routed experts one GPU's fused MoE kernel runs over `tokens` tokens; the
// kernel reads only their weights. Uniform routing (each token picks top-k
// of the model's E experts at random): the expected number of the GPU's
// E_gpu experts that receive a token, E_gpu (1 - (1 - k/E)^tokens).
// Balanced: min(E_gpu, tokens x k x E_gpu / E), every touched expert full.
// Power-law: counted as uniform (MoeRouting::kPowerLaw: only the measured
// power-law tables carry the skew).
double ExpectedActiveExperts(const ShardShapes& shapes, double tokens);
// The fused MoE kernel of one layer on one GPU (vLLM's fused_moe: gate_up
// GEMM, SiLU-and-mul, down GEMM over the tokens routed to its experts, the
// top-k weighted sum). FLOPs: tokens x k x 3 x 2 x hidden x expert_ffn
// (spread over the EP group: / expert_parallel); bytes: the active experts'
// weights plus the routed activations in and out.
// With expert parallelism over the TP group (no data parallelism) every GPU
// holds every token, runs its own experts and the layer's all-reduce sums
// the partial outputs, as vLLM does: no all-to-all.
OperatorWork MoeExpertsWork(const ShardShapes& shapes, double tokens);

}  // namespace efimsim
