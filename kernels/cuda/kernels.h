#pragma once
// Host-side interface of the CUDA kernels (bf16 in, fp32 accumulate, bf16
// out). Every launcher takes a parameter struct whose pointers carry their
// shape, all row-major, and returns an error code: cudaErrorInvalidValue for
// arguments it does not support, otherwise the launch status
// (cudaGetLastError() after the launch). Launchers never synchronize and
// never allocate device memory; callers own it (see device_buffer.h). Grid,
// block and shared memory of every launch come from the host functions of
// launch_config.h, which a CPU test checks against the device limits of
// sm_80 and sm_90 for every catalogued model.
//
// The paged KV cache is vLLM's flash layout, K and V each
//   [num_blocks, block_tokens, kv_heads, head_dim],
// token t of sequence s in block block_table[s * max_blocks_per_seq + t / 16],
// row t % 16. Query head h reads KV head h / (q_heads / kv_heads). What each
// kernel computes is defined by its CPU reference in ref/reference.h.

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace efimsim::kernels::cuda {

using bf16_t = __nv_bfloat16;

inline constexpr int kBlockTokens = 16;  // page size the attention kernels support

// Why the calling thread's last launcher call returned cudaErrorInvalidValue
// (the plan's message, e.g. "decode_attention: head_dim must be 64 or 128");
// empty when it did not. set_launch_error records it and returns
// cudaErrorInvalidValue (used by the launchers).
const std::string& last_launch_error();
cudaError_t set_launch_error(const std::string& why);

// ---- GEMM: C = A * B^T ----------------------------------------------------
struct GemmParams {
  int m = 0;  // tokens
  int n = 0;  // output features
  int k = 0;  // input features
  const bf16_t* a = nullptr;  // [m, k]  activations
  const bf16_t* b = nullptr;  // [n, k]  weight, nn.Linear layout (out, in)
  bf16_t* c = nullptr;        // [m, n]
};

// ---- attention over the paged KV cache -------------------------------------
struct PrefillAttentionParams {
  const bf16_t* q = nullptr;                // [total_new_tokens, q_heads, head_dim]
  bf16_t* out = nullptr;                    // [total_new_tokens, q_heads, head_dim]
  const bf16_t* k_cache = nullptr;          // [num_blocks, block_tokens, kv_heads, head_dim]
  const bf16_t* v_cache = nullptr;          // [num_blocks, block_tokens, kv_heads, head_dim]
  const std::int32_t* block_table = nullptr;  // [num_seqs, max_blocks_per_seq]
  const std::int32_t* cu_new_tokens = nullptr;  // [num_seqs + 1], exclusive prefix sum of new tokens
  const std::int32_t* kv_lens = nullptr;    // [num_seqs], cached + new (new K/V already written)
  int num_seqs = 0;
  int max_new_tokens = 0;  // max over sequences (host-side, sizes the grid)
  int q_heads = 0;
  int kv_heads = 0;
  int head_dim = 0;        // 64 or 128
  int block_tokens = kBlockTokens;
  int max_blocks_per_seq = 0;
  float scale = 0.0f;      // softmax scale, usually 1/sqrt(head_dim)
};

// FlashAttention-2 style: one CTA per (64-query tile, q head, sequence),
// online softmax, lower-right causal alignment (new token i of a sequence
// with C cached tokens sees keys 0 .. C + i).
cudaError_t prefill_attention(const PrefillAttentionParams& p, cudaStream_t stream);

struct DecodeAttentionParams {
  const bf16_t* q = nullptr;                // [num_seqs, q_heads, head_dim]
  bf16_t* out = nullptr;                    // [num_seqs, q_heads, head_dim]
  const bf16_t* k_cache = nullptr;          // [num_blocks, block_tokens, kv_heads, head_dim]
  const bf16_t* v_cache = nullptr;          // [num_blocks, block_tokens, kv_heads, head_dim]
  const std::int32_t* block_table = nullptr;  // [num_seqs, max_blocks_per_seq]
  const std::int32_t* context_lens = nullptr;  // [num_seqs], keys per query, its own included
  int num_seqs = 0;
  int max_context_len = 0;  // max over sequences (host-side, sizes the split)
  int q_heads = 0;
  int kv_heads = 0;         // q_heads / kv_heads: 1 .. 64 (launch::decode::kMaxGroup)
  int head_dim = 0;         // 64 or 128
  int block_tokens = kBlockTokens;
  int max_blocks_per_seq = 0;
  float scale = 0.0f;
  int num_splits = 1;       // split-KV factor; > 1 needs the workspace
  float* workspace = nullptr;  // decode_attention_workspace_bytes(...) bytes, or null when num_splits == 1
  std::size_t workspace_bytes = 0;
};

// A split factor that gives about two CTAs per SM, never splitting below
// 256 keys per split.
int decode_attention_default_splits(int num_seqs, int q_heads, int kv_heads, int max_context_len, int sm_count);
std::size_t decode_attention_workspace_bytes(int num_seqs, int q_heads, int head_dim, int num_splits);

// Split-KV flash decoding: one CTA per (split, KV head, head chunk, sequence)
// computes up to 8 q heads of that KV head's group (the whole group when it
// has at most 8), so K/V are read from memory once per chunk;
// with num_splits > 1 a combine kernel merges the partial results by their
// log-sum-exp.
cudaError_t decode_attention(const DecodeAttentionParams& p, cudaStream_t stream);

// ---- per-token operators -------------------------------------------------------
struct RmsNormParams {
  const bf16_t* x = nullptr;       // [tokens, hidden]
  const bf16_t* weight = nullptr;  // [hidden]
  bf16_t* out = nullptr;           // [tokens, hidden]
  int tokens = 0;
  int hidden = 0;                  // multiple of 8
  float eps = 1e-5f;
};
cudaError_t rmsnorm(const RmsNormParams& p, cudaStream_t stream);

struct RopeParams {
  bf16_t* q = nullptr;                    // [tokens, q_heads, head_dim], rotated in place
  bf16_t* k = nullptr;                    // [tokens, kv_heads, head_dim], rotated in place
  const std::int32_t* positions = nullptr;  // [tokens]
  int tokens = 0;
  int q_heads = 0;
  int kv_heads = 0;
  int head_dim = 0;                       // even
  float theta = 500000.0f;
};
// Llama rotate-half rotary embedding of q and k in one launch.
cudaError_t rope(const RopeParams& p, cudaStream_t stream);

struct SiluAndMulParams {
  const bf16_t* x = nullptr;  // [tokens, 2 * ffn]: gate, then up
  bf16_t* out = nullptr;      // [tokens, ffn]
  int tokens = 0;
  int ffn = 0;                // multiple of 8
};
cudaError_t silu_and_mul(const SiluAndMulParams& p, cudaStream_t stream);

struct GeluParams {
  const bf16_t* x = nullptr;  // [tokens, ffn]: the up projection (plain MLP)
  bf16_t* out = nullptr;      // [tokens, ffn]
  int tokens = 0;
  int ffn = 0;                // multiple of 8
};
// gelu_pytorch_tanh (StarCoder2's MLP activation):
// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), fp32 math.
cudaError_t gelu_tanh(const GeluParams& p, cudaStream_t stream);

struct ResidualAddParams {
  const bf16_t* a = nullptr;  // [n]
  const bf16_t* b = nullptr;  // [n]
  bf16_t* out = nullptr;      // [n]; may alias a or b
  std::size_t n = 0;
};
cudaError_t residual_add(const ResidualAddParams& p, cudaStream_t stream);

struct KvCacheWriteParams {
  const bf16_t* k = nullptr;                  // [tokens, kv_heads, head_dim]
  const bf16_t* v = nullptr;                  // [tokens, kv_heads, head_dim]
  bf16_t* k_cache = nullptr;                  // [num_blocks, block_tokens, kv_heads, head_dim]
  bf16_t* v_cache = nullptr;                  // [num_blocks, block_tokens, kv_heads, head_dim]
  const std::int64_t* slot_mapping = nullptr;  // [tokens], block * block_tokens + row; < 0 skips
  int tokens = 0;
  int kv_heads = 0;
  int head_dim = 0;                           // multiple of 8
};
cudaError_t kv_cache_write(const KvCacheWriteParams& p, cudaStream_t stream);

// ---- sampling over the vocabulary (sampling.cu) ---------------------------------
struct SamplingParams {
  const float* logits = nullptr;      // [rows, vocab], fp32 (the lm_head output as a sampler reads it)
  const float* uniforms = nullptr;    // [rows], draws in [0, 1); only read when top_k > 1
  std::int32_t* tokens = nullptr;     // [rows], the chosen token ids
  std::int32_t* top_ids = nullptr;    // optional [rows, top_k]: the top-k ids, best first
  float* top_logits = nullptr;        // optional [rows, top_k]: their logits
  int rows = 0;                       // sequences that emit a token this step
  int vocab = 0;
  int top_k = 1;                      // 1: greedy argmax; up to launch::sampling::kMaxTopK
  float temperature = 1.0f;           // > 0; only used when top_k > 1
};
// Greedy (top_k = 1: the argmax, the lowest id among equal logits) or top-k
// sampling: the top_k logits in order (value descending, then id
// ascending; NaN never chosen), softmax of (logit - max) / temperature over
// them, and the first id whose cumulative probability exceeds the row's
// uniform draw. One CTA per row.
cudaError_t sampling(const SamplingParams& p, cudaStream_t stream);

// ---- harness utilities (fill.cu) -----------------------------------------------
// Fills x[0, n) with bf16 values uniform in [lo, hi), a hash of (seed, index):
// the same seed gives the same values. Used for inputs too large to upload.
cudaError_t fill_uniform_bf16(bf16_t* x, std::size_t n, std::uint64_t seed, float lo, float hi,
                              cudaStream_t stream);
// The same for fp32 (sampling's logits).
cudaError_t fill_uniform_f32(float* x, std::size_t n, std::uint64_t seed, float lo, float hi, cudaStream_t stream);
// Fills x[0, n) with a bf16 NaN pattern: outputs are poisoned before checks
// so that an element a kernel fails to write can never pass.
cudaError_t poison_bf16(bf16_t* x, std::size_t n, cudaStream_t stream);
// Keeps the GPU busy for about `ns` nanoseconds, so that the launches queued
// behind it start back to back (timing measures GPU time, not launch latency).
cudaError_t spin(std::uint32_t ns, cudaStream_t stream);

}  // namespace efimsim::kernels::cuda
