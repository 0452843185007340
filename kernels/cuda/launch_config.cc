#include "launch_config.h"

#include <algorithm>
#include <type_traits>

namespace efimsim::kernels::launch {
namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

std::string dim_text(const Dim3& d) {
  std::string s = "(";
  s += std::to_string(d.x);
  s += ", ";
  s += std::to_string(d.y);
  s += ", ";
  s += std::to_string(d.z);
  s += ')';
  return s;
}

// Appends `what` (a string, or a callable that makes one: no allocation on
// the launchers' success path) to err when bad; keeps every violation.
template <class Msg>
void require(std::string& err, bool ok, Msg&& what) {
  if (ok) return;
  if (!err.empty()) err += "; ";
  if constexpr (std::is_invocable_v<Msg>) {
    err += what();
  } else {
    err += what;
  }
}

LaunchConfig config(const char* kernel, Dim3 grid, int threads, std::size_t dynamic_smem, std::size_t static_smem,
                    int launch_bounds) {
  LaunchConfig c;
  c.kernel = kernel;
  c.grid = grid;
  c.block = {static_cast<std::uint64_t>(threads), 1, 1};
  c.dynamic_smem = dynamic_smem;
  c.static_smem = static_smem;
  c.launch_bounds = launch_bounds;
  return c;
}

// Blocks of a grid-stride kernel over `work` items, kThreads per block.
std::uint64_t stride_blocks(std::uint64_t work, int threads, std::uint64_t max_blocks) {
  return std::min<std::uint64_t>(ceil_div(work, static_cast<std::uint64_t>(threads)), max_blocks);
}

}  // namespace

bool launch_fits(const LaunchConfig& c, const DeviceLimits& dev) {
  const std::uint64_t threads = c.block.x * c.block.y * c.block.z;
  return c.grid.x >= 1 && c.grid.y >= 1 && c.grid.z >= 1 && c.grid.x <= dev.max_grid_x && c.grid.y <= dev.max_grid_y &&
         c.grid.z <= dev.max_grid_z && c.block.x >= 1 && c.block.y >= 1 && c.block.z >= 1 &&
         c.block.x <= dev.max_block_x && c.block.y <= dev.max_block_y && c.block.z <= dev.max_block_z &&
         threads <= static_cast<std::uint64_t>(dev.max_threads_per_block) &&
         threads <= static_cast<std::uint64_t>(c.launch_bounds) && (!c.whole_warps || threads % kWarpSize == 0) &&
         c.static_smem <= dev.max_static_smem && c.static_smem + c.dynamic_smem <= dev.max_smem_optin;
}

std::string check_launch(const LaunchConfig& c, const DeviceLimits& dev) {
  std::string err;
  const std::uint64_t threads = c.block.x * c.block.y * c.block.z;
  if (launch_fits(c, dev)) return err;
  require(err, c.grid.x >= 1 && c.grid.y >= 1 && c.grid.z >= 1, "empty grid " + dim_text(c.grid));
  require(err, c.grid.x <= dev.max_grid_x, "grid.x " + std::to_string(c.grid.x) + " > " + std::to_string(dev.max_grid_x));
  require(err, c.grid.y <= dev.max_grid_y, "grid.y " + std::to_string(c.grid.y) + " > " + std::to_string(dev.max_grid_y));
  require(err, c.grid.z <= dev.max_grid_z, "grid.z " + std::to_string(c.grid.z) + " > " + std::to_string(dev.max_grid_z));
  require(err, c.block.x >= 1 && c.block.y >= 1 && c.block.z >= 1, "empty block " + dim_text(c.block));
  require(err, c.block.x <= dev.max_block_x && c.block.y <= dev.max_block_y && c.block.z <= dev.max_block_z,
          "block " + dim_text(c.block) + " beyond the per-dimension limits");
  require(err, threads <= static_cast<std::uint64_t>(dev.max_threads_per_block),
          std::to_string(threads) + " threads per block > " + std::to_string(dev.max_threads_per_block));
  require(err, threads <= static_cast<std::uint64_t>(c.launch_bounds),
          std::to_string(threads) + " threads per block > the kernel's __launch_bounds__ " +
              std::to_string(c.launch_bounds));
  require(err, !c.whole_warps || threads % kWarpSize == 0,
          std::to_string(threads) + " threads per block is not a whole number of warps");
  require(err, c.static_smem <= dev.max_static_smem,
          "static shared memory " + std::to_string(c.static_smem) + " B > " + std::to_string(dev.max_static_smem));
  require(err, c.static_smem + c.dynamic_smem <= dev.max_smem_optin,
          "shared memory " + std::to_string(c.static_smem + c.dynamic_smem) + " B per block > the opt-in limit " +
              std::to_string(dev.max_smem_optin));
  if (!err.empty()) err = std::string(c.kernel) + " grid " + dim_text(c.grid) + " block " + dim_text(c.block) +
                          " smem " + std::to_string(c.dynamic_smem) + "+" + std::to_string(c.static_smem) + " on " +
                          dev.name + ": " + err;
  return err;
}

