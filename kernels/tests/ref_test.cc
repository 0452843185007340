// CPU tests of the references in kernels/ref. Each reference is checked
// against an independent formulation (a naive contiguous computation, a
// mathematical identity, or another reference composed differently), so a
// GPU kernel that matches a reference matches something that was itself
// pinned down.

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <string>
#include <vector>

#include "../ref/numerics.h"
#include "../ref/paged_scenario.h"
#include "../ref/reference.h"
#include "test_main.h"

using namespace efimsim::kernels;

namespace {

constexpr double kExact = 1e-6;  // two fp64 formulations of the same math

// Contiguous K/V of one sequence, copied out of the paged cache through the
// block table: [kv_len, kv_heads, head_dim] as floats.
std::vector<float> contiguous(const PagedScenario& sc, const std::vector<bf16>& cache, int seq) {
  const int len = sc.kv_lens[seq];
  const std::size_t row = static_cast<std::size_t>(sc.kv_heads) * sc.head_dim;
  std::vector<float> out(row * len);
  for (int t = 0; t < len; ++t) {
    const int block = sc.block_table[static_cast<std::size_t>(seq) * sc.max_blocks_per_seq + t / sc.block_tokens];
    const std::size_t src = (static_cast<std::size_t>(block) * sc.block_tokens + t % sc.block_tokens) * row;
    for (std::size_t e = 0; e < row; ++e) out[t * row + e] = bf16_to_float(cache[src + e]);
  }
  return out;
}

// Naive attention of n queries over L contiguous keys with an explicit
// lower-right causal mask matrix and a two-pass softmax.
std::vector<float> naive_attention(int n, int len, int q_heads, int kv_heads, int d, float scale,
                                   const float* q, const std::vector<float>& k, const std::vector<float>& v) {
  std::vector<float> out(static_cast<std::size_t>(n) * q_heads * d);
  for (int h = 0; h < q_heads; ++h) {
    const int kvh = h * kv_heads / q_heads;
    for (int i = 0; i < n; ++i) {
      std::vector<double> p(len);
      for (int j = 0; j < len; ++j) {
        const bool visible = j - (len - n) <= i;  // key j at or left of query i's diagonal
        double dot = 0;
        for (int e = 0; e < d; ++e) {
          dot += static_cast<double>(q[(static_cast<std::size_t>(i) * q_heads + h) * d + e]) *
                 k[(static_cast<std::size_t>(j) * kv_heads + kvh) * d + e];
        }
        p[j] = visible ? dot * scale : -std::numeric_limits<double>::infinity();
      }
      double mx = -std::numeric_limits<double>::infinity();
      for (double x : p) mx = std::max(mx, x);
      double sum = 0;
      for (double& x : p) sum += (x = std::exp(x - mx));
      for (int e = 0; e < d; ++e) {
        double acc = 0;
        for (int j = 0; j < len; ++j) acc += p[j] * v[(static_cast<std::size_t>(j) * kv_heads + kvh) * d + e];
        out[(static_cast<std::size_t>(i) * q_heads + h) * d + e] = static_cast<float>(acc / sum);
      }
    }
  }
  return out;
}

std::vector<float> run_prefill(const PagedScenario& sc) {
  std::vector<float> out(sc.q.size());
  prefill_attention_ref(sc.prefill_args(), out);
  return out;
}

std::vector<float> rows(const std::vector<float>& x, std::size_t row_elems, int first, int count) {
  return {x.begin() + first * row_elems, x.begin() + (first + count) * row_elems};
}

const std::vector<SeqShape> kVarlen = {{1, 0}, {5, 17}, {33, 0}, {16, 16}, {7, 40}, {1, 1}, {20, 3}};

}  // namespace

TEST(bf16_rounds_to_nearest_even_and_keeps_nan_and_inf) {
  CHECK(bf16_to_float(float_to_bf16(1.0f)) == 1.0f);
  CHECK(bf16_to_float(float_to_bf16(-2.5f)) == -2.5f);
  CHECK(round_to_bf16(1.0f + 0x1p-8f) == 1.0f);                  // tie -> even (down)
  CHECK(round_to_bf16(1.0f + 3 * 0x1p-8f) == 1.0f + 0x1p-6f);    // tie -> even (up)
  CHECK(round_to_bf16(1.0f + 0x1p-8f + 0x1p-12f) == 1.0f + 0x1p-7f);  // above tie -> up
  CHECK(std::isnan(round_to_bf16(std::numeric_limits<float>::quiet_NaN())));
  CHECK(std::isinf(round_to_bf16(std::numeric_limits<float>::infinity())));
  CHECK(std::isinf(round_to_bf16(3.4e38f)));  // rounds past the largest bf16
  Rng rng(1);
  for (int i = 0; i < 1000; ++i) {
    const float x = rng.uniform(-100.0f, 100.0f);
    CHECK(std::fabs(round_to_bf16(x) - x) <= std::fabs(x) * 0x1p-8f);
  }
}

