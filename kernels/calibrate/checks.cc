#include "checks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "../cuda/device_buffer.h"
#include "../cuda/kernels.h"
#include "../ref/numerics.h"
#include "../ref/paged_scenario.h"
#include "../ref/reference.h"
#include "cuda_check.h"
#include "model_spec.h"

namespace efimsim::kernels {
namespace {

using cuda::bf16_t;
using cuda::DeviceBuffer;

template <class T, class U>
DeviceBuffer<T> to_device(const std::vector<U>& host) {
  DeviceBuffer<T> d(host.size());
  if (!host.empty()) CUDA_CHECK(d.template upload<U>(std::span<const U>(host)));
  return d;
}

std::vector<float> download_float(const DeviceBuffer<bf16_t>& d) {
  std::vector<bf16> host(d.size());
  CUDA_CHECK(d.download(std::span<bf16>(host)));
  return to_float(host);
}

DeviceBuffer<bf16_t> poisoned(std::size_t n) {
  DeviceBuffer<bf16_t> d(n);
  LAUNCH_CHECK(cuda::poison_bf16(d.data(), n, 0));
  return d;
}

class Checker {
 public:
  explicit Checker(std::ostream& log) : log_(log) {}

  void record(const std::string& kernel, const std::string& shape, double err, double tol = kBf16Tolerance) {
    const bool pass = err <= tol;  // false for NaN
    char buf[64];
    std::snprintf(buf, sizeof buf, "rel_err %.3e (tol %.0e)", err, tol);
    log_ << (pass ? "  pass  " : "  FAIL  ") << kernel << " " << shape << ": " << buf << "\n";
    log_.flush();
    (pass ? summary_.passed : summary_.failed) += 1;
  }
  // A kernel that throws or returns an error is a failed check, not a crash.
  void guarded(const std::string& kernel, const std::string& shape, const std::function<double()>& body,
               double tol = kBf16Tolerance) {
    try {
      record(kernel, shape, body(), tol);
    } catch (const std::exception& e) {
      log_ << "  FAIL  " << kernel << " " << shape << ": " << e.what() << "\n";
      ++summary_.failed;
    }
  }
  CheckSummary summary() const { return summary_; }

