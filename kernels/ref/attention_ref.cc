#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "parallel.h"
#include "reference.h"

namespace efimsim::kernels {
namespace {

void require(bool ok, const char* what) {
  if (!ok) throw std::invalid_argument(std::string("attention reference: ") + what);
}

// Resolves (sequence, token position) to the first element of that token's
// row for KV head `head` in the paged cache, checking every index.
class PagedReader {
 public:
  explicit PagedReader(const PagedKv& kv) : kv_(kv) {
    require(kv.head_dim > 0 && kv.kv_heads > 0 && kv.block_tokens > 0, "bad cache shape");
    row_elems_ = static_cast<std::size_t>(kv.kv_heads) * kv.head_dim;
    const std::size_t block_elems = row_elems_ * kv.block_tokens;
    require(kv.k_cache.size() == kv.v_cache.size(), "K and V caches differ in size");
    require(kv.k_cache.size() % block_elems == 0, "cache size is not whole blocks");
    num_blocks_ = static_cast<std::int64_t>(kv.k_cache.size() / block_elems);
  }

  std::size_t offset(int seq, int pos, int head) const {
    require(pos >= 0 && pos / kv_.block_tokens < kv_.max_blocks_per_seq, "position beyond block table");
    const std::size_t entry = static_cast<std::size_t>(seq) * kv_.max_blocks_per_seq + pos / kv_.block_tokens;
    require(entry < kv_.block_table.size(), "block table too small");
    const std::int64_t block = kv_.block_table[entry];
    require(block >= 0 && block < num_blocks_, "block id out of range");
    return (static_cast<std::size_t>(block) * kv_.block_tokens + pos % kv_.block_tokens) * row_elems_ +
           static_cast<std::size_t>(head) * kv_.head_dim;
  }
  const bf16* k(int seq, int pos, int head) const { return kv_.k_cache.data() + offset(seq, pos, head); }
  const bf16* v(int seq, int pos, int head) const { return kv_.v_cache.data() + offset(seq, pos, head); }

