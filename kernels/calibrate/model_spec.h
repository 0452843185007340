#pragma once
// The fields of a model spec (models/specs/<model>.json) that decide kernel
// shapes, and the shapes one model's step needs (models/PROFILE.md): GEMM
// weight shapes, per-token operator widths, and the sweep grids.

#include <cstdint>
#include <string>
#include <vector>

#include "json.h"

namespace efimsim::kernels {

struct ModelSpec {
  std::string name;
  int layers = 0;
  int hidden_size = 0;
  int q_heads = 0;
  int kv_heads = 0;
  int head_dim = 0;
  int ffn_size = 0;
  int vocab_size = 0;
  bool gated_mlp = true;         // "mlp": "gated" | "plain"
  std::string activation;        // "activation" (silu, gelu_pytorch_tanh, ...), informational: a gated MLP is
                                 // timed with silu_and_mul, a plain one with gelu (gelu_pytorch_tanh)
  int max_context_tokens = 0;
  float rope_theta = 500000.0f;  // not in the spec; only the values, not the speed, depend on it
  bool mla = false;              // the spec has "mla" (multi-head latent attention): no kernel here runs it
};

// Reads a spec document. Throws json::Error naming the bad field. Keys the
// kernels do not need (tokens, source, ...) are the simulator's to validate
// and are ignored here.
ModelSpec model_spec_from_json(const json::Value& doc);
ModelSpec read_model_spec(const std::string& path);

// C[M, N] = A[M, K] * W[K, N]; names and shapes from models/PROFILE.md.
struct GemmShape {
  std::string name;
  int n = 0;
  int k = 0;
};
std::vector<GemmShape> gemm_shapes(const ModelSpec& m);

// Per-token operators, with the number of bf16 elements per token each one
// reads (and writes) for one layer. The activation is silu_and_mul for a
// gated MLP and gelu (gelu_pytorch_tanh) for a plain one, the names the
// simulator looks up (models/PROFILE.md).
struct ElementwiseOp {
  std::string name;  // rmsnorm, rope, silu_and_mul | gelu, residual_add, kv_cache_write
  std::int64_t bytes_per_token = 0;  // HBM bytes moved per token (read + write)
};
std::vector<ElementwiseOp> elementwise_ops(const ModelSpec& m);

// Sweep grids. Token counts 1..16384 (powers of two); prefill (new tokens,
// context) and decode (batch, context) pairs limited by the model's context
// window and by `max_kv_tokens` in total (device memory).
struct PrefillPoint {
  int new_tokens = 0;
  int context_tokens = 0;  // cached before the step
};
struct DecodePoint {
  int batch = 0;
  int context_tokens = 0;  // keys each query attends to, its own included
};
std::vector<int> token_grid(bool quick);
// Rows of the sampling table (sequences that emit a token in one step):
// 1, 2, 4, ..., 4096 (quick: 1, 64, 4096).
std::vector<int> sampling_grid(bool quick);
// HBM bytes one sampling launch reads and writes: fp32 logits of every row
// (read once), the token ids and uniform draws.
double sampling_bytes(const ModelSpec& m, int rows);
std::vector<PrefillPoint> prefill_grid(const ModelSpec& m, bool quick);
std::vector<DecodePoint> decode_grid(const ModelSpec& m, std::int64_t max_kv_tokens, bool quick);

// FLOPs of prefill attention for one sequence and one layer: QK^T and PV over
// the visible (lower-right causal) keys only.
double prefill_attention_flops(const ModelSpec& m, int new_tokens, int context_tokens);
// Bytes decode attention must read for one layer: K and V of every context
// token, plus q and the output.
double decode_attention_bytes(const ModelSpec& m, int batch, int context_tokens);

}  // namespace efimsim::kernels