 private:
  std::ostream& log_;
  CheckSummary summary_;
};

std::string shape3(const char* a, int x, const char* b, int y, const char* c, int z) {
  return std::string(a) + "=" + std::to_string(x) + " " + b + "=" + std::to_string(y) + " " + c + "=" + std::to_string(z);
}

// cuBLASLt at every row count of `row_counts` against one weight B[n, k],
// filled and uploaded once (at a model's lm_head B has up to a billion
// elements: filling it is most of a check's host time).
void check_gemm_shape(Checker& ck, cuda::CublasLtGemm& lt, Rng& rng,
                      std::initializer_list<int> row_counts, int n, int k) {
  std::vector<bf16> b(static_cast<std::size_t>(n) * k);
  fill_uniform(b, rng, -1, 1);
  auto db = to_device<bf16_t>(b);
  for (const int m : row_counts) {
    std::vector<bf16> a(static_cast<std::size_t>(m) * k);
    fill_uniform(a, rng, -1, 1);
    std::vector<float> want(static_cast<std::size_t>(m) * n);
    gemm_ref(m, n, k, a, b, want);
    auto da = to_device<bf16_t>(a);
    const std::string shape = shape3("m", m, "n", n, "k", k);
    ck.guarded("gemm cublaslt", shape, [&] {
      auto dc = poisoned(want.size());
      const cublasStatus_t st = lt.run({m, n, k, da.data(), db.data(), dc.data()}, 0);
      if (st != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(cuda::cublas_status_string(st));
      CUDA_CHECK(cudaGetLastError());
      CUDA_CHECK(cudaDeviceSynchronize());
      return rel_error_by_norm(download_float(dc), want);
    });
  }
}

void check_gemm(Checker& ck, cuda::CublasLtGemm& lt, Rng& rng) {
  const int shapes[][3] = {{1, 64, 64},     {7, 136, 72},     {128, 128, 128},  {129, 264, 520},
                           {1000, 512, 1024}, {256, 6144, 4096}, {64, 4096, 14336}, {17, 28672, 4096},
                           {2048, 1024, 4096}};
  for (const auto& s : shapes) check_gemm_shape(ck, lt, rng, {s[0]}, s[1], s[2]);
}

struct DeviceScenario {
  DeviceBuffer<bf16_t> q, k, v;
  DeviceBuffer<std::int32_t> table, cu, lens;
  explicit DeviceScenario(const PagedScenario& sc)
      : q(to_device<bf16_t>(sc.q)),
        k(to_device<bf16_t>(sc.k_cache)),
        v(to_device<bf16_t>(sc.v_cache)),
        table(to_device<std::int32_t>(sc.block_table)),
        cu(to_device<std::int32_t>(sc.cu_new_tokens)),
        lens(to_device<std::int32_t>(sc.kv_lens)) {}
};

std::string describe(const PagedScenario& sc) {
  std::string s = "hq=" + std::to_string(sc.q_heads) + " hkv=" + std::to_string(sc.kv_heads) +
                  " d=" + std::to_string(sc.head_dim) + " seqs(new+cached)=";
  for (std::size_t i = 0; i < sc.seqs.size() && i < 6; ++i) {
    if (i > 0) s += ',';
    s += std::to_string(sc.seqs[i].new_tokens);
    s += '+';
    s += std::to_string(sc.seqs[i].cached_tokens);
  }
  if (sc.seqs.size() > 6) s += ",...(" + std::to_string(sc.seqs.size()) + ")";
  return s;
}

void check_prefill_case(Checker& ck, Rng& rng, int hq, int hkv, int d, const std::vector<SeqShape>& seqs) {
  const auto sc = make_paged_scenario(seqs, hq, hkv, d, rng);
  std::vector<float> want(sc.q.size());
  prefill_attention_ref(sc.prefill_args(), want);
  ck.guarded("prefill_attention paged-fa2", describe(sc), [&] {
    DeviceScenario ds(sc);
    auto out = poisoned(want.size());
    cuda::PrefillAttentionParams p;
    p.q = ds.q.data();
    p.out = out.data();
    p.k_cache = ds.k.data();
    p.v_cache = ds.v.data();
    p.block_table = ds.table.data();
    p.cu_new_tokens = ds.cu.data();
    p.kv_lens = ds.lens.data();
    p.num_seqs = sc.num_seqs();
    p.max_new_tokens = sc.max_new_tokens();
    p.q_heads = sc.q_heads;
    p.kv_heads = sc.kv_heads;
    p.head_dim = sc.head_dim;
    p.max_blocks_per_seq = sc.max_blocks_per_seq;
    p.scale = sc.default_scale();
    LAUNCH_CHECK(cuda::prefill_attention(p, 0));
    CUDA_CHECK(cudaDeviceSynchronize());
    return rel_error_by_norm(download_float(out), want);
  });
}

void check_prefill(Checker& ck, Rng& rng) {
  const std::vector<SeqShape> varlen = {{1, 0},    {5, 17},  {33, 0},  {16, 16},  {7, 40},
                                        {100, 300}, {64, 0}, {65, 63}, {200, 1000}, {1, 4000}};
  struct Heads {
    int hq, hkv, d;
  };
  const std::vector<std::pair<Heads, std::vector<SeqShape>>> cases = {
      {{8, 2, 128}, varlen},
      {{8, 8, 64}, varlen},
      {{4, 1, 128}, varlen},
      {{32, 8, 128}, {{130, 0}, {17, 500}}},
      {{8, 2, 128}, {{1024, 1024}}},
      {{4, 4, 64}, {{513, 0}, {3, 0}}},
      {{28, 4, 128}, {{70, 30}, {5, 200}}},
      {{12, 2, 64}, {{33, 0}, {100, 64}}},
  };
  for (const auto& [h, seqs] : cases) {
    check_prefill_case(ck, rng, h.hq, h.hkv, h.d, seqs);
  }
}

void check_decode_case(Checker& ck, int sm_count, Rng& rng, int hq, int hkv, int d, const std::vector<int>& contexts,
                       const std::vector<int>& extra_splits) {
  std::vector<SeqShape> seqs;
  for (int len : contexts) seqs.push_back({1, len - 1});
  const auto sc = make_paged_scenario(seqs, hq, hkv, d, rng);
  std::vector<float> want(sc.q.size());
  decode_attention_ref(sc.decode_args(), want);
  const int dflt = cuda::decode_attention_default_splits(sc.num_seqs(), sc.q_heads, sc.kv_heads, sc.max_kv_len(), sm_count);
  std::vector<int> splits = {1, dflt};
  splits.insert(splits.end(), extra_splits.begin(), extra_splits.end());
  std::sort(splits.begin(), splits.end());
  splits.erase(std::unique(splits.begin(), splits.end()), splits.end());
  DeviceScenario ds(sc);
  for (int s : splits) {
    ck.guarded("decode_attention paged-splitkv", describe(sc) + " splits=" + std::to_string(s), [&] {
      auto out = poisoned(want.size());
      DeviceBuffer<float> ws(cuda::decode_attention_workspace_bytes(sc.num_seqs(), sc.q_heads, sc.head_dim, s) /
                             sizeof(float));
      cuda::DecodeAttentionParams p;
      p.q = ds.q.data();
      p.out = out.data();
      p.k_cache = ds.k.data();
      p.v_cache = ds.v.data();
      p.block_table = ds.table.data();
      p.context_lens = ds.lens.data();
      p.num_seqs = sc.num_seqs();
      p.max_context_len = sc.max_kv_len();
      p.q_heads = sc.q_heads;
      p.kv_heads = sc.kv_heads;
      p.head_dim = sc.head_dim;
      p.max_blocks_per_seq = sc.max_blocks_per_seq;
      p.scale = sc.default_scale();
      p.num_splits = s;
      p.workspace = ws.data();
      p.workspace_bytes = ws.bytes();
      LAUNCH_CHECK(cuda::decode_attention(p, 0));
      CUDA_CHECK(cudaDeviceSynchronize());
      return rel_error_by_norm(download_float(out), want);
    });
  }
}

void check_decode(Checker& ck, int sm_count, Rng& rng) {
  struct Case {
    int hq, hkv, d;
    std::vector<int> contexts;
  };
  const std::vector<Case> cases = {
      {8, 2, 128, {1, 15, 16, 17, 100, 1000, 4097, 64, 65}},
      {32, 8, 128, {3000, 1, 257}},
      {4, 4, 64, {1, 33, 2048, 129}},
      {16, 2, 64, {500, 77}},
      {32, 32, 128, {1024, 4096}},
      {8, 2, 128, std::vector<int>(64, 4096)},
      // GQA groups that are not powers of two (issue 26: 7, 6, 12 failed to
      // launch), one CTA or several per group, and a prime group of 13.
      {28, 4, 128, {1, 300, 4097}},
      {12, 2, 128, {65, 2000}},
      {48, 4, 128, {17, 1000, 4096}},
      {24, 2, 64, {129, 3000}},
      {10, 2, 64, {1, 700}},
      {13, 1, 64, {64, 1500}},
      {16, 1, 128, {999}},
      // Tensor-core kernel (group >= 2): groups 2 and 3 (13 of 16 mma rows
      // zero), and groups above 16 in chunks of 16 (32) or of one head (17).
      {6, 3, 128, {1, 63, 64, 65, 2500}},
      {9, 3, 64, {31, 1100}},
      {32, 1, 64, {300, 2000}},
      {17, 1, 128, {100, 513}},
  };
  for (const auto& c : cases) {
    check_decode_case(ck, sm_count, rng, c.hq, c.hkv, c.d, c.contexts, {3, 7, 40});
  }
}

struct RopeCase {
  int tokens, hq, hkv, d;
};

void check_rmsnorm(Checker& ck, Rng& rng, int tokens, int hidden) {
  std::vector<bf16> x(static_cast<std::size_t>(tokens) * hidden), w(hidden);
  fill_uniform(x, rng, -3, 3);
  fill_uniform(w, rng, 0.5f, 1.5f);
  std::vector<float> want(x.size());
  rmsnorm_ref(tokens, hidden, 1e-5f, x, w, want);
  ck.guarded("rmsnorm", "tokens=" + std::to_string(tokens) + " hidden=" + std::to_string(hidden), [&] {
    auto dx = to_device<bf16_t>(x);
    auto dw = to_device<bf16_t>(w);
    auto out = poisoned(x.size());
    LAUNCH_CHECK(cuda::rmsnorm({dx.data(), dw.data(), out.data(), tokens, hidden, 1e-5f}, 0));
    CUDA_CHECK(cudaDeviceSynchronize());
    return rel_error_by_norm(download_float(out), want);
  });
}

void check_rope(Checker& ck, Rng& rng, const RopeCase& c) {
  std::vector<bf16> q(static_cast<std::size_t>(c.tokens) * c.hq * c.d), k(static_cast<std::size_t>(c.tokens) * c.hkv * c.d);
  fill_uniform(q, rng, -1, 1);
  fill_uniform(k, rng, -1, 1);
  std::vector<std::int32_t> pos(c.tokens);
  for (auto& p : pos) p = rng.uniform_int(0, 16383);
  const float theta = 500000.0f;
  std::vector<float> want_q(q.size()), want_k(k.size());
  rope_ref(c.tokens, c.hq, c.d, theta, pos, q, want_q);
  rope_ref(c.tokens, c.hkv, c.d, theta, pos, k, want_k);
  std::vector<float> want = want_q;
  want.insert(want.end(), want_k.begin(), want_k.end());
  ck.guarded("rope", shape3("tokens", c.tokens, "hq", c.hq, "d", c.d) + " hkv=" + std::to_string(c.hkv), [&] {
    auto dq = to_device<bf16_t>(q);
    auto dk = to_device<bf16_t>(k);
    auto dp = to_device<std::int32_t>(pos);
    LAUNCH_CHECK(cuda::rope({dq.data(), dk.data(), dp.data(), c.tokens, c.hq, c.hkv, c.d, theta}, 0));
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> got = download_float(dq);
    const auto gk = download_float(dk);
    got.insert(got.end(), gk.begin(), gk.end());
    return rel_error_by_norm(got, want);
  });
}

void check_silu_and_mul(Checker& ck, Rng& rng, int tokens, int ffn) {
  std::vector<bf16> x(static_cast<std::size_t>(tokens) * 2 * ffn);
  fill_uniform(x, rng, -4, 4);
  std::vector<float> want(static_cast<std::size_t>(tokens) * ffn);
  silu_and_mul_ref(tokens, ffn, x, want);
  ck.guarded("silu_and_mul", "tokens=" + std::to_string(tokens) + " ffn=" + std::to_string(ffn), [&] {
    auto dx = to_device<bf16_t>(x);
    auto out = poisoned(want.size());
    LAUNCH_CHECK(cuda::silu_and_mul({dx.data(), out.data(), tokens, ffn}, 0));
    CUDA_CHECK(cudaDeviceSynchronize());
    return rel_error_by_norm(download_float(out), want);
  });
}

void check_residual_add(Checker& ck, Rng& rng, std::size_t n, std::size_t offset) {
  std::vector<bf16> a(n), b(n);
  fill_uniform(a, rng, -2, 2);
  fill_uniform(b, rng, -2, 2);
  std::vector<float> want(n);
  residual_add_ref(a, b, want);
  ck.guarded("residual_add", "n=" + std::to_string(n) + (offset ? " misaligned" : ""), [&] {
    std::vector<bf16> pa(offset), pb(offset);  // shift the arrays off 16-byte alignment
    pa.insert(pa.end(), a.begin(), a.end());
    pb.insert(pb.end(), b.begin(), b.end());
    auto da = to_device<bf16_t>(pa);
    auto db = to_device<bf16_t>(pb);
    auto out = poisoned(n + offset);
    LAUNCH_CHECK(cuda::residual_add({da.data() + offset, db.data() + offset, out.data() + offset, n}, 0));
    CUDA_CHECK(cudaDeviceSynchronize());
    auto got = download_float(out);
    got.erase(got.begin(), got.begin() + static_cast<std::ptrdiff_t>(offset));
    return rel_error_by_norm(got, want);
  });
}

void check_kv_cache_write(Checker& ck, Rng& rng, int tokens, int hkv, int d) {
  const int blocks = (tokens + 15) / 16 + 3;
  const std::size_t row = static_cast<std::size_t>(hkv) * d;
  std::vector<bf16> k(tokens * row), v(tokens * row), kc(blocks * 16 * row), vc(kc.size());
  fill_uniform(k, rng, -1, 1);
  fill_uniform(v, rng, -1, 1);
  fill_uniform(kc, rng, -1, 1);
  fill_uniform(vc, rng, -1, 1);
  std::vector<std::int64_t> slots(blocks * 16);
  for (std::size_t i = 0; i < slots.size(); ++i) slots[i] = static_cast<std::int64_t>(i);
  for (std::size_t i = slots.size() - 1; i > 0; --i) std::swap(slots[i], slots[rng.uniform_int(0, static_cast<int>(i))]);
  slots.resize(tokens);
  if (tokens > 2) slots[1] = -1;  // padding
  std::vector<bf16> want_k = kc, want_v = vc;
  kv_cache_write_ref(tokens, hkv, d, 16, k, v, slots, want_k, want_v);
  ck.guarded("kv_cache_write", shape3("tokens", tokens, "hkv", hkv, "d", d), [&] {
    auto dk = to_device<bf16_t>(k);
    auto dv = to_device<bf16_t>(v);
    auto dkc = to_device<bf16_t>(kc);
    auto dvc = to_device<bf16_t>(vc);
    auto ds = to_device<std::int64_t>(slots);
    LAUNCH_CHECK(cuda::kv_cache_write({dk.data(), dv.data(), dkc.data(), dvc.data(), ds.data(), tokens, hkv, d}, 0));
    CUDA_CHECK(cudaDeviceSynchronize());
    auto got = download_float(dkc);
    const auto gv = download_float(dvc);
    got.insert(got.end(), gv.begin(), gv.end());
    auto want = to_float(want_k);
    const auto wv = to_float(want_v);
    want.insert(want.end(), wv.begin(), wv.end());
    return rel_error_by_norm(got, want);
  }, /*tol=*/0.0);  // a copy: exact or wrong
}

void check_gelu(Checker& ck, Rng& rng, int tokens, int ffn) {
  std::vector<bf16> x(static_cast<std::size_t>(tokens) * ffn);
  fill_uniform(x, rng, -5, 5);
  std::vector<float> want(x.size());
  gelu_tanh_ref(x, want);
  ck.guarded("gelu_tanh", "tokens=" + std::to_string(tokens) + " ffn=" + std::to_string(ffn), [&] {
    auto dx = to_device<bf16_t>(x);
    auto out = poisoned(want.size());
    LAUNCH_CHECK(cuda::gelu_tanh({dx.data(), out.data(), tokens, ffn}, 0));
    CUDA_CHECK(cudaDeviceSynchronize());
    return rel_error_by_norm(download_float(out), want);
  });
}

// Sampling: the top-k ids must equal the reference's exactly; the drawn token
// must too, unless the draw lies within 1e-5 (relative) of a boundary of the
// cumulative weights, where float rounding may legitimately differ. Ties and
// a NaN are planted. The error is the fraction of rows that disagree.
void check_sampling(Checker& ck, Rng& rng, int rows, int vocab, int top_k, float temperature) {
  std::vector<float> logits(static_cast<std::size_t>(rows) * vocab);
  fill_uniform(std::span<float>(logits), rng, -8, 8);
  for (int r = 0; r < rows; ++r) {
    float* x = logits.data() + static_cast<std::size_t>(r) * vocab;
    const int a = rng.uniform_int(0, vocab - 1), b = rng.uniform_int(0, vocab - 1);
    x[a] = x[b] = 9.0f;  // a tie at the top: the lower id first
    if (vocab > 2) x[rng.uniform_int(0, vocab - 1)] = std::nanf("");
  }
  std::vector<float> u(static_cast<std::size_t>(rows));
  for (auto& v : u) v = static_cast<float>(rng.uniform());
  std::vector<std::int32_t> want_tok(static_cast<std::size_t>(rows)), want_ids(static_cast<std::size_t>(rows) * top_k);
  sampling_ref(rows, vocab, top_k, temperature, logits, u, want_tok, want_ids);
  const std::string shape = "rows=" + std::to_string(rows) + " vocab=" + std::to_string(vocab) +
                            " top_k=" + std::to_string(top_k) + " T=" + std::to_string(temperature).substr(0, 4);
  ck.guarded("sampling", shape, [&] {
    auto dl = to_device<float>(logits);
    auto du = to_device<float>(u);
    DeviceBuffer<std::int32_t> tok(want_tok.size()), ids(want_ids.size());
    DeviceBuffer<float> vals(want_ids.size());
    CUDA_CHECK(cudaMemset(tok.data(), 0xff, tok.bytes()));
    cuda::SamplingParams p;
    p.logits = dl.data();
    p.uniforms = du.data();
    p.tokens = tok.data();
    p.top_ids = ids.data();
    p.top_logits = vals.data();
    p.rows = rows;
    p.vocab = vocab;
    p.top_k = top_k;
    p.temperature = temperature;
    LAUNCH_CHECK(cuda::sampling(p, 0));
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<std::int32_t> got_tok(want_tok.size()), got_ids(want_ids.size());
    CUDA_CHECK(tok.download(std::span<std::int32_t>(got_tok)));
    CUDA_CHECK(ids.download(std::span<std::int32_t>(got_ids)));
    int bad = 0;
    for (int r = 0; r < rows; ++r) {
      const auto* wi = want_ids.data() + static_cast<std::size_t>(r) * top_k;
      const auto* gi = got_ids.data() + static_cast<std::size_t>(r) * top_k;
      bool ok = std::equal(wi, wi + top_k, gi);
      if (ok && got_tok[r] != want_tok[r]) {
        // Where does the draw fall among the cumulative weights (double)?
        const float* x = logits.data() + static_cast<std::size_t>(r) * vocab;
        std::vector<double> cum;
        double total = 0;
        for (int j = 0; j < top_k && wi[j] >= 0; ++j) cum.push_back(total += std::exp((x[wi[j]] - x[wi[0]]) / temperature));
        const double target = u[static_cast<std::size_t>(r)] * total;
        bool near = false;
        for (double c : cum) near |= std::abs(c - target) <= 1e-5 * total;
        ok = near && std::find(wi, wi + top_k, got_tok[r]) != wi + top_k;
      }
      bad += ok ? 0 : 1;
    }
    return static_cast<double>(bad) / rows;
  }, /*tol=*/0.0);
}

void check_elementwise(Checker& ck, Rng& rng) {
  for (auto [tokens, hidden] : {std::pair{1, 4096}, {3, 8}, {17, 136}, {64, 4096}}) {
    check_rmsnorm(ck, rng, tokens, hidden);
  }
  for (const auto& c : {RopeCase{1, 32, 8, 128}, RopeCase{5, 4, 4, 64}, RopeCase{33, 32, 32, 128}}) {
    check_rope(ck, rng, c);
  }
  for (auto [tokens, ffn] : {std::pair{1, 14336}, {7, 8}, {5, 24}, {64, 11008}}) {
    check_silu_and_mul(ck, rng, tokens, ffn);
  }
  for (auto [n, offset] : {std::pair<std::size_t, std::size_t>{8, 0}, {4096 * 3, 0}, {1001, 0}, {1000, 1}}) {
    check_residual_add(ck, rng, n, offset);
  }
  for (auto [tokens, hkv, d] : {std::tuple{1, 8, 128}, {9, 2, 64}, {40, 32, 128}}) {
    check_kv_cache_write(ck, rng, tokens, hkv, d);
  }
  for (auto [tokens, ffn] : {std::pair{1, 24576}, {7, 8}, {33, 136}}) check_gelu(ck, rng, tokens, ffn);
  for (auto [rows, vocab] : {std::pair{1, 1000}, {3, 1001}, {5, 49152}, {2, 152064}, {1, 7}}) {
    for (int k : {1, 2, 50}) {
      if (k <= vocab) check_sampling(ck, rng, rows, vocab, k, 1.0f);
    }
  }
  check_sampling(ck, rng, 4, 32016, 64, 0.7f);
}

// Every kernel at one model's shapes (run_model_checks).
void check_model(Checker& ck, cuda::CublasLtGemm& lt, int sm_count, const ModelSpec& m, Rng& rng) {
  for (const auto& g : gemm_shapes(m)) {
    check_gemm_shape(ck, lt, rng, {1, 19}, g.n, g.k);
  }
  check_prefill_case(ck, rng, m.q_heads, m.kv_heads, m.head_dim, {{1, 0}, {37, 90}, {130, 0}, {64, 700}});
  check_decode_case(ck, sm_count, rng, m.q_heads, m.kv_heads, m.head_dim, {1, 17, 300, 2049, 4097}, {7});
  check_rmsnorm(ck, rng, 3, m.hidden_size);
  check_rope(ck, rng, {5, m.q_heads, m.kv_heads, m.head_dim});
  if (m.gated_mlp) {
    check_silu_and_mul(ck, rng, 3, m.ffn_size);
  } else {
    check_gelu(ck, rng, 3, m.ffn_size);
  }
  check_residual_add(ck, rng, static_cast<std::size_t>(3) * m.hidden_size, 0);
  check_kv_cache_write(ck, rng, 19, m.kv_heads, m.head_dim);
  check_sampling(ck, rng, 3, m.vocab_size, 1, 1.0f);
  check_sampling(ck, rng, 3, m.vocab_size, 50, 0.8f);
}

}  // namespace

CheckSummary run_model_checks(cuda::CublasLtGemm& cublaslt, int sm_count, const ModelSpec& spec, std::uint64_t seed,
                              std::ostream& log) {
  log << "checks for " << spec.name << " (seed " << seed << "): every kernel at the model's shapes\n";
  Checker ck(log);
  Rng rng(seed);
  check_model(ck, cublaslt, sm_count, spec, rng);
  const auto s = ck.summary();
  log << "checks for " << spec.name << ": " << s.passed << " passed, " << s.failed << " failed\n";
  return s;
}

CheckSummary run_checks(cuda::CublasLtGemm& cublaslt, int sm_count, std::uint64_t seed, std::ostream& log) {
  log << "checks (seed " << seed << "): every kernel variant vs its CPU reference\n";
  Checker ck(log);
  Rng rng(seed);
  check_elementwise(ck, rng);
  check_gemm(ck, cublaslt, rng);
  check_prefill(ck, rng);
  check_decode(ck, sm_count, rng);
  const auto s = ck.summary();
  log << "checks: " << s.passed << " passed, " << s.failed << " failed\n";
  return s;
}

}  // namespace efimsim::kernels
