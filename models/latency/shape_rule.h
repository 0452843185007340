#pragma once
// The shape rule: a shape-keyed profile (models/formats/shape_profile.h) priced for
// one model's own per-GPU shapes under tensor parallelism, as the
// model-keyed KernelProfile the profile latency model reads.
//
//   GEMM (n, k) measured: its table as measured.
//   GEMM (n, k) not measured: utilisation transfer. At each m, a measured
//     table's utilisation is SOL / time, with SOL = max(2 m n k / F,
//     2 (m n + m k + n k) / B) at the source's datasheet ceilings F, B. The
//     target's time is its own SOL over the inverse-distance-weighted mean
//     utilisation of the (up to) 4 nearest measured (n', k') within 2 octaves
//     in both n and k (distance = Euclidean in log2 n, log2 k; weight 1/d^2);
//     with none that near, the nearest one alone (said in the report).
//   Attention heads (q, kv, head dim) measured: as measured. Not measured:
//     the same utilisation transfer from the (up to) 4 nearest measured head
//     counts of the same head dim (distance in log2 q, log2 kv), with
//     operator_work.h's attention FLOPs and bytes as the work.
//   Prefill attention over a cached prefix (the source measured none): a
//     chunk of n new tokens over c cached costs T(s) (s^2 - c^2) / s^2 with
//     s = n + c and T the measured no-cache time of one s-token sequence
//     (AIConfigurator's own rule), and never less than one query's decode
//     attention over c cached tokens (reading the cached K and V).
//   Elementwise operators: the source's analytic rule (ElementwiseRule) over
//     the bytes of the engine's fused kernels (fused add+RMSNorm, in-place
//     rotary embedding, SiLU-and-mul); the residual add is inside the fused
//     RMSNorm and the KV-cache write inside the attention timing; sampling
//     is 8 small kernels plus two passes over fp32 logits. All flagged
//     modelled.
//   All-reduce: the engine's measured all-reduce of the TP group over the
//     hidden state's bytes.
//   FP8 weights (ShardShapes::quantization fp8 / fp8_block): the quantized
//     GEMMs (GemmIsQuantized: all but lm_head and the MoE router) from the
//     source's GEMM tables of that dtype, measured or transferred within
//     them, with the speed of light at the FP8 ceiling and 1-byte elements
//     (as AIConfigurator's clamp). A source without that dtype's tables: the
//     bf16 tables, said in the notes and flagged transferred.
//   FP8 KV cache (ShardShapes::kv_bytes 1): attention from the FP8-KV
//     tables (bf16 compute over an e4m3 cache), transferred with the
//     cache's 1-byte K and V; without a table of the head dim there, the
//     bf16-KV tables, said and flagged.
//   MLA attention (ShardShapes::IsMla()): the profile's MLA tables
//     (ShapeProfile::mla) where one has the model's latent geometry and
//     its heads on this GPU, of the KV cache's dtype (else, flagged, the
//     bf16-KV one); otherwise carried from the GQA tables as below.
//   MoE experts (ShardShapes::moe_layers > 0): the table keyed (weights'
//     dtype, hidden, full expert inter, top-k, experts, tp, ep, "balanced")
//     with tp = ShardShapes::MoeTensorParallel() (1 under expert
//     parallelism, else the MoE group's GPUs) and ep = expert_parallel;
//     measured as measured, otherwise utilisation transfer
//     from the (up to) 4 nearest measured shapes of the same dtype, tp, ep
//     and routing (distance in log2 hidden, inter, experts and the routed
//     share top-k / experts; weight 1/d^2; no octave window), utilisation =
//     SOL(MoeExpertsWork) / time at the dtype's ceiling, each neighbour's
//     read at equal tokens per expert: at t x share(target) / share(site)
//     tokens, log-log between its measured counts, clamped to them (the
//     fused kernel's GEMMs run over the tokens each expert gets). No such table: skewed routing (power_law_1.2),
//     then the bf16 tables, each said and flagged; none at all: no table
//     (the profile latency model prices the experts by the roofline).

#include <cstdint>
#include <string>
#include <vector>

#include "models/formats/kernel_profile.h"
#include "models/formats/model_spec.h"
#include "models/latency/operator_work.h"
#include "models/formats/shape_profile.h"

