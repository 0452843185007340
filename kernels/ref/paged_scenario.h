#pragma once
// Random varlen batches over a paged KV cache, shared by the CPU tests and
// the GPU checks. Physical blocks are handed out in a shuffled order (pages
// not in order), a few spare blocks hold random values nobody may read, and
// unused block-table entries are -1 so that any read past a sequence's
// length is caught (the reference throws; the GPU reads garbage and fails
// the comparison).

#include <cstdint>
#include <vector>

#include "numerics.h"
#include "reference.h"

namespace efimsim::kernels {

struct SeqShape {
  int new_tokens = 0;     // query tokens of this step
  int cached_tokens = 0;  // tokens already in the cache before the step
};

struct PagedScenario {
  int q_heads = 0;
  int kv_heads = 0;
  int head_dim = 0;
  int block_tokens = 16;
  int num_blocks = 0;
  int max_blocks_per_seq = 0;
  std::vector<SeqShape> seqs;
  std::vector<bf16> q;                    // [total_new_tokens, q_heads, head_dim]
  std::vector<bf16> k_cache;              // [num_blocks, block_tokens, kv_heads, head_dim]
  std::vector<bf16> v_cache;              // [num_blocks, block_tokens, kv_heads, head_dim]
  std::vector<std::int32_t> block_table;  // [num_seqs, max_blocks_per_seq], -1 where unused
  std::vector<std::int32_t> cu_new_tokens;  // [num_seqs + 1]
  std::vector<std::int32_t> kv_lens;        // [num_seqs], cached + new

  int num_seqs() const { return static_cast<int>(seqs.size()); }
  int total_new_tokens() const { return cu_new_tokens.back(); }
  int max_new_tokens() const;
  int max_kv_len() const;
  float default_scale() const;
  PagedKv kv() const;
  PrefillRefArgs prefill_args() const;
  // Valid only when every sequence has exactly one new token.
  DecodeRefArgs decode_args() const;
};

// Values are uniform in [-1, 1) (q, k, v); `spare_blocks` extra blocks are
// allocated and never referenced.
PagedScenario make_paged_scenario(const std::vector<SeqShape>& seqs, int q_heads, int kv_heads,
                                  int head_dim, Rng& rng, int spare_blocks = 3);

}  // namespace efimsim::kernels