TEST(rel_error_by_norm_never_passes_nan_or_inf) {
  const std::vector<float> want = {1, 2, 3, 4};
  CHECK(rel_error_by_norm(want, want) == 0.0);
  std::vector<float> got = want;
  got[3] = 4.4f;
  CHECK(std::fabs(rel_error_by_norm(got, want) - 0.4 / std::sqrt(30.0)) < 1e-6);
  got[2] = std::numeric_limits<float>::quiet_NaN();
  CHECK(!(rel_error_by_norm(got, want) <= kBf16Tolerance));
  got[2] = std::numeric_limits<float>::infinity();
  CHECK(!(rel_error_by_norm(got, want) <= kBf16Tolerance));
  CHECK(!(rel_error_by_norm(std::vector<float>{1, 2, 3}, want) <= kBf16Tolerance));
  CHECK(!all_finite(got));
}

TEST(parallel_fill_and_conversion_equal_the_sequential_ones) {
  // Three chunks of 2^20 and a partial one, so the fill runs on several
  // threads; its values and the generator's state after it must be those of
  // draws made one by one.
  const std::size_t n = 3 * (std::size_t{1} << 20) + 12345;
  Rng parallel_rng(77), sequential_rng(77);
  std::vector<bf16> x(n);
  fill_uniform(x, parallel_rng, -2.0f, 3.0f);
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (x[i].bits != float_to_bf16(sequential_rng.uniform(-2.0f, 3.0f)).bits) ++mismatches;
  }
  CHECK(mismatches == 0);
  CHECK(parallel_rng.next_u64() == sequential_rng.next_u64());
  std::vector<float> f(5);
  fill_uniform(f, parallel_rng, 0.0f, 1.0f);
  for (float v : f) CHECK(v == sequential_rng.uniform(0.0f, 1.0f));
  const std::vector<float> converted = to_float(x);
  mismatches = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (converted[i] != bf16_to_float(x[i])) ++mismatches;
  }
  CHECK(mismatches == 0);
}

TEST(gemm_ref_matches_naive_triple_loop_at_odd_shapes) {
  Rng rng(2);
  for (auto [m, n, k] : {std::tuple{1, 1, 1}, {7, 13, 37}, {1, 64, 200}, {33, 5, 128}}) {
    std::vector<bf16> a(static_cast<std::size_t>(m) * k), b(static_cast<std::size_t>(n) * k);
    fill_uniform(a, rng, -1, 1);
    fill_uniform(b, rng, -1, 1);
    std::vector<float> c(static_cast<std::size_t>(m) * n), naive(c.size());
    gemm_ref(m, n, k, a, b, c);
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < n; ++j) {
        long double acc = 0;
        for (int e = 0; e < k; ++e) acc += static_cast<long double>(bf16_to_float(a[i * k + e])) * bf16_to_float(b[j * k + e]);
        naive[static_cast<std::size_t>(i) * n + j] = static_cast<float>(acc);
      }
    }
    CHECK(rel_error_by_norm(c, naive) < kExact);
  }
  std::vector<float> c(4);
  CHECK_THROWS(gemm_ref(2, 2, 3, std::vector<bf16>(5), std::vector<bf16>(6), c));
}

TEST(prefill_paged_varlen_matches_naive_contiguous_per_sequence) {
  for (int d : {64, 128}) {
    Rng rng(3 + d);
    const auto sc = make_paged_scenario(kVarlen, /*q_heads=*/8, /*kv_heads=*/2, d, rng);
    const auto out = run_prefill(sc);
    const std::size_t row = static_cast<std::size_t>(sc.q_heads) * d;
    for (int s = 0; s < sc.num_seqs(); ++s) {
      const int n = sc.seqs[s].new_tokens;
      std::vector<float> qf = to_float(sc.q);
      const auto want = naive_attention(n, sc.kv_lens[s], sc.q_heads, sc.kv_heads, d, sc.default_scale(),
                                        qf.data() + sc.cu_new_tokens[s] * row, contiguous(sc, sc.k_cache, s),
                                        contiguous(sc, sc.v_cache, s));
      CHECK_MSG(rel_error_by_norm(rows(out, row, sc.cu_new_tokens[s], n), want) < kExact,
                "d=" + std::to_string(d) + " seq " + std::to_string(s));
    }
  }
}