void LaunchPlan::add(const LaunchConfig& c) {
  if (!ok()) return;
  if (!launch_fits(c, kMinSupported)) {
    error = check_launch(c, kMinSupported);
    count = 0;
    return;
  }
  launches[static_cast<std::size_t>(count++)] = c;
}

std::string check_plan(const LaunchPlan& p, const DeviceLimits& dev) {
  if (!p.ok()) return "unsupported shape: " + p.error;
  std::string err;
  for (int i = 0; i < p.count; ++i) {
    const std::string e = check_launch(p.launches[static_cast<std::size_t>(i)], dev);
    if (!e.empty()) require(err, false, e);
  }
  return err;
}

LaunchPlan prefill_attention_plan(const PrefillShape& s) {
  LaunchPlan p;
  require(p.error, s.head_dim == 64 || s.head_dim == 128, "prefill_attention: head_dim must be 64 or 128");
  require(p.error, s.q_heads > 0 && s.kv_heads > 0 && s.q_heads % s.kv_heads == 0,
          "prefill_attention: q_heads must be a positive multiple of kv_heads");
  require(p.error, s.block_tokens == kBlockTokens, "prefill_attention: block_tokens must be 16");
  require(p.error, s.num_seqs >= 0 && s.max_new_tokens >= 0 && s.max_blocks_per_seq > 0,
          "prefill_attention: num_seqs >= 0, max_new_tokens >= 0, max_blocks_per_seq > 0");
  require(p.error, s.max_new_tokens <= 2147483647ll && s.max_blocks_per_seq <= 2147483647ll,
          "prefill_attention: token counts must fit an int");
  if (!p.ok() || s.num_seqs == 0 || s.max_new_tokens == 0) return p;
  using namespace prefill;
  const int d = static_cast<int>(s.head_dim);
  p.add(config("prefill_attention_kernel",
               {ceil_div(static_cast<std::uint64_t>(s.max_new_tokens), kBM), static_cast<std::uint64_t>(s.q_heads),
                static_cast<std::uint64_t>(s.num_seqs)},
               kThreads, smem_bytes(d), 0, kThreads));
  return p;
}

