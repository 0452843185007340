#pragma once
// Plain C++ references for every kernel in kernels/cuda. They define what the
// GPU kernels compute: inputs are bf16 (as the GPU sees them), arithmetic is
// fp32/fp64, outputs are unrounded float. Layouts are the GPU layouts, all
// row-major, written beside every span as [dim, dim, ...].
//
// Paged KV cache (vLLM's flash layout): K and V each
//   [num_blocks, block_tokens, kv_heads, head_dim]
// and a sequence's token t lives in physical block
//   block_table[seq * max_blocks_per_seq + t / block_tokens], row t % block_tokens.
// Grouped-query attention: query head h reads KV head h / (q_heads / kv_heads).

#include <cstdint>
#include <span>

#include "bf16.h"

namespace efimsim::kernels {

// C[m, n] = sum_k A[m, k] * B[n, k], i.e. C = A * B^T with B in nn.Linear
// layout (a weight [out_features, in_features]).
void gemm_ref(int m, int n, int k,
              std::span<const bf16> a,  // [m, k]
              std::span<const bf16> b,  // [n, k]
              std::span<float> c);      // [m, n]

struct PagedKv {
  std::span<const bf16> k_cache;        // [num_blocks, block_tokens, kv_heads, head_dim]
  std::span<const bf16> v_cache;        // [num_blocks, block_tokens, kv_heads, head_dim]
  std::span<const std::int32_t> block_table;  // [num_seqs, max_blocks_per_seq]
  int max_blocks_per_seq = 0;
  int kv_heads = 0;
  int head_dim = 0;
  int block_tokens = 16;
};

// Varlen prefill over a paged cache. Sequence s has n_s = cu_new_tokens[s+1] -
// cu_new_tokens[s] new tokens whose K/V are already in the cache, after
// c_s = kv_lens[s] - n_s cached ones. Lower-right causal alignment: new token
// i (0-based) attends to keys 0 .. c_s + i.
struct PrefillRefArgs {
  int num_seqs = 0;
  int q_heads = 0;
  float scale = 0.0f;                         // usually 1/sqrt(head_dim)
  std::span<const bf16> q;                    // [total_new_tokens, q_heads, head_dim]
  std::span<const std::int32_t> cu_new_tokens;  // [num_seqs + 1]
  std::span<const std::int32_t> kv_lens;      // [num_seqs], cached + new
  PagedKv kv;
};
void prefill_attention_ref(const PrefillRefArgs& args,
                           std::span<float> out);  // [total_new_tokens, q_heads, head_dim]

// Decode: one query token per sequence attending to all context_lens[s] keys
// (the current token's K/V included).
struct DecodeRefArgs {
  int num_seqs = 0;
  int q_heads = 0;
  float scale = 0.0f;
  std::span<const bf16> q;                     // [num_seqs, q_heads, head_dim]
  std::span<const std::int32_t> context_lens;  // [num_seqs]
  PagedKv kv;
};
void decode_attention_ref(const DecodeRefArgs& args,
                          std::span<float> out);  // [num_seqs, q_heads, head_dim]

// Split-KV decode in two steps, as the GPU does it. Split j of a sequence
// covers keys [j * keys_per_split, min((j + 1) * keys_per_split, context)).
// Each split writes its normalised partial output and the natural-log
// sum-exp of its scaled scores (-infinity and zeros for an empty split).
void decode_attention_split_ref(const DecodeRefArgs& args, int num_splits, int keys_per_split,
                                std::span<float> partial_out,   // [num_seqs, num_splits, q_heads, head_dim]
                                std::span<float> partial_lse);  // [num_seqs, num_splits, q_heads]
void decode_combine_ref(int num_seqs, int num_splits, int q_heads, int head_dim,
                        std::span<const float> partial_out,  // [num_seqs, num_splits, q_heads, head_dim]
                        std::span<const float> partial_lse,  // [num_seqs, num_splits, q_heads]
                        std::span<float> out);               // [num_seqs, q_heads, head_dim]

// out = x / sqrt(mean(x^2) + eps) * weight, per token.
void rmsnorm_ref(int tokens, int hidden, float eps,
                 std::span<const bf16> x,       // [tokens, hidden]
                 std::span<const bf16> weight,  // [hidden]
                 std::span<float> out);         // [tokens, hidden]

// Llama (GPT-NeoX, rotate-half) rotary embedding, no frequency scaling:
// for i < head_dim/2, angle = pos * theta^(-2i/head_dim),
//   out[i]       = x[i] cos - x[i + D/2] sin
//   out[i + D/2] = x[i + D/2] cos + x[i] sin.
// Angles and inverse frequencies are fp32, as on the GPU.
void rope_ref(int tokens, int heads, int head_dim, float theta,
              std::span<const std::int32_t> positions,  // [tokens]
              std::span<const bf16> x,                  // [tokens, heads, head_dim]
              std::span<float> out);                    // [tokens, heads, head_dim]

// out = silu(gate) * up, with x = [gate | up] per token (vLLM's layout).
void silu_and_mul_ref(int tokens, int ffn,
                      std::span<const bf16> x,  // [tokens, 2 * ffn]
                      std::span<float> out);    // [tokens, ffn]

// gelu_pytorch_tanh (StarCoder2's plain-MLP activation), elementwise:
// out = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
void gelu_tanh_ref(std::span<const bf16> x,  // [tokens, ffn]
                   std::span<float> out);    // [tokens, ffn]

// Greedy / top-k sampling of one token per row of fp32 logits. Order: value
// descending, then id ascending; NaN is never chosen. top_ids gets the row's
// top_k ids in that order (-1 past the row's non-NaN entries). With
// top_k == 1 the token is top_ids[0] (the argmax); otherwise the weights
// w_j = exp((v_j - v_0) / temperature) over the top-k, computed in float in
// order j = 0, 1, ... as the GPU does, and the token is the first id whose
// running sum exceeds uniforms[row] * sum (the last one if none does).
void sampling_ref(int rows, int vocab, int top_k, float temperature,
                  std::span<const float> logits,       // [rows, vocab]
                  std::span<const float> uniforms,     // [rows] (unused when top_k == 1)
                  std::span<std::int32_t> tokens,      // [rows]
                  std::span<std::int32_t> top_ids);    // [rows, top_k]

// out = a + b elementwise.
void residual_add_ref(std::span<const bf16> a,  // [n]
                      std::span<const bf16> b,  // [n]
                      std::span<float> out);    // [n]

// Scatter new K/V rows into the paged cache: token t goes to slot
// slot_mapping[t] = block * block_tokens + row; a negative slot is skipped
// (padding). Rows not named by any slot keep their value.
void kv_cache_write_ref(int tokens, int kv_heads, int head_dim, int block_tokens,
                        std::span<const bf16> k,                    // [tokens, kv_heads, head_dim]
                        std::span<const bf16> v,                    // [tokens, kv_heads, head_dim]
                        std::span<const std::int64_t> slot_mapping,  // [tokens]
                        std::span<bf16> k_cache,   // [num_blocks, block_tokens, kv_heads, head_dim]
                        std::span<bf16> v_cache);  // [num_blocks, block_tokens, kv_heads, head_dim]

}  // namespace efimsim::kernels