TEST(prefill_result_does_not_depend_on_page_placement) {
  Rng rng(4);
  auto sc = make_paged_scenario(kVarlen, 4, 4, 64, rng);
  const auto before = run_prefill(sc);
  // Move every block to a new physical place (reverse order) and rewrite the
  // block table: the output must not change at all.
  const std::size_t block_elems = static_cast<std::size_t>(sc.block_tokens) * sc.kv_heads * sc.head_dim;
  auto k2 = sc.k_cache, v2 = sc.v_cache;
  for (int b = 0; b < sc.num_blocks; ++b) {
    const int nb = sc.num_blocks - 1 - b;
    std::copy_n(sc.k_cache.begin() + b * block_elems, block_elems, k2.begin() + nb * block_elems);
    std::copy_n(sc.v_cache.begin() + b * block_elems, block_elems, v2.begin() + nb * block_elems);
  }
  for (auto& e : sc.block_table) {
    if (e >= 0) e = sc.num_blocks - 1 - e;
  }
  sc.k_cache = k2;
  sc.v_cache = v2;
  CHECK(rel_error_by_norm(run_prefill(sc), before) == 0.0);
}

TEST(prefill_gqa_equals_mha_with_repeated_kv_heads) {
  Rng rng(5);
  const auto gqa = make_paged_scenario(kVarlen, 8, 2, 64, rng);
  PagedScenario mha = gqa;
  mha.kv_heads = 8;
  const int group = 4;
  const std::size_t slots = gqa.k_cache.size() / (gqa.kv_heads * gqa.head_dim);
  mha.k_cache.assign(slots * mha.kv_heads * mha.head_dim, bf16{});
  mha.v_cache = mha.k_cache;
  for (std::size_t slot = 0; slot < slots; ++slot) {
    for (int h = 0; h < mha.kv_heads; ++h) {
      for (int e = 0; e < mha.head_dim; ++e) {
        const std::size_t src = (slot * gqa.kv_heads + h / group) * gqa.head_dim + e;
        const std::size_t dst = (slot * mha.kv_heads + h) * mha.head_dim + e;
        mha.k_cache[dst] = gqa.k_cache[src];
        mha.v_cache[dst] = gqa.v_cache[src];
      }
    }
  }
  CHECK(rel_error_by_norm(run_prefill(gqa), run_prefill(mha)) == 0.0);
}

TEST(chunked_prefill_equals_last_rows_of_full_prefill) {
  Rng rng(6);
  const int total = 45;
  const auto full = make_paged_scenario({{total, 0}}, 4, 2, 64, rng);
  const auto full_out = run_prefill(full);
  const std::size_t row = static_cast<std::size_t>(full.q_heads) * full.head_dim;
  for (int chunk : {1, 7, 16, 30}) {
    PagedScenario part = full;  // same cache; only the last `chunk` tokens are new
    part.seqs = {{chunk, total - chunk}};
    part.cu_new_tokens = {0, chunk};
    part.q.assign(full.q.begin() + (total - chunk) * row, full.q.end());
    CHECK_MSG(rel_error_by_norm(run_prefill(part), rows(full_out, row, total - chunk, chunk)) == 0.0,
              "chunk " + std::to_string(chunk));
  }
}

TEST(varlen_batch_equals_each_sequence_alone) {
  Rng rng(7);
  const auto batch = make_paged_scenario(kVarlen, 4, 1, 64, rng);
  const auto out = run_prefill(batch);
  const std::size_t row = static_cast<std::size_t>(batch.q_heads) * batch.head_dim;
  for (int s = 0; s < batch.num_seqs(); ++s) {
    PagedScenario one = batch;
    one.seqs = {batch.seqs[s]};
    one.cu_new_tokens = {0, batch.seqs[s].new_tokens};
    one.kv_lens = {batch.kv_lens[s]};
    one.block_table.assign(batch.block_table.begin() + s * batch.max_blocks_per_seq,
                           batch.block_table.begin() + (s + 1) * batch.max_blocks_per_seq);
    one.q.assign(batch.q.begin() + batch.cu_new_tokens[s] * row, batch.q.begin() + batch.cu_new_tokens[s + 1] * row);
    CHECK(rel_error_by_norm(run_prefill(one), rows(out, row, batch.cu_new_tokens[s], batch.seqs[s].new_tokens)) == 0.0);
  }
}