 private:
  const PagedKv& kv_;
  std::size_t row_elems_ = 0;
  std::int64_t num_blocks_ = 0;
};

// Softmax attention of one query row over keys [begin, end) of one sequence.
// Writes the normalised output and returns the natural-log sum-exp of the
// scaled scores (-infinity, and zeros, when the range is empty).
double attend(const PagedReader& reader, int seq, int kv_head, int head_dim, float scale,
              const bf16* q, int begin, int end, float* out) {
  std::vector<double> qf(head_dim);
  for (int d = 0; d < head_dim; ++d) qf[d] = bf16_to_float(q[d]);
  if (end <= begin) {
    for (int d = 0; d < head_dim; ++d) out[d] = 0.0f;
    return -std::numeric_limits<double>::infinity();
  }
  std::vector<double> score(static_cast<std::size_t>(end - begin));
  double max_score = -std::numeric_limits<double>::infinity();
  for (int j = begin; j < end; ++j) {
    const bf16* kr = reader.k(seq, j, kv_head);
    double dot = 0.0;
    for (int d = 0; d < head_dim; ++d) dot += qf[d] * bf16_to_float(kr[d]);
    score[j - begin] = dot * scale;
    max_score = std::max(max_score, score[j - begin]);
  }
  std::vector<double> acc(head_dim, 0.0);
  double sum = 0.0;
  for (int j = begin; j < end; ++j) {
    const double p = std::exp(score[j - begin] - max_score);
    sum += p;
    const bf16* vr = reader.v(seq, j, kv_head);
    for (int d = 0; d < head_dim; ++d) acc[d] += p * bf16_to_float(vr[d]);
  }
  for (int d = 0; d < head_dim; ++d) out[d] = static_cast<float>(acc[d] / sum);
  return max_score + std::log(sum);
}

int group_size(int q_heads, int kv_heads) {
  require(q_heads > 0 && kv_heads > 0 && q_heads % kv_heads == 0,
          "q_heads must be a positive multiple of kv_heads");
  return q_heads / kv_heads;
}

}  // namespace

void prefill_attention_ref(const PrefillRefArgs& args, std::span<float> out) {
  const PagedReader reader(args.kv);
  const int group = group_size(args.q_heads, args.kv.kv_heads);
  const int hd = args.kv.head_dim;
  require(static_cast<int>(args.cu_new_tokens.size()) == args.num_seqs + 1, "cu_new_tokens size");
  require(static_cast<int>(args.kv_lens.size()) == args.num_seqs, "kv_lens size");
  const int total = args.cu_new_tokens[args.num_seqs];
  require(args.cu_new_tokens[0] == 0 && total >= 0, "cu_new_tokens must start at 0");
  const std::size_t row = static_cast<std::size_t>(args.q_heads) * hd;
  require(args.q.size() == static_cast<std::size_t>(total) * row, "q size");
  require(out.size() == static_cast<std::size_t>(total) * row, "out size");
  std::vector<int> seq_of(static_cast<std::size_t>(total));
  for (int s = 0; s < args.num_seqs; ++s) {
    const int n_new = args.cu_new_tokens[s + 1] - args.cu_new_tokens[s];
    require(n_new >= 0 && n_new <= args.kv_lens[s], "a sequence has more new tokens than keys");
    for (int t = args.cu_new_tokens[s]; t < args.cu_new_tokens[s + 1]; ++t) seq_of[t] = s;
  }
  parallel_for(static_cast<std::int64_t>(total) * args.q_heads, [&](std::int64_t idx) {
    const int t = static_cast<int>(idx / args.q_heads);
    const int h = static_cast<int>(idx % args.q_heads);
    const int s = seq_of[t];
    const int n_new = args.cu_new_tokens[s + 1] - args.cu_new_tokens[s];
    const int cached = args.kv_lens[s] - n_new;
    const int i = t - args.cu_new_tokens[s];
    const std::size_t at = static_cast<std::size_t>(t) * row + static_cast<std::size_t>(h) * hd;
    attend(reader, s, h / group, hd, args.scale, args.q.data() + at, 0, cached + i + 1, out.data() + at);
  });
}

void decode_attention_ref(const DecodeRefArgs& args, std::span<float> out) {
  const PagedReader reader(args.kv);
  const int group = group_size(args.q_heads, args.kv.kv_heads);
  const int hd = args.kv.head_dim;
  const std::size_t row = static_cast<std::size_t>(args.q_heads) * hd;
  require(static_cast<int>(args.context_lens.size()) == args.num_seqs, "context_lens size");
  require(args.q.size() == row * args.num_seqs && out.size() == row * args.num_seqs, "q/out size");
  parallel_for(static_cast<std::int64_t>(args.num_seqs) * args.q_heads, [&](std::int64_t idx) {
    const int s = static_cast<int>(idx / args.q_heads);
    const int h = static_cast<int>(idx % args.q_heads);
    const std::size_t at = static_cast<std::size_t>(s) * row + static_cast<std::size_t>(h) * hd;
    attend(reader, s, h / group, hd, args.scale, args.q.data() + at, 0, args.context_lens[s],
           out.data() + at);
  });
}

void decode_attention_split_ref(const DecodeRefArgs& args, int num_splits, int keys_per_split,
                                std::span<float> partial_out, std::span<float> partial_lse) {
  const PagedReader reader(args.kv);
  const int group = group_size(args.q_heads, args.kv.kv_heads);
  const int hd = args.kv.head_dim;
  require(num_splits > 0 && keys_per_split > 0, "splits");
  const std::size_t n_rows = static_cast<std::size_t>(args.num_seqs) * num_splits * args.q_heads;
  require(partial_out.size() == n_rows * hd && partial_lse.size() == n_rows, "partial sizes");
  parallel_for(static_cast<std::int64_t>(n_rows), [&](std::int64_t idx) {
    const int h = static_cast<int>(idx % args.q_heads);
    const int j = static_cast<int>((idx / args.q_heads) % num_splits);
    const int s = static_cast<int>(idx / (static_cast<std::int64_t>(args.q_heads) * num_splits));
    const int begin = std::min(j * keys_per_split, args.context_lens[s]);
    const int end = std::min(begin + keys_per_split, args.context_lens[s]);
    const bf16* q = args.q.data() + (static_cast<std::size_t>(s) * args.q_heads + h) * hd;
    partial_lse[idx] = static_cast<float>(
        attend(reader, s, h / group, hd, args.scale, q, begin, end, partial_out.data() + idx * hd));
  });
}

void decode_combine_ref(int num_seqs, int num_splits, int q_heads, int head_dim,
                        std::span<const float> partial_out, std::span<const float> partial_lse,
                        std::span<float> out) {
  const std::size_t n_rows = static_cast<std::size_t>(num_seqs) * num_splits * q_heads;
  require(partial_out.size() == n_rows * head_dim && partial_lse.size() == n_rows, "partial sizes");
  require(out.size() == static_cast<std::size_t>(num_seqs) * q_heads * head_dim, "out size");
  for (int s = 0; s < num_seqs; ++s) {
    for (int h = 0; h < q_heads; ++h) {
      auto row = [&](int j) { return (static_cast<std::size_t>(s) * num_splits + j) * q_heads + h; };
      double max_lse = -std::numeric_limits<double>::infinity();
      for (int j = 0; j < num_splits; ++j) max_lse = std::max<double>(max_lse, partial_lse[row(j)]);
      float* o = out.data() + (static_cast<std::size_t>(s) * q_heads + h) * head_dim;
      std::vector<double> acc(head_dim, 0.0);
      double weight_sum = 0.0;
      if (std::isfinite(max_lse)) {
        for (int j = 0; j < num_splits; ++j) {
          const double w = std::exp(partial_lse[row(j)] - max_lse);  // 0 for an empty split
          weight_sum += w;
          for (int d = 0; d < head_dim; ++d) acc[d] += w * partial_out[row(j) * head_dim + d];
        }
      }
      for (int d = 0; d < head_dim; ++d) {
        o[d] = weight_sum > 0.0 ? static_cast<float>(acc[d] / weight_sum) : 0.0f;
      }
    }
  }
}

}  // namespace efimsim::kernels
