#include "bench.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "../cuda/device_buffer.h"
#include "../cuda/kernels.h"
#include "../ref/numerics.h"
#include "cuda_check.h"

namespace efimsim::kernels {
namespace {

using cuda::bf16_t;
using cuda::DeviceBuffer;

DeviceBuffer<bf16_t> random_bf16(std::size_t n, std::uint64_t seed, float lo = -1.0f, float hi = 1.0f) {
  DeviceBuffer<bf16_t> d(n);
  LAUNCH_CHECK(cuda::fill_uniform_bf16(d.data(), n, seed, lo, hi, 0));
  return d;
}

template <class T>
DeviceBuffer<T> upload(const std::vector<T>& host) {
  DeviceBuffer<T> d(host.size());
  CUDA_CHECK(d.template upload<T>(std::span<const T>(host)));
  return d;
}

// `rows` x `per_row` block ids drawn without replacement from [0, num_blocks)
// in random order (pages not in order, as after a while of serving).
std::vector<std::int32_t> shuffled_block_table(int rows, int per_row, std::uint64_t seed) {
  const std::size_t n = static_cast<std::size_t>(rows) * per_row;
  std::vector<std::int32_t> ids(n);
  std::iota(ids.begin(), ids.end(), 0);
  Rng rng(seed);
  for (std::size_t i = n - 1; i > 0 && n > 1; --i) std::swap(ids[i], ids[rng.next_u64() % (i + 1)]);
  return ids;
}

}  // namespace

double roofline_us(const Work& w, const Peaks& peaks) {
  return std::max(w.flops / (peaks.tflops * 1e12), w.bytes / (peaks.tbps * 1e12)) * 1e6;
}

std::string describe_perf(double us, const Work& w, const Peaks& peaks) {
  const double s = us * 1e-6;
  const bool compute = w.flops / (peaks.tflops * 1e12) >= w.bytes / (peaks.tbps * 1e12);
  char buf[160];
  std::snprintf(buf, sizeof buf, "%10.2f us %8.1f TFLOP/s %6.2f TB/s %5.1f%% of roofline (%s)", us,
                w.flops / s * 1e-12, w.bytes / s * 1e-12, 100.0 * roofline_us(w, peaks) / us,
                compute ? "compute" : "memory");
  return buf;
}

Work Bench::gemm_work(int m, int n, int k) {
  return {2.0 * m * n * k, 2.0 * (static_cast<double>(m) * k + static_cast<double>(n) * k + static_cast<double>(m) * n)};
}

double Bench::gemm_cublaslt_us(int m, int n, int k) {
  auto a = random_bf16(static_cast<std::size_t>(m) * k, next_seed());
  auto b = random_bf16(static_cast<std::size_t>(n) * k, next_seed());
  DeviceBuffer<bf16_t> c(static_cast<std::size_t>(m) * n);
  const cuda::GemmParams p{m, n, k, a.data(), b.data(), c.data()};
  return timer_.median_us([&] {
    const cublasStatus_t st = cublaslt_.run(p, 0);
    if (st != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string("cublasLt: ") + cuda::cublas_status_string(st));
  });
}

Work Bench::prefill_work(const ModelSpec& s, int new_tokens, int context_tokens) {
  const double kv = 2.0 * (static_cast<double>(new_tokens) + context_tokens) * s.kv_heads * s.head_dim * 2;
  const double q_out = 2.0 * new_tokens * s.q_heads * s.head_dim * 2;
  return {prefill_attention_flops(s, new_tokens, context_tokens), kv + q_out};
}

double Bench::prefill_us(const ModelSpec& s, int new_tokens, int context_tokens) {
  const int len = new_tokens + context_tokens;
  const int blocks = (len + cuda::kBlockTokens - 1) / cuda::kBlockTokens;
  const std::size_t row = static_cast<std::size_t>(s.kv_heads) * s.head_dim;
  auto k = random_bf16(static_cast<std::size_t>(blocks) * cuda::kBlockTokens * row, next_seed());
  auto v = random_bf16(k.size(), next_seed());
  auto q = random_bf16(static_cast<std::size_t>(new_tokens) * s.q_heads * s.head_dim, next_seed());
  DeviceBuffer<bf16_t> out(q.size());
  auto table = upload(shuffled_block_table(1, blocks, next_seed()));
  auto cu = upload(std::vector<std::int32_t>{0, new_tokens});
  auto lens = upload(std::vector<std::int32_t>{len});
  cuda::PrefillAttentionParams p;
  p.q = q.data();
  p.out = out.data();
  p.k_cache = k.data();
  p.v_cache = v.data();
  p.block_table = table.data();
  p.cu_new_tokens = cu.data();
  p.kv_lens = lens.data();
  p.num_seqs = 1;
  p.max_new_tokens = new_tokens;
  p.q_heads = s.q_heads;
  p.kv_heads = s.kv_heads;
  p.head_dim = s.head_dim;
  p.max_blocks_per_seq = blocks;
  p.scale = 1.0f / std::sqrt(static_cast<float>(s.head_dim));
  return timer_.median_us([&] { LAUNCH_CHECK(cuda::prefill_attention(p, 0)); });
}

Work Bench::decode_work(const ModelSpec& s, int batch, int context_tokens) {
  return {4.0 * batch * context_tokens * s.q_heads * s.head_dim, decode_attention_bytes(s, batch, context_tokens)};
}

double Bench::decode_us(const ModelSpec& s, int batch, int context_tokens) {
  const int per_seq = (context_tokens + cuda::kBlockTokens - 1) / cuda::kBlockTokens;
  const std::size_t row = static_cast<std::size_t>(s.kv_heads) * s.head_dim;
  auto k = random_bf16(static_cast<std::size_t>(batch) * per_seq * cuda::kBlockTokens * row, next_seed());
  auto v = random_bf16(k.size(), next_seed());
  auto q = random_bf16(static_cast<std::size_t>(batch) * s.q_heads * s.head_dim, next_seed());
  DeviceBuffer<bf16_t> out(q.size());
  auto table = upload(shuffled_block_table(batch, per_seq, next_seed()));
  auto lens = upload(std::vector<std::int32_t>(batch, context_tokens));
  const int splits = cuda::decode_attention_default_splits(batch, s.q_heads, s.kv_heads, context_tokens, sm_count_);
  DeviceBuffer<float> ws(cuda::decode_attention_workspace_bytes(batch, s.q_heads, s.head_dim, splits) / sizeof(float));
  cuda::DecodeAttentionParams p;
  p.q = q.data();
  p.out = out.data();
  p.k_cache = k.data();
  p.v_cache = v.data();
  p.block_table = table.data();
  p.context_lens = lens.data();
  p.num_seqs = batch;
  p.max_context_len = context_tokens;
  p.q_heads = s.q_heads;
  p.kv_heads = s.kv_heads;
  p.head_dim = s.head_dim;
  p.max_blocks_per_seq = per_seq;
  p.scale = 1.0f / std::sqrt(static_cast<float>(s.head_dim));
  p.num_splits = splits;
  p.workspace = ws.data();
  p.workspace_bytes = ws.bytes();
  return timer_.median_us([&] { LAUNCH_CHECK(cuda::decode_attention(p, 0)); });
}

Work Bench::elementwise_work(const ModelSpec& s, const std::string& op, int tokens) {
  for (const auto& e : elementwise_ops(s)) {
    if (e.name == op) return {0.0, static_cast<double>(e.bytes_per_token) * tokens};
  }
  throw std::invalid_argument("unknown elementwise op " + op);
}

double Bench::elementwise_us(const ModelSpec& s, const std::string& op, int tokens) {
  const std::size_t t = static_cast<std::size_t>(tokens);
  const std::size_t h = s.hidden_size;
  const std::size_t qd = static_cast<std::size_t>(s.q_heads) * s.head_dim;
  const std::size_t kvd = static_cast<std::size_t>(s.kv_heads) * s.head_dim;
  const std::size_t f = s.ffn_size;
  if (op == "rmsnorm") {
    auto x = random_bf16(t * h, next_seed(), -3, 3);
    auto w = random_bf16(h, next_seed(), 0.5f, 1.5f);
    DeviceBuffer<bf16_t> out(t * h);
    const cuda::RmsNormParams p{x.data(), w.data(), out.data(), tokens, s.hidden_size, 1e-5f};
    return timer_.median_us([&] { LAUNCH_CHECK(cuda::rmsnorm(p, 0)); });
  }
  if (op == "rope") {
    auto q = random_bf16(t * qd, next_seed());
    auto k = random_bf16(t * kvd, next_seed());
    std::vector<std::int32_t> pos(t);
    Rng rng(next_seed());
    for (auto& x : pos) x = rng.uniform_int(0, s.max_context_tokens - 1);
    auto dpos = upload(pos);
    const cuda::RopeParams p{q.data(), k.data(), dpos.data(), tokens, s.q_heads, s.kv_heads, s.head_dim, s.rope_theta};
    return timer_.median_us([&] { LAUNCH_CHECK(cuda::rope(p, 0)); });
  }
  if (op == "silu_and_mul") {
    auto x = random_bf16(t * 2 * f, next_seed(), -4, 4);
    DeviceBuffer<bf16_t> out(t * f);
    const cuda::SiluAndMulParams p{x.data(), out.data(), tokens, s.ffn_size};
    return timer_.median_us([&] { LAUNCH_CHECK(cuda::silu_and_mul(p, 0)); });
  }
  if (op == "gelu") {
    auto x = random_bf16(t * f, next_seed(), -4, 4);
    DeviceBuffer<bf16_t> out(t * f);
    const cuda::GeluParams p{x.data(), out.data(), tokens, s.ffn_size};
    return timer_.median_us([&] { LAUNCH_CHECK(cuda::gelu_tanh(p, 0)); });
  }
  if (op == "residual_add") {
    auto a = random_bf16(t * h, next_seed());
    auto b = random_bf16(t * h, next_seed());
    DeviceBuffer<bf16_t> out(t * h);
    const cuda::ResidualAddParams p{a.data(), b.data(), out.data(), t * h};
    return timer_.median_us([&] { LAUNCH_CHECK(cuda::residual_add(p, 0)); });
  }
  if (op == "kv_cache_write") {
    const int blocks = (tokens + cuda::kBlockTokens - 1) / cuda::kBlockTokens;
    auto k = random_bf16(t * kvd, next_seed());
    auto v = random_bf16(t * kvd, next_seed());
    DeviceBuffer<bf16_t> kc(static_cast<std::size_t>(blocks) * cuda::kBlockTokens * kvd);
    DeviceBuffer<bf16_t> vc(kc.size());
    const auto table = shuffled_block_table(1, blocks, next_seed());
    std::vector<std::int64_t> slots(t);
    for (std::size_t i = 0; i < t; ++i) slots[i] = static_cast<std::int64_t>(table[i / cuda::kBlockTokens]) * cuda::kBlockTokens + static_cast<std::int64_t>(i % cuda::kBlockTokens);
    auto dslots = upload(slots);
    const cuda::KvCacheWriteParams p{k.data(), v.data(), kc.data(), vc.data(), dslots.data(), tokens, s.kv_heads, s.head_dim};
    return timer_.median_us([&] { LAUNCH_CHECK(cuda::kv_cache_write(p, 0)); });
  }
  throw std::invalid_argument("unknown elementwise op " + op);
}

Work Bench::sampling_work(const ModelSpec& s, int rows) { return {0.0, sampling_bytes(s, rows)}; }

double Bench::sampling_us(const ModelSpec& s, int rows, int top_k) {
  const std::size_t n = static_cast<std::size_t>(rows) * s.vocab_size;
  // Logits as a sampler sees them: fp32, uniform in [-8, 8).
  DeviceBuffer<float> logits(n);
  LAUNCH_CHECK(cuda::fill_uniform_f32(logits.data(), n, next_seed(), -8.0f, 8.0f, 0));
  std::vector<float> u(static_cast<std::size_t>(rows));
  Rng rng(next_seed());
  for (auto& x : u) x = static_cast<float>(rng.uniform());
  auto du = upload(u);
  DeviceBuffer<std::int32_t> tokens(static_cast<std::size_t>(rows));
  cuda::SamplingParams p;
  p.logits = logits.data();
  p.uniforms = du.data();
  p.tokens = tokens.data();
  p.rows = rows;
  p.vocab = s.vocab_size;
  p.top_k = top_k;
  p.temperature = 1.0f;
  return timer_.median_us([&] { LAUNCH_CHECK(cuda::sampling(p, 0)); });
}

}  // namespace efimsim::kernels