TEST(prefill_reads_no_block_beyond_a_sequence) {
  Rng rng(8);
  auto sc = make_paged_scenario({{3, 14}}, 2, 2, 64, rng);  // 17 keys: 2 blocks
  sc.kv_lens[0] = 40;  // claims 3 blocks; the third table entry is -1
  sc.seqs[0].cached_tokens = 37;
  std::vector<float> out(sc.q.size());
  CHECK_THROWS(prefill_attention_ref(sc.prefill_args(), out));
}

TEST(decode_equals_prefill_with_one_new_token) {
  for (int d : {64, 128}) {
    Rng rng(9 + d);
    const auto sc = make_paged_scenario({{1, 0}, {1, 15}, {1, 16}, {1, 100}, {1, 31}}, 8, 2, d, rng);
    std::vector<float> dec(sc.q.size());
    decode_attention_ref(sc.decode_args(), dec);
    CHECK(rel_error_by_norm(dec, run_prefill(sc)) == 0.0);
  }
}

TEST(split_kv_combine_equals_unsplit_decode) {
  Rng rng(10);
  const auto sc = make_paged_scenario({{1, 0}, {1, 200}, {1, 63}, {1, 64}, {1, 129}}, 4, 2, 64, rng);
  const auto args = sc.decode_args();
  std::vector<float> want(sc.q.size());
  decode_attention_ref(args, want);
  for (auto [splits, kps] : {std::pair{1, 512}, {2, 128}, {4, 64}, {7, 32}, {13, 16}, {3, 1000}}) {
    std::vector<float> po(static_cast<std::size_t>(sc.num_seqs()) * splits * sc.q_heads * sc.head_dim);
    std::vector<float> pl(static_cast<std::size_t>(sc.num_seqs()) * splits * sc.q_heads);
    decode_attention_split_ref(args, splits, kps, po, pl);
    std::vector<float> got(want.size());
    decode_combine_ref(sc.num_seqs(), splits, sc.q_heads, sc.head_dim, po, pl, got);
    CHECK_MSG(rel_error_by_norm(got, want) < kExact, std::to_string(splits) + " splits of " + std::to_string(kps));
  }
}

TEST(rmsnorm_matches_formula_and_is_scale_invariant) {
  Rng rng(11);
  const int tokens = 5, hidden = 96;
  std::vector<bf16> x(tokens * hidden), w(hidden), x4(x.size());
  fill_uniform(x, rng, -2, 2);
  fill_uniform(w, rng, 0.5f, 1.5f);
  for (std::size_t i = 0; i < x.size(); ++i) x4[i] = float_to_bf16(4.0f * bf16_to_float(x[i]));  // exact
  std::vector<float> out(x.size()), out4(x.size());
  rmsnorm_ref(tokens, hidden, 0.0f, x, w, out);
  rmsnorm_ref(tokens, hidden, 0.0f, x4, w, out4);
  CHECK(rel_error_by_norm(out4, out) < kExact);
  for (int t = 0; t < tokens; ++t) {  // with unit weights each row has mean square 1
    std::vector<bf16> ones(hidden, float_to_bf16(1.0f));
    std::vector<float> o(x.size());
    rmsnorm_ref(tokens, hidden, 0.0f, x, ones, o);
    double ms = 0;
    for (int i = 0; i < hidden; ++i) ms += static_cast<double>(o[t * hidden + i]) * o[t * hidden + i];
    CHECK(std::fabs(ms / hidden - 1.0) < 1e-6);
  }
}

