#include "models/import/profile_import.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "models/latency/latency_validation.h"
#include "models/latency/profile_latency_model.h"
#include "models/latency/operator_work.h"
#include "models/latency/step_latency_model.h"
#include "sim/base/errors.h"

namespace efimsim {
// Shared with the other importers (models/import/profile_import_detail.h).
namespace profile_import_detail {

std::string Str(double value, const char* format = "%.3g") {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

// ---- Shapes.

// GemmId of the reference's op names.
GemmId ReferenceGemmId(const std::string& op) {
  if (op == "qkv") return GemmId::kQkvProj;
  if (op == "o") return GemmId::kOProj;
  if (op == "gate_up") return GemmId::kGateUpProj;
  if (op == "down") return GemmId::kDownProj;
  return GemmId::kLmHead;
}

// Refuses a source whose measured shape figure is not the model's, naming
// both: "<measured> <what> <source value>, model M has <spec value>".
void RequireModelShape(const std::string& origin, int64_t line, const std::string& field,
                       const std::string& measured, const std::string& what, int64_t source,
                       int64_t spec, const ModelSpec& model) {
  if (source == spec) return;
  throw InputError(origin, line, field,
                   measured + " " + what + " " + std::to_string(source) + ", model " + model.name +
                       " has " + std::to_string(spec) + ": these timings are not for this model's shapes");
}

void CheckReferenceShapes(const ReferenceOps& ops, const ModelSpec& model, const GpuSpec& gpu) {
  const auto require = [&](const std::string& field, int64_t source, int64_t spec) {
    RequireModelShape(ops.origin, 0, "config." + field, "the source measured", field, source, spec, model);
  };
  require("hidden", ops.hidden, model.hidden_size);
  require("layers", ops.layers, model.layers);
  require("heads", ops.heads, model.q_heads);
  require("kv_heads", ops.kv_heads, model.kv_heads);
  require("head_dim", ops.head_dim, model.head_dim);
  require("inter", ops.inter, model.ffn_size);
  require("vocab", ops.vocab, model.vocab_size);
  if (model.mlp != MlpKind::kGated) {
    throw InputError(ops.origin, 0, "config",
                     "the reference runs a gated (SiLU-and-mul) MLP; model " + model.name + " does not");
  }
  if (gpu.description.rfind(ops.device, 0) != 0) {
    throw InputError(ops.origin, 0, "device.device",
                     "measured on \"" + ops.device + "\", but GPU " + gpu.name + " is \"" +
                         gpu.description + "\"");
  }
  const ShardShapes full = ShardModel(model, 1);
  for (size_t i = 0; i < ops.gemm.size(); ++i) {
    const ReferenceGemmRow& row = ops.gemm[i];
    const GemmShape shape = GemmShapeOf(full, ReferenceGemmId(row.op));
    if (row.n != shape.n || row.k != shape.k) {
      throw InputError(ops.origin, 0, "ops.gemm[" + std::to_string(i) + "]",
                       row.op + " is K=" + std::to_string(row.k) + " x N=" + std::to_string(row.n) +
                           ", model " + model.name + "'s " + std::string(GemmName(ReferenceGemmId(row.op))) +
                           " is K=" + std::to_string(shape.k) + " x N=" + std::to_string(shape.n));
    }
  }
}

// ---- Small numerics.

// Least-squares line y = a + b x; returns a (the intercept).
double Intercept(const std::vector<std::pair<double, double>>& xy) {
  if (xy.size() < 2) return 0;
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& [x, y] : xy) {
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  const double n = static_cast<double>(xy.size());
  const double denominator = n * sxx - sx * sx;
  if (denominator == 0) return 0;
  const double b = (n * sxy - sx * sy) / denominator;
  return (sy - b * sx) / n;
}

double RooflineUs(const OperatorWork& work, double tflops, double tbps) {
  return std::max(work.flops / (tflops * 1e6), work.bytes / (tbps * 1e6));
}

// The held-out error of predicting the middle of three points from the
// outer two, by linear and by log-log interpolation (key offsets as the
// profile tables use them).
void HoldOut(double k0, double y0, double k1, double y1, double k2, double y2, double offset,
             std::vector<double>& linear, std::vector<double>& loglog) {
  const double t = (k1 - k0) / (k2 - k0);
  linear.push_back(std::abs(y0 + t * (y2 - y0) - y1) / y1);
  const double u = (std::log(k1 + offset) - std::log(k0 + offset)) /
                   (std::log(k2 + offset) - std::log(k0 + offset));
  loglog.push_back(std::abs(std::exp(std::log(y0) + u * (std::log(y2) - std::log(y0))) - y1) / y1);
}

// Held-out errors along every row of a keyed table: `curves` maps a row key
// to its (key, time) points, sorted.
void HoldOutCurves(const std::map<int64_t, std::vector<std::pair<int64_t, double>>>& curves,
                   double offset, std::vector<double>& linear, std::vector<double>& loglog) {
  for (const auto& [row, points] : curves) {
    for (size_t i = 1; i + 1 < points.size(); ++i) {
      HoldOut(static_cast<double>(points[i - 1].first), points[i - 1].second,
              static_cast<double>(points[i].first), points[i].second,
              static_cast<double>(points[i + 1].first), points[i + 1].second, offset, linear, loglog);
    }
  }
}

InterpolationErrors Summarize(const std::string& table, const std::vector<double>& linear,
                              const std::vector<double>& loglog, const std::vector<double>& noise) {
  InterpolationErrors e;
  e.table = table;
  e.points = static_cast<int64_t>(linear.size());
  if (!linear.empty()) {
    e.linear_median = Quantile(linear, 0.5);
    e.linear_p90 = Quantile(linear, 0.9);
    e.loglog_median = Quantile(loglog, 0.5);
    e.loglog_p90 = Quantile(loglog, 0.9);
  }
  if (!noise.empty()) e.run_to_run_median = Quantile(noise, 0.5);
  return e;
}

Interpolation Choose(const ImportSettings& settings, const std::vector<double>& linear,
                     const std::vector<double>& loglog) {
  if (settings.interpolation == "linear") return Interpolation::kLinear;
  if (settings.interpolation == "log-log") return Interpolation::kLogLog;
  if (settings.interpolation != "auto") {
    throw UsageError("--interpolation: expected auto, linear or log-log");
  }
  if (linear.empty()) return Interpolation::kLinear;
  return Quantile(linear, 0.5) <= Quantile(loglog, 0.5) ? Interpolation::kLinear
                                                        : Interpolation::kLogLog;
}

// The token counts at which modelled and resampled 1-key tables are written.
std::vector<int64_t> PowerOfTwoTokens() {
  std::vector<int64_t> tokens;
  for (int64_t t = 1; t <= 16384; t *= 2) tokens.push_back(t);
  return tokens;
}

// ---- The reference's unfused elementwise ops (measure.py's Model.forward).

// Microseconds of one layer's kernels of `op` over `tokens` rows: each
// kernel costs max(floor, bytes / bandwidth). Kernel lists, with S_W the
// bytes of a [tokens, W] bf16 tensor:
//   rmsnorm       F.rms_norm (one fused kernel): read + write S_H
//   rope          21 small kernels on [tokens, head_dim/2] tables (positions,
//                 inverse frequencies, cos, sin, casts) plus, for q (W = Q)
//                 and for k (W = KV): four products of a half with cos/sin
//                 (S_W each: half read, half written), a difference and a sum
//                 (1.5 S_W each), and the stack of the two halves (2 S_W)
//   kv_cache_write  the K and V copies into the cache (2 S_KV each) and the
//                 attention output's transpose copy (2 S_Q)
//   residual_add  h + x: 3 S_H
//   silu_and_mul  silu of the gate half (2 S_F) and its product with the up
//                 half (3 S_F)
// Not represented (the step model keys elementwise tables by tokens only):
// per-sequence repeats of the small RoPE kernels in batched prefill, the
// concatenation of several sequences' attention outputs, the embedding
// gather, and the last-token gather before lm_head.
double ReferenceElementwiseUs(ElementwiseId op, double tokens, const ShardShapes& s,
                              const ElementwiseRates& rates) {
  const double bytes_per_us = rates.tbps * 1e6;
  const auto kernel = [&](double bytes) { return std::max(rates.floor_us, bytes / bytes_per_us); };
  const double dtype = static_cast<double>(s.dtype_bytes);
  const double sh = tokens * static_cast<double>(s.hidden) * dtype;
  const double sq = tokens * static_cast<double>(s.QWidth()) * dtype;
  const double skv = tokens * static_cast<double>(s.KvWidth()) * dtype;
  const double sf = tokens * static_cast<double>(s.ffn) * dtype;
  switch (op) {
    case ElementwiseId::kRmsnorm: return kernel(2 * sh);
    case ElementwiseId::kRope: {
      double us = 21 * rates.floor_us;
      for (const double sw : {sq, skv}) us += 4 * kernel(sw) + 2 * kernel(1.5 * sw) + kernel(2 * sw);
      return us;
    }
    case ElementwiseId::kKvCacheWrite: return 2 * kernel(2 * skv) + kernel(2 * sq);
    case ElementwiseId::kResidualAdd: return kernel(3 * sh);
    case ElementwiseId::kActivation: return kernel(2 * sf) + kernel(3 * sf);
    case ElementwiseId::kSampling: break;
  }
  return 0;
}

std::vector<AllReduceTable> ImportAllReduce(const VidurAllReduceTable& table, const ModelSpec& model,
                                            ImportReport& report) {
  // Key: tokens of the hidden state (fp16/bf16), the message size rounded
  // down to whole tokens; per key the smallest measured message. Above 64
  // tokens only multiples of 64 are kept (Vidur measures every token there;
  // the time is linear in bytes, so the thinned table interpolates to within
  // its noise and keeps the built-in profile small).
  const int64_t bytes_per_token = model.hidden_size * model.dtype_bytes;
  std::map<int64_t, std::map<int64_t, std::pair<int64_t, double>>> by_tp;  // tp -> tokens -> (size, ms)
  for (const VidurAllReduceRow& row : table.rows) {
    if (row.size_bytes < bytes_per_token) continue;
    const int64_t tokens = row.size_bytes / bytes_per_token;
    if (tokens > 64 && tokens % 64 != 0) continue;
    auto& slot = by_tp[row.num_workers];
    const auto it = slot.find(tokens);
    if (it == slot.end() || std::tie(row.size_bytes, row.median_ms) < std::tie(it->second.first, it->second.second)) {
      slot[tokens] = {row.size_bytes, row.median_ms};
    }
  }
  std::vector<AllReduceTable> out;
  for (const auto& [tp, points] : by_tp) {
    if (tp != 2 && tp != 4 && tp != 8) continue;
    AllReduceTable t;
    t.tensor_parallel = tp;
    for (const auto& [tokens, value] : points) t.points.push_back({tokens, value.second * 1000.0});
    report.notes.push_back("all-reduce TP=" + std::to_string(tp) + ": " + std::to_string(t.points.size()) +
                           " sizes from " + table.origin + " (message bytes rounded down to whole tokens)");
    out.push_back(std::move(t));
  }
  return out;
}

// Checks that a Vidur file path's compute/<gpu>/ folder, if it has one,
// names the GPU it is imported for.
void CheckVidurGpu(const std::string& origin, const GpuSpec& gpu) {
  const size_t at = origin.find("compute/");
  if (at == std::string::npos) return;
  const size_t start = at + 8;
  const size_t end = origin.find('/', start);
  if (end == std::string::npos) return;
  const std::string folder = origin.substr(start, end - start);
  if (gpu.name.rfind(folder, 0) != 0) {
    throw InputError(origin, 0, "",
                     "Vidur profiled this on \"" + folder + "\", not GPU " + gpu.name);
  }
}

// The attention tables' shapes (the model's; 16-token blocks), with or
// without points.
void SetAttentionShapes(KernelProfile& profile, const ModelSpec& model) {
  for (AttentionTable* table : {&profile.prefill_attention, &profile.decode_attention}) {
    table->q_heads = model.q_heads;
    table->kv_heads = model.kv_heads;
    table->head_dim = model.head_dim;
    table->block_tokens = 16;
  }
}

// What every import ends with: the optional all-reduce tables, the source,
// and host overheads left at the simulator's defaults (GPU timings say
// nothing about an engine's host time).
void Finish(KernelProfile& profile, ProfileSource source,
            const std::optional<VidurAllReduceTable>& all_reduce, const ModelSpec& model,
            ImportReport& report) {
  if (all_reduce) {
    profile.all_reduce = ImportAllReduce(*all_reduce, model, report);
    source.files.push_back(ProfileSourceFile{all_reduce->origin, all_reduce->sha256});
  }
  profile.source = std::move(source);
  profile.cpu_overhead = DefaultProfileCpuOverhead();
}

}  // namespace profile_import_detail
using namespace profile_import_detail;

ElementwiseRates ElementwiseRatesFromVidur(const VidurMlpTable& table) {
  double bytes = 0, seconds = 0;
  std::vector<double> small_add_us;
  for (const VidurMlpRow& row : table.rows) {
    if (row.tensor_parallel != 1) continue;
    const double t = static_cast<double>(row.num_tokens);
    const double h = static_cast<double>(row.n_embd);
    const double q = h;  // q heads x head dim = the hidden size in these models
    const double kv = h * static_cast<double>(row.n_kv_head) / static_cast<double>(row.n_head);
    const double f = static_cast<double>(row.n_expanded_embd);
    if (row.num_tokens <= 64) small_add_us.push_back(row.add_ms * 1000.0);
    if (row.num_tokens < 512) continue;
    // fp16 bytes read + written: norm (x -> y), rotary in place on q and k,
    // SiLU-and-mul ([t, 2f] -> [t, f]), residual add (two in, one out).
    bytes += 2.0 * (2 * t * h + 2 * t * h + 2 * t * (q + kv) + 3 * t * f + 3 * t * h);
    seconds += (row.input_norm_ms + row.post_norm_ms + row.rope_ms + row.act_ms + row.add_ms) * 1e-3;
  }
  if (seconds <= 0 || small_add_us.empty()) {
    throw InputError(table.origin, 0, "",
                     "needs TP=1 rows at >= 512 and <= 64 tokens to derive elementwise rates");
  }
  ElementwiseRates rates;
  rates.tbps = bytes / seconds / 1e12;
  rates.floor_us = Quantile(small_add_us, 0.5);
  rates.origin = table.origin;
  rates.sha256 = table.sha256;
  return rates;
}

// The GEMMs' eager dispatch gap: the median of (reference eager time -
// graph time) over the (op, M <= 64) points whose shape `graph` measured.
double GapFromGraphTimings(const GraphGemmTimings& graph,
                           const std::map<std::pair<std::string, int64_t>, double>& gemm_us,
                           const ShardShapes& full, ImportReport& report) {
  std::vector<double> gaps;
  for (const auto& [key, us] : gemm_us) {
    if (key.second > 64) continue;
    const GemmShape shape = GemmShapeOf(full, ReferenceGemmId(key.first));
    const auto it = graph.us.find(std::tuple(key.second, shape.n, shape.k));
    if (it != graph.us.end()) gaps.push_back(us - it->second);
  }
  if (gaps.size() < 3) {
    throw InputError(graph.origin, 0, "m",
                     "measures " + std::to_string(gaps.size()) +
                         " of the reference's GEMM points at M <= 64: too few to estimate the dispatch gap");
  }
  const double gap = std::max(0.0, Quantile(gaps, 0.5));
  report.notes.push_back("GEMM dispatch gap " + Str(gap, "%.1f") + " us: median of eager reference minus " +
                         "CUDA-graph time over " + std::to_string(gaps.size()) + " shared points at M <= 64 (" +
                         graph.origin + ")");
  return gap;
}

ElementwiseRates CarryElementwiseRates(ElementwiseRates rates, const ReferenceOps& source,
                                       const std::vector<ReferenceOps>& target) {
  double target_tbps = 0;
  for (const ReferenceOps& run : target) target_tbps = std::max(target_tbps, run.copy_tbps);
  if (!(source.copy_tbps > 0) || !(target_tbps > 0)) {
    throw InputError(source.origin, 0, "device.ceilings.d2d_copy_tb_s",
                     "carrying elementwise rates needs both GPUs' measured copy bandwidth");
  }
  const double scale = target_tbps / source.copy_tbps;
  rates.carried = "measured on " + source.device + ", carried to this GPU: bandwidth x " + Str(scale, "%.3f") +
                  " (measured copy bandwidth " + Str(target_tbps, "%.2f") + " / " + Str(source.copy_tbps, "%.2f") +
                  " TB/s, " + source.origin + "), small-kernel floor kept";
  rates.tbps *= scale;
  rates.carried_by = ProfileSourceFile{source.origin, source.sha256};
  return rates;
}

namespace {

// The reference runs combined point by point: the minimum of the medians.
struct CombinedRuns {
  std::map<std::pair<std::string, int64_t>, double> gemm_us;    // (op, m) -> us
  std::map<std::tuple<bool, int64_t, int64_t>, double> attn_us;  // (prefill, rows, keys) -> us
  std::vector<double> noise;  // (max - min) / min of each point measured by two runs or more
};

// Combine runs: the minimum of the medians, point by point.
CombinedRuns CombineRuns(const std::vector<ReferenceOps>& runs) {
  std::map<std::pair<std::string, int64_t>, std::vector<double>> gemm_ms;   // (op, m)
  std::map<std::tuple<bool, int64_t, int64_t>, std::vector<double>> attn_ms;  // (prefill, rows, keys)
  for (const ReferenceOps& run : runs) {
    for (const ReferenceGemmRow& row : run.gemm) gemm_ms[{row.op, row.m}].push_back(row.median_ms);
    for (const ReferenceAttentionRow& row : run.attention) {
      attn_ms[{row.prefill, row.rows, row.keys}].push_back(row.median_ms);
    }
  }
  CombinedRuns out;
  const auto combined_us = [&](const std::vector<double>& values) {
    if (values.size() >= 2) {
      const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
      out.noise.push_back((*hi - *lo) / *lo);
    }
    return *std::min_element(values.begin(), values.end()) * 1000.0;
  };
  for (const auto& [key, values] : gemm_ms) out.gemm_us[key] = combined_us(values);
  for (const auto& [key, values] : attn_ms) out.attn_us[key] = combined_us(values);
  return out;
}

// How a measured eager time becomes an in-graph kernel time.
struct InGraph {
  double tflops = 0, tbps = 0;  // the runs' measured ceilings (the highest of the runs)
  double gemm_gap_us = 0, attention_gap_us = 0;  // eager dispatch gaps