DecodePlan decode_attention_plan(const DecodeShape& s) {
  DecodePlan p;
  require(p.error, s.head_dim == 64 || s.head_dim == 128, "decode_attention: head_dim must be 64 or 128");
  require(p.error, s.q_heads > 0 && s.kv_heads > 0 && s.q_heads % s.kv_heads == 0,
          "decode_attention: q_heads must be a positive multiple of kv_heads");
  require(p.error, s.q_heads <= 2147483647ll, "decode_attention: q_heads must fit an int");
  require(p.error, s.block_tokens == kBlockTokens, "decode_attention: block_tokens must be 16");
  require(p.error, s.num_seqs >= 0 && s.max_context_len >= 0 && s.max_blocks_per_seq > 0,
          "decode_attention: num_seqs >= 0, max_context_len >= 0, max_blocks_per_seq > 0");
  require(p.error, s.max_context_len <= 2147483647ll, "decode_attention: max_context_len must fit an int");
  require(p.error, s.num_splits >= 1 && s.num_splits <= decode::kMaxSplits,
          [] { return "decode_attention: num_splits must be 1.." + std::to_string(decode::kMaxSplits); });
  if (!p.ok()) return p;
  const long long group = s.q_heads / s.kv_heads;
  require(p.error, group <= decode::kMaxGroup,
          [] { return "decode_attention: q_heads / kv_heads must be <= " + std::to_string(decode::kMaxGroup); });
  if (!p.ok()) return p;
  p.group = static_cast<int>(group);
  p.tensor_cores = decode::uses_tensor_cores(p.group);
  p.heads_per_cta = decode::heads_per_cta(p.group);
  p.ctas_per_group = p.group / p.heads_per_cta;
  const long long per_split = (std::max(s.max_context_len, 1ll) + s.num_splits - 1) / s.num_splits;
  p.keys_per_split = static_cast<int>((per_split + decode::kTile - 1) / decode::kTile * decode::kTile);
  if (s.num_seqs == 0) return p;
  using namespace decode;
  const int d = static_cast<int>(s.head_dim);
  p.add(config(p.tensor_cores ? "decode_attention_mma_kernel" : "decode_attention_kernel",
               {static_cast<std::uint64_t>(s.num_splits), static_cast<std::uint64_t>(s.kv_heads) * p.ctas_per_group,
                static_cast<std::uint64_t>(s.num_seqs)},
               kThreads, p.tensor_cores ? mma_smem_bytes(d) : smem_bytes(d, p.heads_per_cta), 0, kThreads));
  if (s.num_splits > 1) {
    // One CTA per (q head, sequence), one thread per output column.
    p.add(config("decode_combine_kernel",
                 {static_cast<std::uint64_t>(s.q_heads), static_cast<std::uint64_t>(s.num_seqs), 1}, d, 0, 0, 1024));
  }
  return p;
}

int decode_default_splits(long long num_seqs, long long q_heads, long long kv_heads, long long max_context_len,
                          int sm_count) {
  if (num_seqs <= 0 || kv_heads <= 0 || q_heads <= 0 || q_heads % kv_heads != 0) return 1;
  const int group = static_cast<int>(std::min<long long>(q_heads / kv_heads, decode::kMaxGroup));
  const long long ctas = num_seqs * kv_heads * (group / decode::heads_per_cta(group));
  const long long target = 2ll * sm_count;
  if (ctas >= target) return 1;
  const long long by_occupancy = (target + ctas - 1) / ctas;
  const long long by_length = std::max(1ll, (max_context_len + 255) / 256);
  return static_cast<int>(std::min<long long>({by_occupancy, by_length, decode::kMaxSplits}));
}

LaunchPlan rmsnorm_plan(long long tokens, long long hidden) {
  LaunchPlan p;
  require(p.error, tokens >= 0 && hidden > 0 && hidden % 8 == 0, "rmsnorm: tokens >= 0, hidden a positive multiple of 8");
  require(p.error, hidden <= 2147483647ll, "rmsnorm: hidden must fit an int");
  if (!p.ok() || tokens == 0) return p;
  using namespace rmsnorm;
  p.add(config("rmsnorm_kernel", {static_cast<std::uint64_t>(tokens), 1, 1}, kThreads, 0, kStaticSmem, kThreads));
  return p;
}

LaunchPlan rope_plan(long long tokens, long long q_heads, long long kv_heads, long long head_dim) {
  LaunchPlan p;
  require(p.error, tokens >= 0 && q_heads > 0 && kv_heads > 0, "rope: tokens >= 0, q_heads > 0, kv_heads > 0");
  require(p.error, head_dim > 0 && head_dim % 2 == 0 && head_dim <= rope::kMaxHeadDim,
          [] { return "rope: head_dim must be even and <= " + std::to_string(rope::kMaxHeadDim); });
  if (!p.ok() || tokens == 0) return p;
  using namespace rope;
  p.add(config("rope_kernel", {static_cast<std::uint64_t>(tokens), 1, 1}, kThreads, 0, kStaticSmem, kThreads));
  return p;
}