TEST(rope_matches_complex_rotation_and_depends_on_relative_position) {
  Rng rng(12);
  const int tokens = 6, heads = 3, d = 64;
  const float theta = 500000.0f;
  std::vector<bf16> x(tokens * heads * d);
  fill_uniform(x, rng, -1, 1);
  std::vector<std::int32_t> pos = {0, 1, 7, 100, 4095, 17};
  std::vector<float> out(x.size());
  rope_ref(tokens, heads, d, theta, pos, x, out);
  std::vector<float> want(x.size());
  for (int t = 0; t < tokens; ++t) {
    for (int h = 0; h < heads; ++h) {
      for (int i = 0; i < d / 2; ++i) {
        const std::size_t b = (static_cast<std::size_t>(t) * heads + h) * d;
        const double freq = std::pow(static_cast<double>(theta), -2.0 * i / d);
        const std::complex<double> z(bf16_to_float(x[b + i]), bf16_to_float(x[b + i + d / 2]));
        const auto r = z * std::polar(1.0, pos[t] * freq);
        want[b + i] = static_cast<float>(r.real());
        want[b + i + d / 2] = static_cast<float>(r.imag());
      }
    }
  }
  CHECK(rel_error_by_norm(out, want) < 1e-4);  // fp32 angles vs fp64 angles
  // Position 0 is the identity.
  for (int e = 0; e < heads * d; ++e) CHECK(out[e] == bf16_to_float(x[e]));
  // <rope(q, m), rope(k, n)> depends on m - n only.
  std::vector<bf16> qk(2 * d);
  fill_uniform(qk, rng, -1, 1);
  auto dot_at = [&](int m, int n) {
    std::vector<bf16> two = qk;
    std::vector<float> o(two.size());
    rope_ref(2, 1, d, theta, std::vector<std::int32_t>{m, n}, two, o);
    double acc = 0;
    for (int e = 0; e < d; ++e) acc += static_cast<double>(o[e]) * o[d + e];
    return acc;
  };
  CHECK(std::fabs(dot_at(10, 3) - dot_at(110, 103)) < 1e-4);
  CHECK(std::fabs(dot_at(0, 0) - dot_at(50, 50)) < 1e-4);
}

TEST(silu_and_mul_matches_formula) {
  const std::vector<float> gate = {0.0f, 1.0f, -1.0f, 8.0f}, up = {3.0f, 2.0f, 0.5f, -1.0f};
  std::vector<float> xf = gate;
  xf.insert(xf.end(), up.begin(), up.end());
  std::vector<float> out(4);
  silu_and_mul_ref(1, 4, to_bf16(xf), out);
  for (int i = 0; i < 4; ++i) {
    const double g = gate[i];
    CHECK(std::fabs(out[i] - g * up[i] / (1.0 + std::exp(-g))) < 1e-6);
  }
  CHECK(out[0] == 0.0f);
}

TEST(residual_add_adds) {
  const std::vector<float> a = {1.0f, -2.0f, 0.5f}, b = {0.25f, 2.0f, 1.0f};
  std::vector<float> out(3);
  residual_add_ref(to_bf16(a), to_bf16(b), out);
  CHECK(out[0] == 1.25f && out[1] == 0.0f && out[2] == 1.5f);
}

TEST(kv_cache_write_then_paged_prefill_equals_naive_attention) {
  // A whole step: scatter the new tokens' K/V into shuffled pages behind a
  // cached prefix, then attend; compare with naive attention on the
  // contiguous concatenation.
  Rng rng(13);
  const int cached = 21, fresh = 19, kvh = 2, qh = 4, d = 64;
  auto sc = make_paged_scenario({{fresh, cached}}, qh, kvh, d, rng);
  const std::size_t row = static_cast<std::size_t>(kvh) * d;
  std::vector<bf16> k_new(fresh * row), v_new(fresh * row);
  fill_uniform(k_new, rng, -1, 1);
  fill_uniform(v_new, rng, -1, 1);
  std::vector<std::int64_t> slots;
  for (int i = 0; i < fresh; ++i) {
    const int p = cached + i;
    slots.push_back(static_cast<std::int64_t>(sc.block_table[p / 16]) * 16 + p % 16);
  }
  slots.push_back(-1);  // a padding token: skipped
  k_new.resize(k_new.size() + row, float_to_bf16(99.0f));
  v_new.resize(v_new.size() + row, float_to_bf16(99.0f));
  const auto k_before = sc.k_cache;
  kv_cache_write_ref(fresh + 1, kvh, d, 16, k_new, v_new, slots, sc.k_cache, sc.v_cache);
  int changed_rows = 0;
  for (std::size_t s = 0; s < sc.k_cache.size() / row; ++s) {
    bool changed = false;
    for (std::size_t e = 0; e < row; ++e) changed |= sc.k_cache[s * row + e].bits != k_before[s * row + e].bits;
    changed_rows += changed;
  }
  CHECK(changed_rows == fresh);
  auto kc = contiguous(sc, sc.k_cache, 0), vc = contiguous(sc, sc.v_cache, 0);
  for (int i = 0; i < fresh; ++i) {
    for (std::size_t e = 0; e < row; ++e) CHECK(kc[(cached + i) * row + e] == bf16_to_float(k_new[i * row + e]));
  }
  const auto qf = to_float(sc.q);
  const auto want = naive_attention(fresh, cached + fresh, qh, kvh, d, sc.default_scale(), qf.data(), kc, vc);
  CHECK(rel_error_by_norm(run_prefill(sc), want) < kExact);
  std::vector<std::int64_t> bad = {static_cast<std::int64_t>(sc.num_blocks) * 16};
  CHECK_THROWS(kv_cache_write_ref(1, kvh, d, 16, std::vector<bf16>(row), std::vector<bf16>(row), bad,
                                  sc.k_cache, sc.v_cache));
}

