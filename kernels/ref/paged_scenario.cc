#include "paged_scenario.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace efimsim::kernels {

int PagedScenario::max_new_tokens() const {
  int m = 0;
  for (const auto& s : seqs) m = std::max(m, s.new_tokens);
  return m;
}

int PagedScenario::max_kv_len() const {
  int m = 0;
  for (int len : kv_lens) m = std::max(m, len);
  return m;
}

float PagedScenario::default_scale() const { return 1.0f / std::sqrt(static_cast<float>(head_dim)); }

PagedKv PagedScenario::kv() const {
  PagedKv kv;
  kv.k_cache = k_cache;
  kv.v_cache = v_cache;
  kv.block_table = block_table;
  kv.max_blocks_per_seq = max_blocks_per_seq;
  kv.kv_heads = kv_heads;
  kv.head_dim = head_dim;
  kv.block_tokens = block_tokens;
  return kv;
}

PrefillRefArgs PagedScenario::prefill_args() const {
  PrefillRefArgs a;
  a.num_seqs = num_seqs();
  a.q_heads = q_heads;
  a.scale = default_scale();
  a.q = q;
  a.cu_new_tokens = cu_new_tokens;
  a.kv_lens = kv_lens;
  a.kv = kv();
  return a;
}

DecodeRefArgs PagedScenario::decode_args() const {
  for (const auto& s : seqs) {
    if (s.new_tokens != 1) throw std::logic_error("decode_args: every sequence needs one new token");
  }
  DecodeRefArgs a;
  a.num_seqs = num_seqs();
  a.q_heads = q_heads;
  a.scale = default_scale();
  a.q = q;
  a.context_lens = kv_lens;
  a.kv = kv();
  return a;
}

PagedScenario make_paged_scenario(const std::vector<SeqShape>& seqs, int q_heads, int kv_heads,
                                  int head_dim, Rng& rng, int spare_blocks) {
  PagedScenario sc;
  sc.q_heads = q_heads;
  sc.kv_heads = kv_heads;
  sc.head_dim = head_dim;
  sc.seqs = seqs;
  sc.cu_new_tokens.push_back(0);
  int needed_blocks = 0;
  for (const auto& s : seqs) {
    if (s.new_tokens < 0 || s.cached_tokens < 0) throw std::invalid_argument("negative token count");
    const int len = s.new_tokens + s.cached_tokens;
    sc.kv_lens.push_back(len);
    sc.cu_new_tokens.push_back(sc.cu_new_tokens.back() + s.new_tokens);
    const int blocks = (len + sc.block_tokens - 1) / sc.block_tokens;
    needed_blocks += blocks;
    sc.max_blocks_per_seq = std::max(sc.max_blocks_per_seq, blocks);
  }
  sc.max_blocks_per_seq = std::max(sc.max_blocks_per_seq, 1);
  sc.num_blocks = needed_blocks + spare_blocks;
  std::vector<std::int32_t> order(static_cast<std::size_t>(sc.num_blocks));
  for (int i = 0; i < sc.num_blocks; ++i) order[i] = i;
  for (int i = sc.num_blocks - 1; i > 0; --i) std::swap(order[i], order[rng.uniform_int(0, i)]);
  sc.block_table.assign(static_cast<std::size_t>(sc.num_seqs()) * sc.max_blocks_per_seq, -1);
  int next = 0;
  for (int s = 0; s < sc.num_seqs(); ++s) {
    const int blocks = (sc.kv_lens[s] + sc.block_tokens - 1) / sc.block_tokens;
    for (int b = 0; b < blocks; ++b) sc.block_table[static_cast<std::size_t>(s) * sc.max_blocks_per_seq + b] = order[next++];
  }
  const std::size_t cache_elems =
      static_cast<std::size_t>(sc.num_blocks) * sc.block_tokens * kv_heads * head_dim;
  sc.k_cache.resize(cache_elems);
  sc.v_cache.resize(cache_elems);
  sc.q.resize(static_cast<std::size_t>(sc.total_new_tokens()) * q_heads * head_dim);
  fill_uniform(sc.q, rng, -1.0f, 1.0f);
  fill_uniform(sc.k_cache, rng, -1.0f, 1.0f);
  fill_uniform(sc.v_cache, rng, -1.0f, 1.0f);
  return sc;
}

}  // namespace efimsim::kernels