namespace efimsim {

// How each operator of the resolved profile was obtained, for outputs.
struct ShapeResolution {
  int64_t gemm_measured = 0;
  int64_t gemm_transferred = 0;
  bool prefill_heads_measured = false;
  bool decode_heads_measured = false;
  // One phrase each, empty for a dense model with bf16 weights and KV cache
  // (whose Summary() is as it always was).
  std::string quantized_gemms;  // which tables the FP8 GEMMs came from
  std::string kv_cache;         // which tables attention over an FP8 KV cache came from
  std::string moe;              // the MoE table used, measured or transferred, or none
  std::string mla;              // MLA attention from the profile's own MLA tables, or empty
  std::vector<std::string> notes;  // one line per transferred table
  // One phrase: "GEMMs 4 of 5 at measured (n, k); heads measured".
  std::string Summary() const;
};

// The model's KernelProfile at `tensor_parallel` (its tensor_parallel field
// set so, shapes per GPU). Throws UsageError when TP does not shard the model
// (ShardModel), InputError (naming the shape profile) when the profile has
// no table of the model's head dim. `moe_backend` (a MoeBackendNames() name;
// empty: any) prices a MoE model's experts from that backend's tables only
// (TransferMoe), and is refused (UsageError) when the profile has none.
KernelProfile ResolveShapeProfile(const ShapeProfile& profile, const ModelSpec& model,
                                  int64_t tensor_parallel, ShapeResolution* resolution = nullptr,
                                  const std::string& moe_backend = "");

// ---- Pieces of the rule, for the importer's leave-one-out study and tests.

// Shapes holding only the given attention heads (bf16 activations, KV
// elements of `kv_bytes`): what the attention work formulas of
// models/latency/operator_work.h read.
ShardShapes HeadShapes(const ShapeHeads& heads, int64_t kv_bytes = 2);
// Shapes holding only one GPU's share of the MoE layer `key` describes:
// what MoeExpertsWork reads.
ShardShapes MoeShapes(const ShapeMoeKey& key);
bool IsFp8Dtype(const std::string& dtype);  // "fp8" or "fp8_block"
// Speed of light of one GEMM of `dtype`, seconds, as AIConfigurator clamps
// its tables: bf16 max(2 m n k / bf16 FLOPs, 2 (m n + m k + n k) / B); fp8
// dtypes at the FP8 ceiling with 1-byte elements (bf16 figures when the
// ceilings state no FP8 rate).
double GemmSolSeconds(const ShapeCeilings& ceilings, const std::string& dtype, double m, double n, double k);
// Speed of light of MoeExpertsWork(MoeShapes(key), tokens), seconds, at the
// dtype's compute ceiling.
double MoeSolSeconds(const ShapeCeilings& ceilings, const ShapeMoeKey& key, double tokens);
std::string MoeKeyText(const ShapeMoeKey& key);  // "bfloat16 2048x768 top-8 of 128 tp 1 ep 1 balanced"
// Speed of light of `work` at `ceilings`, seconds: max(FLOPs / compute,
// bytes / bandwidth).
double SolSeconds(const ShapeCeilings& ceilings, const OperatorWork& work);

// GEMM (n, k) by the transfer rule from `tables` of `dtype` (which need
// not hold (n, k)); `note` (if given) says which sites were used, and stays
// empty for a measured shape. Empty result: no tables.
std::vector<ProfilePoint> TransferGemm(const std::vector<ShapeGemmTable>& tables,
                                       const ShapeCeilings& ceilings, int64_t n, int64_t k,
                                       std::string* note = nullptr, const std::string& dtype = "bfloat16");
// Attention heads by the transfer rule, over a KV cache of `kv_bytes` per
// element (the tables' own: 2 for the bf16-KV tables, 1 for the FP8-KV ones).
// `target` (optional): the shapes the result prices when they are not
// `heads`' plain attention (MLA); every site is then rescaled to their
// speed of light, even one measured at `heads`.
std::vector<ProfilePoint> TransferPrefill(const std::vector<ShapePrefillTable>& tables,
                                          const ShapeCeilings& ceilings, const ShapeHeads& heads,
                                          std::string* note = nullptr, int64_t kv_bytes = 2,
                                          const ShardShapes* target = nullptr);
std::vector<AttentionPoint> TransferDecode(const std::vector<ShapeDecodeTable>& tables,
                                           const ShapeCeilings& ceilings, const ShapeHeads& heads,
                                           std::string* note = nullptr, int64_t kv_bytes = 2,
                                           const ShardShapes* target = nullptr);
// The MoE table `key` by the transfer rule from `tables` of the same dtype,
// tp, ep and distribution (empty: none); `kernel` gets the nearest site's
// kernel. A non-empty `backend` (a MoeBackendNames() name) keeps only the
// tables whose kernel is of that backend, so a shape measured with another
// backend is transferred, not taken; empty: any backend.
std::vector<ProfilePoint> TransferMoe(const std::vector<ShapeMoeTable>& tables, const ShapeCeilings& ceilings,
                                      const ShapeMoeKey& key, std::string* note = nullptr,
                                      std::string* kernel = nullptr, const std::string& backend = "");

}  // namespace efimsim