TEST(gelu_tanh_is_close_to_erf_gelu_and_has_its_limits) {
  std::vector<bf16> x;
  for (float v = -8.0f; v <= 8.0f; v += 0.0625f) x.push_back(float_to_bf16(v));
  std::vector<float> out(x.size());
  gelu_tanh_ref(x, out);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double v = bf16_to_float(x[i]);
    const double exact = 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));  // the tanh form approximates this
    CHECK_MSG(std::abs(out[i] - exact) <= 1e-3 * std::max(1.0, std::abs(v)), std::to_string(v));
  }
  std::vector<float> lim(3);
  gelu_tanh_ref(std::vector<bf16>{float_to_bf16(0.0f), float_to_bf16(20.0f), float_to_bf16(-20.0f)}, lim);
  CHECK(lim[0] == 0.0f && lim[1] == 20.0f && std::abs(lim[2]) < 1e-6f);
}

TEST(sampling_ref_orders_ties_by_id_skips_nan_and_draws_by_cumulative_weight) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> logits = {1.0f, 3.0f, 3.0f, nan, 2.0f, -1.0f};
  std::vector<std::int32_t> tok(1), ids1(1), ids3(3);
  sampling_ref(1, 6, 1, 1.0f, logits, {}, tok, ids1);
  CHECK(tok[0] == 1 && ids1[0] == 1);  // the tie goes to the lower id
  // top-3 = ids 1, 2, 4 with weights 1, 1, e^-1 at T = 1 (sum 2.368): a draw
  // below 1 / 2.368 = 0.422 picks id 1, below 2 / 2.368 = 0.845 id 2, then id 4.
  for (auto [u, want] : {std::pair{0.0f, 1}, {0.4f, 1}, {0.5f, 2}, {0.99f, 4}}) {
    sampling_ref(1, 6, 3, 1.0f, logits, std::vector<float>{u}, tok, ids3);
    CHECK(ids3 == (std::vector<std::int32_t>{1, 2, 4}));
    CHECK_MSG(tok[0] == want, std::to_string(u) + " -> " + std::to_string(tok[0]));
  }
  // A low temperature leaves only the tied maxima: u = 0.99 picks the second.
  sampling_ref(1, 6, 3, 0.01f, logits, std::vector<float>{0.99f}, tok, ids3);
  CHECK(tok[0] == 2);
  // Against a full sort on random rows.
  Rng rng(7);
  std::vector<float> x(5 * 1000);
  fill_uniform(std::span<float>(x), rng, -4, 4);
  std::vector<std::int32_t> t5(5), top(5 * 50);
  std::vector<float> u(5, 0.5f);
  sampling_ref(5, 1000, 50, 1.0f, x, u, t5, top);
  for (int r = 0; r < 5; ++r) {
    std::vector<std::int32_t> order(1000);
    for (int i = 0; i < 1000; ++i) order[static_cast<std::size_t>(i)] = i;
    const float* row = x.data() + r * 1000;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return row[a] > row[b]; });
    CHECK(std::equal(order.begin(), order.begin() + 50, top.begin() + r * 50));
    CHECK(std::find(order.begin(), order.begin() + 50, t5[static_cast<std::size_t>(r)]) != order.begin() + 50);
  }
}

int main() { return efimsim::kernels::testing::run_all(); }