  // In-graph kernel time: measured minus the gap, never below the roofline.
  double KernelUs(double measured_us, double gap_us, const OperatorWork& work) const {
    return std::max(measured_us - gap_us, RooflineUs(work, tflops, tbps));
  }
  double GemmUs(double measured_us, const OperatorWork& work) const {
    return KernelUs(measured_us, gemm_gap_us, work);
  }
  double AttentionUs(double measured_us, const OperatorWork& work) const {
    return KernelUs(measured_us, attention_gap_us, work);
  }
};

// The eager dispatch gaps into `in_graph`, and the notes that say how the
// runs were combined and the gaps found.
void EstimateDispatchGaps(const CombinedRuns& combined, const ShardShapes& full,
                          const ImportSettings& settings, InGraph& in_graph, ImportReport& report) {
  const double run_noise = combined.noise.empty() ? 0 : Quantile(combined.noise, 0.5);
  // The eager dispatch gap: intercept of time over bytes on memory-bound points.
  std::vector<std::pair<double, double>> gemm_xy, decode_xy;
  for (const auto& [key, us] : combined.gemm_us) {
    if (key.second <= 64) {
      gemm_xy.emplace_back(GemmWork(full, ReferenceGemmId(key.first), static_cast<double>(key.second)).bytes, us);
    }
  }
  for (const auto& [key, us] : combined.attn_us) {
    if (!std::get<0>(key)) {
      decode_xy.emplace_back(DecodeAttentionWork(full, static_cast<double>(std::get<1>(key)),
                                                 static_cast<double>(std::get<2>(key) - 1)).bytes, us);
    }
  }
  in_graph.gemm_gap_us = settings.dispatch_gap_from
                             ? GapFromGraphTimings(*settings.dispatch_gap_from, combined.gemm_us, full, report)
                             : std::max(0.0, Intercept(gemm_xy));
  in_graph.attention_gap_us = std::max(0.0, Intercept(decode_xy));
  report.notes.push_back("runs combined by the minimum of their medians; median run-to-run spread " +
                         Str(100 * run_noise, "%.1f") + "%");
  report.notes.push_back("eager dispatch gap subtracted: GEMMs " + Str(in_graph.gemm_gap_us, "%.1f") +
                         " us, attention " + Str(in_graph.attention_gap_us, "%.1f") +
                         " us (" + (settings.dispatch_gap_from ? "GEMMs: eager minus graph timings; attention: the "
                                                                  "intercept of time over bytes on decode points"
                                                                : "intercepts of time over bytes at M <= 64 and over "
                                                                  "decode points") + ")");
}

// The profile's names and provenance, from the first run.
KernelProfile NewReferenceProfile(const ReferenceOps& first, const ModelSpec& model, const GpuSpec& gpu,
                                  const ImportSettings& settings, bool modelled_elementwise) {
  KernelProfile profile;
  profile.gpu = gpu.name;
  profile.model = model.name;
  profile.command = settings.command;
  profile.gemm_kernel = "cuBLAS via torch.matmul (x @ W, bf16; PyTorch " + first.torch_version + ")";
  profile.prefill_attention_kernel = "torch SDPA (flash), causal lower-right mask, contiguous K/V";
  profile.decode_attention_kernel = "torch SDPA, padded contiguous [batch, kv_heads, context, head_dim]";
  profile.elementwise_kernel = modelled_elementwise ? "unfused PyTorch ops, modelled kernel by kernel (not measured)"
                                                    : "none (no elementwise tables: roofline)";
  profile.provenance.gpu_name = first.device;
  profile.provenance.sm_count = first.sm_count;
  profile.provenance.driver_version = "not recorded by the source";
  profile.provenance.cuda_runtime_version = "PyTorch " + first.torch_version;
  profile.provenance.git_commit = "n/a: measured by the source's measure.py, not efimsim's harness";
  profile.provenance.date_utc = settings.measured_on;
  return profile;
}

// The source's description and its files: the runs, then the graph timings
// and the elementwise rates' files where used.
ProfileSource DescribeReferenceSource(const std::vector<ReferenceOps>& runs, const ImportSettings& settings,
                                      const InGraph& in_graph, const std::optional<ElementwiseRates>& rates) {
  const ReferenceOps& first = runs.front();
  ProfileSource source;
  source.kind = "pytorch-reference";
  source.stack = "PyTorch " + first.torch_version + " on " + first.device +
                 ": cuBLAS GEMMs as x @ W with row-major bf16 weights, SDPA flash attention, unfused "
                 "elementwise ops; its forward steps ran as CUDA graphs";
  source.method = "GEMM and attention: per point the minimum over " + std::to_string(runs.size()) +
                  " runs of the median of 20 timed eager calls, minus the eager dispatch gap (GEMMs " +
                  Str(in_graph.gemm_gap_us, "%.1f") + " us, attention " + Str(in_graph.attention_gap_us, "%.1f") +
                  " us: " +
                  (settings.dispatch_gap_from
                       ? "GEMMs: the median of eager minus CUDA-graph times of the same shapes on the same GPU "
                         "(" + settings.dispatch_gap_from->origin + "); attention: the intercept of time over "
                         "bytes on the decode points"
                       : std::string("intercepts of time over bytes on the memory-bound points")) +
                  "), never below the "
                  "roofline at the run's measured ceilings (" + Str(in_graph.tflops, "%.0f") + " TFLOP/s, " +
                  Str(in_graph.tbps, "%.2f") + " TB/s); decode context = keys - 1";
  if (rates) {
    source.method += "; elementwise tables modelled from measure.py's unfused ops, each kernel max(" +
                     Str(rates->floor_us, "%.2f") + " us, bytes / " + Str(rates->tbps, "%.2f") +
                     " TB/s), rates from Vidur's measured kernels " +
                     (rates->carried.empty() ? "on the same GPU (" + rates->origin + ")"
                                             : "(" + rates->origin + ") " + rates->carried);
  }
  for (const ReferenceOps& run : runs) source.files.push_back(ProfileSourceFile{run.origin, run.sha256});
  if (settings.dispatch_gap_from) {
    source.files.push_back(ProfileSourceFile{settings.dispatch_gap_from->origin, settings.dispatch_gap_from->sha256});
  }
  if (rates) {
    source.files.push_back(ProfileSourceFile{rates->origin, rates->sha256});
    if (rates->carried_by) source.files.push_back(*rates->carried_by);
  }
  return source;
}

// The combined points as in-graph tables: GEMMs that have points, and
// attention (decode context = keys - 1).
void AddReferenceTables(const CombinedRuns& combined, const ShardShapes& full, const InGraph& in_graph,
                        const ModelSpec& model, KernelProfile& profile) {
  for (int g = 0; g < kGemmCount; ++g) {
    const GemmId id = static_cast<GemmId>(g);
    GemmTable table;
    table.name = GemmName(id);
    const GemmShape shape = GemmShapeOf(full, id);
    table.n = shape.n;
    table.k = shape.k;
    for (const auto& [key, us] : combined.gemm_us) {
      if (ReferenceGemmId(key.first) != id) continue;
      table.points.push_back({key.second, in_graph.GemmUs(us, GemmWork(full, id, static_cast<double>(key.second)))});
    }
    if (!table.points.empty()) profile.gemm.push_back(std::move(table));
  }
  SetAttentionShapes(profile, model);
  for (const auto& [key, us] : combined.attn_us) {
    const auto [prefill, rows, keys] = key;
    if (prefill) {
      const OperatorWork work = PrefillAttentionWork(full, static_cast<double>(rows), static_cast<double>(keys));
      profile.prefill_attention.points.push_back({rows, keys, in_graph.AttentionUs(us, work)});
    } else {
      const OperatorWork work = DecodeAttentionWork(full, static_cast<double>(rows), static_cast<double>(keys - 1));
      profile.decode_attention.points.push_back({rows, keys - 1, in_graph.AttentionUs(us, work)});
    }
  }
}

// Held-out errors of linear and log-log interpolation.
struct HeldOut {
  std::vector<double> linear, loglog;
};

// Along each GEMM's curve of one run's own points (after the gap).
void HoldOutRunGemms(const ReferenceOps& run, const ShardShapes& full, const InGraph& in_graph,
                     HeldOut& gemm) {
  std::map<int64_t, std::vector<std::pair<int64_t, double>>> gemm_curves;
  for (const ReferenceGemmRow& row : run.gemm) {
    const GemmId id = ReferenceGemmId(row.op);
    gemm_curves[static_cast<int64_t>(id)].emplace_back(
        row.m, in_graph.GemmUs(row.median_ms * 1000, GemmWork(full, id, static_cast<double>(row.m))));
  }
  for (auto& [id, points] : gemm_curves) std::sort(points.begin(), points.end());
  HoldOutCurves(gemm_curves, 0.0, gemm.linear, gemm.loglog);
}

// Attention along each key of one run's own points (after the gap): rows at
// fixed context, contexts at fixed rows.
void HoldOutRunAttention(const ReferenceOps& run, const ShardShapes& full, const InGraph& in_graph,
                         HeldOut& attention) {
  for (const bool prefill : {true, false}) {
    std::map<int64_t, std::vector<std::pair<int64_t, double>>> by_rows, by_keys;
    for (const ReferenceAttentionRow& row : run.attention) {
      if (row.prefill != prefill) continue;
      const int64_t context = prefill ? row.keys : row.keys - 1;
      const OperatorWork work =
          prefill ? PrefillAttentionWork(full, static_cast<double>(row.rows), static_cast<double>(context))
                  : DecodeAttentionWork(full, static_cast<double>(row.rows), static_cast<double>(context));
      const double us = in_graph.AttentionUs(row.median_ms * 1000, work);
      by_rows[row.rows].emplace_back(context, us);
      by_keys[context].emplace_back(row.rows, us);
    }
    for (auto* curves : {&by_rows, &by_keys}) {
      for (auto& [k, points] : *curves) std::sort(points.begin(), points.end());
    }
    HoldOutCurves(by_rows, 1.0, attention.linear, attention.loglog);
    HoldOutCurves(by_keys, 0.0, attention.linear, attention.loglog);
  }
}

// Held-out interpolation study on each run's own points (after the gap),
// and the interpolation it chooses.
void ChooseReferenceInterpolation(const std::vector<ReferenceOps>& runs, const ShardShapes& full,
                                  const InGraph& in_graph, const std::vector<double>& noise,
                                  const ImportSettings& settings, KernelProfile& profile,
                                  ImportReport& report) {
  HeldOut gemm, attention;
  for (const ReferenceOps& run : runs) {
    HoldOutRunGemms(run, full, in_graph, gemm);
    HoldOutRunAttention(run, full, in_graph, attention);
  }
  report.interpolation.push_back(Summarize("gemm", gemm.linear, gemm.loglog, noise));
  report.interpolation.push_back(Summarize("attention", attention.linear, attention.loglog, noise));
  std::vector<double> all_linear = gemm.linear, all_loglog = gemm.loglog;
  all_linear.insert(all_linear.end(), attention.linear.begin(), attention.linear.end());
  all_loglog.insert(all_loglog.end(), attention.loglog.begin(), attention.loglog.end());
  report.chosen = Choose(settings, all_linear, all_loglog);
  profile.interpolation = report.chosen;
}

// The elementwise tables modelled from measure.py's unfused ops.
void AddReferenceElementwise(const ShardShapes& full, const ElementwiseRates& rates, KernelProfile& profile) {
  for (const ElementwiseId id : {ElementwiseId::kRmsnorm, ElementwiseId::kRope, ElementwiseId::kKvCacheWrite,
                                 ElementwiseId::kActivation, ElementwiseId::kResidualAdd}) {
    ElementwiseTable table;
    table.name = ElementwiseName(id, true);
    table.source = "modelled: measure.py's unfused PyTorch kernels, each max(floor, bytes / bandwidth)";
    for (const int64_t tokens : PowerOfTwoTokens()) {
      table.points.push_back({tokens, ReferenceElementwiseUs(id, static_cast<double>(tokens), full, rates)});
    }
    profile.elementwise.push_back(std::move(table));
  }
}

}  // namespace

KernelProfile ImportReferenceProfile(const std::vector<ReferenceOps>& runs, const ModelSpec& model,
                                     const GpuSpec& gpu, const std::optional<ElementwiseRates>& rates,
                                     const std::optional<VidurAllReduceTable>& all_reduce,
                                     const ImportSettings& settings, ImportReport& report) {
  if (runs.empty()) throw UsageError("profile import: give at least one reference run");
  for (const ReferenceOps& run : runs) CheckReferenceShapes(run, model, gpu);
  const ShardShapes full = ShardModel(model, 1);
  InGraph in_graph;
  for (const ReferenceOps& run : runs) {
    in_graph.tflops = std::max(in_graph.tflops, run.gemm_tflops);
    in_graph.tbps = std::max(in_graph.tbps, run.copy_tbps);
  }
  const CombinedRuns combined = CombineRuns(runs);
  EstimateDispatchGaps(combined, full, settings, in_graph, report);
  KernelProfile profile = NewReferenceProfile(runs.front(), model, gpu, settings, rates.has_value());
  ProfileSource source = DescribeReferenceSource(runs, settings, in_graph, rates);
  AddReferenceTables(combined, full, in_graph, model, profile);
  ChooseReferenceInterpolation(runs, full, in_graph, combined.noise, settings, profile, report);
  if (rates) AddReferenceElementwise(full, *rates, profile);
  Finish(profile, std::move(source), all_reduce, model, report);
  return profile;
}

namespace {

// Vidur's attention.csv into the profile's attention and KV-write tables.
void ImportVidurAttention(const VidurAttentionTable& table, const ModelSpec& model,
                          KernelProfile& profile, ImportReport& report) {
  std::map<std::pair<int64_t, int64_t>, double> prefill, decode;  // (rows, context) -> min us
  std::map<int64_t, double> kv_write;                             // tokens written -> min us
  std::set<std::string> backends;
  int64_t block_size = 0;
  const auto keep_min = [](auto& map, const auto& key, double us) {
    const auto [it, inserted] = map.emplace(key, us);
    if (!inserted) it->second = std::min(it->second, us);
  };
  for (const VidurAttentionRow& row : table.rows) {
    if (row.tensor_parallel != 1) continue;
    const auto require = [&](const char* column, int64_t source, int64_t spec, const char* what) {
      RequireModelShape(table.origin, row.line, column, "Vidur profiled", what, source, spec, model);
    };
    require("n_embd", row.n_embd, model.hidden_size, "hidden size");
    require("n_q_head", row.n_q_head, model.q_heads, "q heads");
    require("n_kv_head", row.n_kv_head, model.kv_heads, "KV heads");
    if (block_size != 0 && row.block_size != block_size) {
      throw InputError(table.origin, row.line, "block_size",
                       "differs from earlier rows' " + std::to_string(block_size));
    }
    block_size = row.block_size;
    backends.insert(row.backend);
    if (row.is_prefill) {
      keep_min(prefill, std::pair{row.prefill_chunk_size, row.kv_cache_size}, row.prefill_ms * 1000.0);
      if (std::isfinite(row.kv_cache_save_ms)) keep_min(kv_write, row.prefill_chunk_size, row.kv_cache_save_ms * 1000.0);
    } else {
      keep_min(decode, std::pair{row.batch_size, row.kv_cache_size}, row.decode_ms * 1000.0);
      if (std::isfinite(row.kv_cache_save_ms)) keep_min(kv_write, row.batch_size, row.kv_cache_save_ms * 1000.0);
    }
  }
  if (backends.size() > 1) {
    std::string names;
    for (const std::string& b : backends) names += (names.empty() ? "" : ", ") + b;
    throw InputError(table.origin, 0, "attention_backend",
                     "several backends (" + names + "): a profile describes one; give a file with one");
  }
  if (prefill.empty() && decode.empty()) {
    throw InputError(table.origin, 0, "num_tensor_parallel_workers", "no TP=1 rows");
  }
  for (AttentionTable* t : {&profile.prefill_attention, &profile.decode_attention}) t->block_tokens = block_size;
  for (const auto& [key, us] : prefill) profile.prefill_attention.points.push_back({key.first, key.second, us});
  for (const auto& [key, us] : decode) profile.decode_attention.points.push_back({key.first, key.second, us});
  if (!kv_write.empty()) {
    ElementwiseTable t;
    t.name = "kv_cache_write";
    for (const auto& [tokens, us] : kv_write) t.points.push_back({tokens, us});
    profile.elementwise.push_back(std::move(t));
  }
  report.notes.push_back("attention (" + *backends.begin() + "): " + std::to_string(prefill.size()) +
                         " prefill and " + std::to_string(decode.size()) + " decode points, " +
                         std::to_string(kv_write.size()) + " KV-write sizes from " + table.origin);
}

// Vidur's mlp.csv per token count: the minimum of the TP=1 rows' medians
// (ms) of each op, in the order qkv, o, up, down, norm (the lower of the
// two), rope, act, add, and an unused 0.
using VidurBestRows = std::map<int64_t, std::array<double, 9>>;

VidurBestRows BestVidurRows(const VidurMlpTable& mlp, const ModelSpec& model, ImportReport& report) {
  // TP=1 rows only: Vidur's TP>1 rows are shard shapes on one GPU, which the
  // latency model derives from the full shapes by its fit instead.
  VidurBestRows best;  // tokens -> min of medians (ms) per op
  int64_t skipped_tp = 0;
  for (const VidurMlpRow& row : mlp.rows) {
    if (row.tensor_parallel != 1) {
      ++skipped_tp;
      continue;
    }
    const auto require = [&](const char* column, int64_t source, int64_t spec, const char* what) {
      RequireModelShape(mlp.origin, row.line, column, "Vidur profiled", what, source, spec, model);
    };
    require("n_embd", row.n_embd, model.hidden_size, "hidden size");
    require("n_head", row.n_head, model.q_heads, "q heads");
    require("n_kv_head", row.n_kv_head, model.kv_heads, "KV heads");
    require("n_expanded_embd", row.n_expanded_embd, model.ffn_size, "FFN size");
    require("use_gated_mlp", row.gated_mlp, model.mlp == MlpKind::kGated, "a gated MLP flag of");
    if (model.q_heads * model.head_dim != model.hidden_size) {
      throw InputError(mlp.origin, row.line, "n_head",
                       "Vidur's QKV width assumes head_dim = hidden / heads; model " + model.name +
                           " has head_dim " + std::to_string(model.head_dim));
    }
    const std::array<double, 9> values = {row.qkv_ms, row.o_ms, row.up_ms, row.down_ms,
                                          std::min(row.input_norm_ms, row.post_norm_ms),
                                          row.rope_ms, row.act_ms, row.add_ms, 0.0};
    auto [it, inserted] = best.emplace(row.num_tokens, values);
    if (!inserted) {
      for (size_t i = 0; i < values.size(); ++i) it->second[i] = std::min(it->second[i], values[i]);
    }
  }
  if (best.empty()) throw InputError(mlp.origin, 0, "num_tensor_parallel_workers", "no TP=1 rows");
  report.notes.push_back(std::to_string(best.size()) + " token counts at TP=1 (" +
                         std::to_string(skipped_tp) + " TP>1 rows not imported); repeated counts "
                         "combined by the minimum of their medians");
  return best;
}

// The profile's names and provenance, and its attention tables' shapes.
KernelProfile NewVidurProfile(const ModelSpec& model, const GpuSpec& gpu,
                              const std::optional<VidurAttentionTable>& attention,
                              const ImportSettings& settings) {
  KernelProfile profile;
  profile.gpu = gpu.name;
  profile.model = model.name;
  profile.command = settings.command;
  profile.gemm_kernel = "vLLM ColumnParallelLinear/RowParallelLinear (F.linear, fp16), as Vidur profiled them";
  profile.prefill_attention_kernel =
      attention ? "Vidur's attention.csv (" + attention->origin + ")" : "none (not in the source: roofline)";
  profile.decode_attention_kernel = profile.prefill_attention_kernel;
  profile.elementwise_kernel = "vLLM RMSNorm, rotary embedding, SiluAndMul and add, as Vidur profiled them";
  profile.provenance.gpu_name = gpu.description;
  profile.provenance.driver_version = "not recorded by the source";
  profile.provenance.cuda_runtime_version = "not recorded by the source";
  profile.provenance.git_commit = "n/a: measured by Vidur's profiler, not efimsim's harness";
  profile.provenance.date_utc = settings.measured_on;
  SetAttentionShapes(profile, model);
  return profile;
}

// The GEMM and elementwise tables (us), the GEMMs' held-out study and the
// interpolation it chooses.
void AddVidurTables(const VidurBestRows& best, const ModelSpec& model, const ImportSettings& settings,
                    KernelProfile& profile, ImportReport& report) {
  const ShardShapes full = ShardModel(model, 1);
  const std::array<GemmId, 4> gemms = {GemmId::kQkvProj, GemmId::kOProj, GemmId::kGateUpProj,
                                       GemmId::kDownProj};
  std::vector<double> linear, loglog;
  for (size_t g = 0; g < gemms.size(); ++g) {
    GemmTable table;
    table.name = GemmName(gemms[g]);
    const GemmShape shape = GemmShapeOf(full, gemms[g]);
    table.n = shape.n;
    table.k = shape.k;
    std::map<int64_t, std::vector<std::pair<int64_t, double>>> curve;
    for (const auto& [tokens, values] : best) {
      table.points.push_back({tokens, values[g] * 1000.0});
      curve[0].emplace_back(tokens, values[g] * 1000.0);
    }
    HoldOutCurves(curve, 0.0, linear, loglog);
    profile.gemm.push_back(std::move(table));
  }
  report.interpolation.push_back(Summarize("gemm", linear, loglog, {}));
  report.chosen = Choose(settings, linear, loglog);
  profile.interpolation = report.chosen;

  const std::array<std::pair<ElementwiseId, size_t>, 4> elementwise = {
      std::pair{ElementwiseId::kRmsnorm, size_t{4}}, std::pair{ElementwiseId::kRope, size_t{5}},
      std::pair{ElementwiseId::kActivation, size_t{6}}, std::pair{ElementwiseId::kResidualAdd, size_t{7}}};
  for (const auto& [id, column] : elementwise) {
    ElementwiseTable table;
    table.name = ElementwiseName(id, model.mlp == MlpKind::kGated);
    for (const auto& [tokens, values] : best) table.points.push_back({tokens, values[column] * 1000.0});
    profile.elementwise.push_back(std::move(table));
  }
}

ProfileSource DescribeVidurSource(const VidurMlpTable& mlp,
                                  const std::optional<VidurAttentionTable>& attention) {
  ProfileSource source;
  source.kind = "vidur";
  source.stack = "Vidur's profiler (microsoft/vidur): one vLLM-style transformer block in fp16 "
                 "(F.linear GEMMs, vLLM RMSNorm, rotary, SiluAndMul), the sum of GPU kernel times of "
                 "one call under the PyTorch profiler, median over 20 blocks";
  source.method = "TP=1 rows; ms to us; attn_pre_proj, attn_post_proj, mlp_up_proj, mlp_down_proj as "
                  "qkv_proj, o_proj, gate_up_proj, down_proj; the lower of input_layernorm and "
                  "post_attention_layernorm as rmsnorm; attn_rope as rope; mlp_act as the activation; add "
                  "as residual_add; " +
                  std::string(attention ? "attention.csv's TP=1 attn_prefill, attn_decode and "
                                          "attn_kv_cache_save medians as the attention and KV-write "
                                          "tables (kv_cache_size as the context); no lm_head table"
                                        : "no attention, lm_head or KV-write tables") +
                  " (roofline, flagged)";
  source.files.push_back(ProfileSourceFile{mlp.origin, mlp.sha256});
  if (attention) source.files.push_back(ProfileSourceFile{attention->origin, attention->sha256});
  return source;
}

}  // namespace

KernelProfile ImportVidurProfile(const VidurMlpTable& mlp, const ModelSpec& model, const GpuSpec& gpu,
                                 const std::optional<VidurAttentionTable>& attention,
                                 const std::optional<VidurAllReduceTable>& all_reduce,
                                 const ImportSettings& settings, ImportReport& report) {
  CheckVidurGpu(mlp.origin, gpu);
  const VidurBestRows best = BestVidurRows(mlp, model, report);
  KernelProfile profile = NewVidurProfile(model, gpu, attention, settings);
  AddVidurTables(best, model, settings, profile, report);
  ProfileSource source = DescribeVidurSource(mlp, attention);
  if (attention) ImportVidurAttention(*attention, model, profile, report);
  Finish(profile, std::move(source), all_reduce, model, report);
  return profile;
}

}  // namespace efimsim