namespace {
LaunchPlan chunked_plan(const char* kernel, long long tokens, long long ffn) {
  LaunchPlan p;
  require(p.error, tokens >= 0 && ffn > 0 && ffn % 8 == 0,
          [&] { return std::string(kernel) + ": tokens >= 0, ffn a positive multiple of 8"; });
  require(p.error, ffn <= 2147483647ll, [&] { return std::string(kernel) + ": ffn must fit an int"; });
  const std::uint64_t chunks = p.ok() ? static_cast<std::uint64_t>(ffn) / 8 * static_cast<std::uint64_t>(tokens) : 0;
  if (!p.ok() || chunks == 0) return p;
  using namespace pointwise;
  p.add(config(kernel, {stride_blocks(chunks, kThreads, kMaxBlocks), 1, 1}, kThreads, 0, 0, kThreads));
  return p;
}
}  // namespace

LaunchPlan silu_and_mul_plan(long long tokens, long long ffn) { return chunked_plan("silu_and_mul_kernel", tokens, ffn); }
LaunchPlan gelu_plan(long long tokens, long long ffn) { return chunked_plan("gelu_tanh_kernel", tokens, ffn); }

LaunchPlan residual_add_plan(unsigned long long n, bool vectorized) {
  LaunchPlan p;
  if (n == 0) return p;
  using namespace pointwise;
  const std::uint64_t work = vectorized ? ceil_div(n, 8) : n;
  p.add(config("residual_add_kernel", {stride_blocks(work, kThreads, kMaxBlocks), 1, 1}, kThreads, 0, 0, kThreads));
  return p;
}

LaunchPlan kv_cache_write_plan(long long tokens, long long kv_heads, long long head_dim) {
  LaunchPlan p;
  require(p.error, tokens >= 0 && kv_heads > 0 && head_dim > 0 && head_dim % 8 == 0,
          "kv_cache_write: tokens >= 0, kv_heads > 0, head_dim a positive multiple of 8");
  if (!p.ok() || tokens == 0) return p;
  using namespace kv_cache_write;
  p.add(config("kv_cache_write_kernel", {static_cast<std::uint64_t>(tokens), 1, 1}, kThreads, 0, 0, kThreads));
  return p;
}

LaunchPlan sampling_plan(long long rows, long long vocab, long long top_k) {
  LaunchPlan p;
  require(p.error, rows >= 0 && vocab > 0 && vocab <= 2147483647ll, "sampling: rows >= 0, 0 < vocab < 2^31");
  require(p.error, top_k >= 1 && top_k <= sampling::kMaxTopK && top_k <= vocab,
          [] { return "sampling: top_k must be 1.." + std::to_string(sampling::kMaxTopK) + " and <= vocab"; });
  if (!p.ok() || rows == 0) return p;
  using namespace sampling;
  p.add(config(capacity(static_cast<int>(top_k)) == 1 ? "sampling_kernel<1>" : "sampling_kernel<64>",
               {static_cast<std::uint64_t>(rows), 1, 1}, kThreads, 0, kStaticSmem, kThreads));
  return p;
}

LaunchPlan fill_plan(unsigned long long n) {
  LaunchPlan p;
  if (n == 0) return p;
  using namespace fill;
  p.add(config("fill_kernel", {stride_blocks(n, kThreads, kMaxBlocks), 1, 1}, kThreads, 0, 0, kThreads));
  return p;
}

LaunchPlan spin_plan() {
  LaunchPlan p;
  LaunchConfig c = config("spin_kernel", {1, 1, 1}, 1, 0, 0, 1024);
  c.whole_warps = false;  // one thread that sleeps; no shuffles
  p.add(c);
  return p;
}

}  // namespace efimsim::kernels::launch
