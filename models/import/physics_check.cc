#include "models/import/physics_check.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <utility>

#include "models/formats/spec_catalog.h"
#include "models/latency/operator_work.h"

namespace efimsim {
namespace {

__attribute__((format(printf, 1, 2))) std::string Printf(const char* format, ...) {
  char buffer[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof buffer, format, args);
  va_end(args);
  return buffer;
}

// The datasheet ceilings the rows are judged against (per second).
struct Ceilings {
  double bf16_flops = 0;
  double fp8_flops = 0;   // the bf16 peak where the GPU has no FP8 tensor cores
  double bandwidth = 0;   // memory bytes/s
  double l2_bytes = 0;    // 0: unknown, every byte counts against the bandwidth
  double link = 0;        // GPU link bytes/s, one direction; 0: none stated
};

Ceilings CeilingsOf(const GpuSpec& gpu) {
  Ceilings c;
  c.bf16_flops = gpu.datasheet_bf16_tflops * 1e12;
  c.fp8_flops = gpu.datasheet_fp8_tflops > 0 ? gpu.datasheet_fp8_tflops * 1e12 : c.bf16_flops;
  c.bandwidth = gpu.datasheet_hbm_tbps * 1e12;
  c.l2_bytes = static_cast<double>(gpu.l2_cache_bytes);
  c.link = gpu.interconnect_gbps * 1e9;
  return c;
}

// A row's key, formatted only when the row is reported.
struct RowKey {
  const char* first = "";
  int64_t a = 0;
  const char* second = nullptr;  // null: one key
  int64_t b = 0;
  std::string Text() const {
    std::string text = Printf("%s %lld", first, static_cast<long long>(a));
    if (second != nullptr) text += Printf(", %s %lld", second, static_cast<long long>(b));
    return text;
  }
};

bool Impossible(const PhysicsRow& row) {
  return row.compute_fraction > kCeilingTolerance || row.dram_fraction > kCeilingTolerance;
}

// Accumulates one group's rows and tables.
class GroupBuilder {
 public:
  GroupBuilder(std::string name, const Ceilings& ceilings) : ceilings_(ceilings) {
    group_.name = std::move(name);
  }
  void BeginTable(std::string table) {
    table_ = std::move(table);
    ++group_.tables;
  }
  // A row of HBM work: `fp8` picks the FP8 compute peak; `judge_slow`:
  // whether `work` is the row's own (not a bound far below it), so that a
  // low rate is suspicious.
  PhysicsRow Add(const RowKey& key, double time_us, const OperatorWork& work, bool fp8,
                 bool judge_slow = true) {
    const double seconds = time_us * 1e-6;
    PhysicsRow row;
    row.time_us = time_us;
    row.flops = work.flops;
    row.bytes = work.bytes;
    const double peak = fp8 ? ceilings_.fp8_flops : ceilings_.bf16_flops;
    row.compute_fraction = work.flops / seconds / peak;
    row.bandwidth_fraction = work.bytes / seconds / ceilings_.bandwidth;
    row.dram_fraction = std::max(0.0, work.bytes - ceilings_.l2_bytes) / seconds / ceilings_.bandwidth;
    Count(row, key);
    const double roofline_us = std::max(work.flops / peak, work.bytes / ceilings_.bandwidth) * 1e6;
    if (judge_slow && roofline_us >= kLargeRooflineUs && row.Utilisation() < kSlowFraction) {
      ++group_.slow;
      if (!group_.slowest || row.Utilisation() < group_.slowest->Utilisation()) Keep(group_.slowest, row, key);
    }
    return row;
  }
  // A row of link traffic (all-reduce): `bytes` one GPU receives; no L2, no slow check.
  void AddLink(const RowKey& key, double time_us, double bytes) {
    if (ceilings_.link <= 0) return;
    PhysicsRow row;
    row.time_us = time_us;
    row.bytes = bytes;
    row.bandwidth_fraction = bytes / (time_us * 1e-6) / ceilings_.link;
    row.dram_fraction = row.bandwidth_fraction;
    Count(row, key);
  }
  // A bf16 GEMM table's best compute fraction over its large rows (< 0: none).
  void GemmFloor(double best_large, int64_t best_m) {
    if (best_large < 0 || best_large >= kGemmFloorFraction) return;
    ++group_.below_gemm_floor;
    group_.floor_tables.push_back(Printf("%s: best %.1f%% of the compute peak (m %lld)", table_.c_str(),
                                         100 * best_large, static_cast<long long>(best_m)));
  }
  PhysicsGroup Finish() { return std::move(group_); }

 private:
  void Count(const PhysicsRow& row, const RowKey& key) {
    ++group_.rows;
    const bool impossible = Impossible(row);
    if (impossible) {
      ++group_.above_ceiling;
    } else if (row.bandwidth_fraction > kCeilingTolerance) {
      ++group_.cache_resident;
    }
    const bool worse = !group_.worst ||
                       std::make_pair(impossible, row.Utilisation()) >
                           std::make_pair(Impossible(*group_.worst), group_.worst->Utilisation());
    if (worse) Keep(group_.worst, row, key);
  }
  void Keep(std::optional<PhysicsRow>& slot, const PhysicsRow& row, const RowKey& key) {
    slot = row;
    slot->table = table_;
    slot->key = key.Text();
  }

  const Ceilings& ceilings_;
  PhysicsGroup group_;
  std::string table_;
};

// FLOPs and the least bytes of C[m, n] = A[m, k] W[k, n] at `element_bytes`.
OperatorWork GemmRowWork(double m, double n, double k, double element_bytes) {
  return {2.0 * m * n * k, (m * k + k * n + m * n) * element_bytes};
}

// One GEMM table's points (key m); bf16 tables are also held to the GEMM floor.
void AddGemmTable(GroupBuilder& builder, const std::vector<ProfilePoint>& points, int64_t n, int64_t k,
                  bool fp8) {
  double best_large = -1;
  int64_t best_m = 0;
  for (const ProfilePoint& point : points) {
    const PhysicsRow row = builder.Add({"m", point.key}, point.time_us,
                                       GemmRowWork(static_cast<double>(point.key), static_cast<double>(n),
                                                   static_cast<double>(k), fp8 ? 1.0 : 2.0),
                                       fp8);
    const bool large = std::min({point.key, n, k}) >= kGemmFloorMinDim;
    if (large && row.compute_fraction > best_large) {
      best_large = row.compute_fraction;
      best_m = point.key;
    }
  }
  if (!fp8) builder.GemmFloor(best_large, best_m);
}

std::string GemmTableName(const std::string& prefix, int64_t n, int64_t k) {
  return Printf("%s (n %lld, k %lld)", prefix.c_str(), static_cast<long long>(n), static_cast<long long>(k));
}

ShardShapes AttentionShapes(const ShapeHeads& heads, int64_t kv_bytes) {
  ShardShapes s;
  s.q_heads = heads.q_heads;
  s.kv_heads = heads.kv_heads;
  s.head_dim = heads.head_dim;
  s.kv_bytes = kv_bytes;
  return s;
}

std::string HeadsName(const std::string& prefix, const ShapeHeads& h) {
  return Printf("%s (%lld/%lld/%lld)", prefix.c_str(), static_cast<long long>(h.q_heads),
                static_cast<long long>(h.kv_heads), static_cast<long long>(h.head_dim));
}

// A group of attention tables keyed by heads: `add_points(builder, table,
// shapes)` adds one table's points.
template <class Table, class AddPoints>
void AddHeadsGroup(std::vector<PhysicsGroup>& groups, const Ceilings& c, const std::string& name,
                   const std::vector<Table>& tables, int64_t kv_bytes, AddPoints add_points) {
  if (tables.empty()) return;
  GroupBuilder builder(name, c);
  for (const Table& table : tables) {
    builder.BeginTable(HeadsName(name, table.heads));
    add_points(builder, table, AttentionShapes(table.heads, kv_bytes));
  }
  groups.push_back(builder.Finish());
}

// Prefill attention of one sequence, nothing cached (key: new tokens).
void AddShapePrefill(std::vector<PhysicsGroup>& groups, const Ceilings& c, const std::string& name,
                     const std::vector<ShapePrefillTable>& tables, int64_t kv_bytes) {
  AddHeadsGroup(groups, c, name, tables, kv_bytes,
                [](GroupBuilder& builder, const ShapePrefillTable& table, const ShardShapes& s) {
                  for (const ProfilePoint& p : table.points) {
                    builder.Add({"tokens", p.key}, p.time_us,
                                PrefillAttentionWork(s, static_cast<double>(p.key), 0.0), false);
                  }
                });
}

// Decode attention: `batch` sequences of one query over `context` cached tokens.
void AddShapeDecode(std::vector<PhysicsGroup>& groups, const Ceilings& c, const std::string& name,
                    const std::vector<ShapeDecodeTable>& tables, int64_t kv_bytes) {
  AddHeadsGroup(groups, c, name, tables, kv_bytes,
                [](GroupBuilder& builder, const ShapeDecodeTable& table, const ShardShapes& s) {
                  for (const AttentionPoint& p : table.points) {
                    builder.Add({"batch", p.rows, "context", p.context_tokens}, p.time_us,
                                DecodeAttentionWork(s, static_cast<double>(p.rows),
                                                    static_cast<double>(p.context_tokens)),
                                false);
                  }
                });
}

// The least work of one MoE point: FLOPs of the routed pairs on one GPU (the
// average rank's, which the slowest rank a table reports is not below) and
// the weights of the experts one token must touch there: its top-k distinct
// experts, spread evenly, under "uniform" routing (a real router's top-k);
// one under the synthetic routings ("balanced", "power_law_*"), whose
// draws evidently repeat experts (AIConfigurator's balanced top-22 rows at
// one token would read 22 experts' weights at up to 1.3x the bandwidth).
OperatorWork MoeRowWork(const ShapeMoeKey& key, double tokens) {
  const double ep = static_cast<double>(std::max<int64_t>(1, key.ep));
  const double inter = static_cast<double>(key.inter) / static_cast<double>(std::max<int64_t>(1, key.tp));
  const double hidden = static_cast<double>(key.hidden);
  const double weight_bytes = key.dtype == "bfloat16" ? 2.0 : 1.0;
  const double experts_here = static_cast<double>(key.experts) / ep;
  const bool distinct = key.distribution == "uniform";
  const double touched =
      std::min(experts_here, distinct ? std::ceil(static_cast<double>(key.topk) / ep) : 1.0);
  return {tokens * static_cast<double>(key.topk) / ep * 6.0 * hidden * inter,
          touched * 3.0 * hidden * inter * weight_bytes};
}

void AddShapeMoe(std::vector<PhysicsGroup>& groups, const Ceilings& c, const std::vector<ShapeMoeTable>& tables) {
  if (tables.empty()) return;
  GroupBuilder builder("moe", c);
  for (const ShapeMoeTable& table : tables) {
    const ShapeMoeKey& k = table.key;
    builder.BeginTable(Printf("moe (%s, hidden %lld, inter %lld, top-%lld of %lld, tp %lld, ep %lld, %s)",
                              k.dtype.c_str(), static_cast<long long>(k.hidden), static_cast<long long>(k.inter),
                              static_cast<long long>(k.topk), static_cast<long long>(k.experts),
                              static_cast<long long>(k.tp), static_cast<long long>(k.ep),
                              k.distribution.c_str()));
    // Not judged slow: the experts touched grow with the tokens, far above the bytes counted.
    for (const ProfilePoint& p : table.points) {
      builder.Add({"tokens", p.key}, p.time_us, MoeRowWork(k, static_cast<double>(p.key)), k.dtype != "bfloat16",
                  false);
    }
  }
  groups.push_back(builder.Finish());
}

// MLA attention (AIConfigurator's SGLang context_mla and generation_mla)
// at one latent geometry. A kernel may run MLA in either form: expanded
// (kv_b_proj's K and V, head_dim = nope + rope wide, value v wide, per
// head) or absorbed (every head over the latent and rope key, latent +
// rope wide, summing latents). The least work is each quantity's minimum
// over the two: FLOPs of the expanded form, bytes of reading the latent
// once (the absorbed form), so that a row above a ceiling is impossible in
// either form. Not judged slow: the bound is far below either form's work.
ShardShapes MlaGroupShapes(const ShapeMlaAttention& g, int64_t heads) {
  ShardShapes s;
  s.q_heads = heads;
  s.kv_heads = heads;
  s.head_dim = g.qk_nope_head_dim + g.qk_rope_head_dim;
  s.mla_latent = g.kv_lora_rank;
  s.mla_rope = g.qk_rope_head_dim;
  s.mla_nope = g.qk_nope_head_dim;
  s.mla_v = g.v_head_dim;
  s.kv_bytes = g.kv_cache_dtype == "fp8" ? 1 : 2;
  return s;
}

OperatorWork LeastOf(const OperatorWork& a, const OperatorWork& b) {
  return {std::min(a.flops, b.flops), std::min(a.bytes, b.bytes)};
}

// Prefill of `n` new tokens, nothing cached. Absorbed: each query scores
// the latent and rope keys of the tokens before it and sums their latents;
// the latents are read once, queries and outputs once per head.
OperatorWork MlaPrefillLeastWork(const ShardShapes& s, double n) {
  const double heads = static_cast<double>(s.q_heads);
  const double key = static_cast<double>(s.mla_latent + s.mla_rope);
  const double value = static_cast<double>(s.mla_latent);
  const double dtype = static_cast<double>(s.dtype_bytes);
  const OperatorWork absorbed{2.0 * heads * (key + value) * n * (n + 1.0) / 2.0,
                              n * key * static_cast<double>(s.kv_bytes) + n * heads * (key + value) * dtype};
  return LeastOf(PrefillAttentionWork(s, n, 0.0), absorbed);
}

// Decode of `batch` queries over `context` cached tokens: absorbed as
// operator_work.h's decode, expanded as its prefill of one new token.
OperatorWork MlaDecodeLeastWork(const ShardShapes& s, double batch, double context) {
  const OperatorWork expanded = PrefillAttentionWork(s, 1.0, context);
  return LeastOf(DecodeAttentionWork(s, batch, context), {batch * expanded.flops, batch * expanded.bytes});
}

void AddShapeMla(std::vector<PhysicsGroup>& groups, const Ceilings& c, const std::vector<ShapeMlaAttention>& mla) {
  for (const ShapeMlaAttention& g : mla) {
    const std::string geometry =
        Printf("latent %lld + rope %lld, nope %lld, v %lld, %s KV", static_cast<long long>(g.kv_lora_rank),
               static_cast<long long>(g.qk_rope_head_dim), static_cast<long long>(g.qk_nope_head_dim),
               static_cast<long long>(g.v_head_dim), g.kv_cache_dtype.c_str());
    GroupBuilder prefill("mla_prefill_attention (" + geometry + ")", c);
    for (const ShapePrefillTable& table : g.prefill) {
      prefill.BeginTable(Printf("mla_prefill_attention (%lld heads)", static_cast<long long>(table.heads.q_heads)));
      const ShardShapes s = MlaGroupShapes(g, table.heads.q_heads);
      for (const ProfilePoint& p : table.points) {
        prefill.Add({"tokens", p.key}, p.time_us, MlaPrefillLeastWork(s, static_cast<double>(p.key)), false, false);
      }
    }
    if (!g.prefill.empty()) groups.push_back(prefill.Finish());
    GroupBuilder decode("mla_decode_attention (" + geometry + ")", c);
    for (const ShapeDecodeTable& table : g.decode) {
      decode.BeginTable(Printf("mla_decode_attention (%lld heads)", static_cast<long long>(table.heads.q_heads)));
      const ShardShapes s = MlaGroupShapes(g, table.heads.q_heads);
      for (const AttentionPoint& p : table.points) {
        decode.Add({"batch", p.rows, "context", p.context_tokens}, p.time_us,
                   MlaDecodeLeastWork(s, static_cast<double>(p.rows), static_cast<double>(p.context_tokens)), false,
                   false);
      }
    }
    if (!g.decode.empty()) groups.push_back(decode.Finish());
  }
}

// Bytes one GPU of `gpus` must receive in an all-reduce of `bytes` each.
double AllReduceLinkBytes(double bytes, int64_t gpus) {
  const double g = static_cast<double>(gpus);
  return bytes * (g - 1.0) / g;
}

void AddShapeGemms(std::vector<PhysicsGroup>& groups, const Ceilings& c, const ShapeProfile& profile) {
  if (!profile.gemm.empty()) {
    GroupBuilder builder("gemm", c);
    for (const ShapeGemmTable& table : profile.gemm) {
      builder.BeginTable(GemmTableName("gemm", table.n, table.k));
      AddGemmTable(builder, table.points, table.n, table.k, false);
    }
    groups.push_back(builder.Finish());
  }
  for (const ShapeGemmDtype& dtype : profile.gemm_fp8) {
    GroupBuilder builder("gemm_fp8 " + dtype.dtype, c);
    for (const ShapeGemmTable& table : dtype.tables) {
      builder.BeginTable(GemmTableName("gemm_fp8 " + dtype.dtype, table.n, table.k));
      AddGemmTable(builder, table.points, table.n, table.k, true);
    }
    groups.push_back(builder.Finish());
  }
}

PhysicsReport NewReport(const std::string& origin, const GpuSpec& gpu, const Ceilings& c) {
  PhysicsReport report;
  report.origin = origin;
  report.gpu = gpu.name;
  report.compute_peak = c.bf16_flops;
  report.bandwidth = c.bandwidth;
  report.l2_bytes = c.l2_bytes;
  return report;
}

// The model-keyed profile's elementwise tables (measured ones only).
void AddElementwise(std::vector<PhysicsGroup>& groups, const Ceilings& c, const KernelProfile& profile,
                    const ShardShapes& shapes) {
  GroupBuilder builder("elementwise", c);
  bool any = false;
  for (const ElementwiseTable& table : profile.elementwise) {
    if (table.Modelled()) continue;
    std::optional<ElementwiseId> id;
    for (int i = 0; i < kElementwiseCount; ++i) {
      const auto candidate = static_cast<ElementwiseId>(i);
      if (ElementwiseName(candidate, shapes.gated_mlp) == table.name) id = candidate;
    }
    if (!id) continue;
    any = true;
    builder.BeginTable("elementwise " + table.name);
    for (const ProfilePoint& p : table.points) {
      const double tokens = static_cast<double>(p.key);
      // Sampling: one fp32 read of the logits (a greedy argmax), the least it moves.
      const OperatorWork work = *id == ElementwiseId::kSampling
                                    ? OperatorWork{0.0, tokens * 4.0 * static_cast<double>(shapes.vocab)}
                                    : ElementwiseWork(shapes, *id, tokens);
      builder.Add({"tokens", p.key}, p.time_us, work, false);
    }
  }
  if (any) groups.push_back(builder.Finish());
}

// The model-keyed profile's attention tables (prefill: new tokens over a cached context).
void AddKernelAttention(std::vector<PhysicsGroup>& groups, const Ceilings& c, const KernelProfile& profile) {
  for (const bool prefill : {true, false}) {
    const AttentionTable& table = prefill ? profile.prefill_attention : profile.decode_attention;
    if (table.points.empty()) continue;
    const std::string name = prefill ? "prefill_attention" : "decode_attention";
    const ShapeHeads heads{table.q_heads, table.kv_heads, table.head_dim};
    GroupBuilder builder(name, c);
    builder.BeginTable(HeadsName(name, heads));
    const ShardShapes s = AttentionShapes(heads, table.kv_cache_dtype == "fp8" ? 1 : 2);
    for (const AttentionPoint& p : table.points) {
      const double rows = static_cast<double>(p.rows);
      const double context = static_cast<double>(p.context_tokens);
      builder.Add({prefill ? "new" : "batch", p.rows, "context", p.context_tokens}, p.time_us,
                  prefill ? PrefillAttentionWork(s, rows, context) : DecodeAttentionWork(s, rows, context), false);
    }
    groups.push_back(builder.Finish());
  }
}

std::string RowText(const PhysicsRow& row, bool link) {
  if (link) {
    return Printf("%s, %s: %.4g us = %.3g GB/s over the link (%.0f%% of it)", row.table.c_str(), row.key.c_str(),
                  row.time_us, row.bytes / row.time_us * 1e-3, 100 * row.bandwidth_fraction);
  }
  return Printf("%s, %s: %.4g us = %.4g TFLOP/s, %.3g TB/s (%.1f%% of compute, %.1f%% of bandwidth, "
                "%.1f%% beyond the L2)",
                row.table.c_str(), row.key.c_str(), row.time_us, row.Tflops(), row.Tbps(),
                100 * row.compute_fraction, 100 * row.bandwidth_fraction, 100 * row.dram_fraction);
}

bool IsLinkGroup(const PhysicsGroup& group) { return group.name.rfind("all_reduce", 0) == 0; }

}  // namespace

double PhysicsRow::Utilisation() const { return std::max(compute_fraction, bandwidth_fraction); }

int64_t PhysicsReport::Rows() const {
  int64_t n = 0;
  for (const PhysicsGroup& g : groups) n += g.rows;
  return n;
}

int64_t PhysicsReport::Errors() const {
  int64_t n = 0;
  for (const PhysicsGroup& g : groups) n += g.above_ceiling + g.below_gemm_floor;
  return n;
}

int64_t PhysicsReport::Flags() const {
  int64_t n = 0;
  for (const PhysicsGroup& g : groups) n += g.cache_resident + g.slow;
  return n;
}

PhysicsReport CheckShapeProfilePhysics(const ShapeProfile& profile, const GpuSpec& gpu) {
  const Ceilings c = CeilingsOf(gpu);
  PhysicsReport report = NewReport(profile.origin, gpu, c);
  AddShapeGemms(report.groups, c, profile);
  AddShapePrefill(report.groups, c, "prefill_attention", profile.prefill_attention, 2);
  AddShapePrefill(report.groups, c, "prefill_attention_fp8kv", profile.prefill_attention_fp8kv, 1);
  AddShapeDecode(report.groups, c, "decode_attention", profile.decode_attention, 2);
  AddShapeDecode(report.groups, c, "decode_attention_fp8kv", profile.decode_attention_fp8kv, 1);
  AddShapeMoe(report.groups, c, profile.moe);
  AddShapeMla(report.groups, c, profile.mla);
  if (!profile.all_reduce.empty() && c.link > 0) {
    GroupBuilder builder("all_reduce", c);
    for (const ShapeAllReduceTable& table : profile.all_reduce) {
      builder.BeginTable(Printf("all_reduce (%lld GPUs)", static_cast<long long>(table.gpus)));
      for (const ProfilePoint& p : table.points) {
        builder.AddLink({"bytes", p.key}, p.time_us, AllReduceLinkBytes(static_cast<double>(p.key), table.gpus));
      }
    }
    report.groups.push_back(builder.Finish());
  }
  return report;
}

PhysicsReport CheckKernelProfilePhysics(const KernelProfile& profile, const ModelSpec& model, const GpuSpec& gpu) {
  const Ceilings c = CeilingsOf(gpu);
  PhysicsReport report = NewReport(profile.origin, gpu, c);
  const ShardShapes shapes = ShardModel(model, 1);
  if (!profile.gemm.empty()) {
    GroupBuilder builder("gemm", c);
    for (const GemmTable& table : profile.gemm) {
      builder.BeginTable(GemmTableName("gemm " + table.name, table.n, table.k));
      AddGemmTable(builder, table.points, table.n, table.k, table.weight_dtype != "bfloat16");
    }
    report.groups.push_back(builder.Finish());
  }
  AddKernelAttention(report.groups, c, profile);
  AddElementwise(report.groups, c, profile, shapes);
  if (!profile.all_reduce.empty() && c.link > 0) {
    GroupBuilder builder("all_reduce", c);
    for (const AllReduceTable& table : profile.all_reduce) {
      builder.BeginTable(Printf("all_reduce (%lld GPUs)", static_cast<long long>(table.tensor_parallel)));
      for (const ProfilePoint& p : table.points) {
        const double bytes = AllReduceBytes(shapes, static_cast<double>(p.key));
        builder.AddLink({"tokens", p.key}, p.time_us, AllReduceLinkBytes(bytes, table.tensor_parallel));
      }
    }
    report.groups.push_back(builder.Finish());
  }
  return report;
}

std::vector<PhysicsReport> CheckBuiltinProfilesPhysics() {
  // "<gpu>/<source>/<rest>" split at its first two slashes.
  const auto split = [](const std::string& name) {
    const size_t gpu_end = name.find('/');
    const size_t source_end = name.find('/', gpu_end + 1);
    return std::array<std::string, 3>{name.substr(0, gpu_end), name.substr(gpu_end + 1, source_end - gpu_end - 1),
                                      name.substr(source_end + 1)};
  };
  std::vector<PhysicsReport> reports;
  for (const std::string& name : BuiltinKernelProfileNames()) {
    const auto [gpu, source, model] = split(name);
    const std::optional<KernelProfile> profile = FindBuiltinKernelProfile(gpu, source, model);
    if (!profile) continue;
    reports.push_back(CheckKernelProfilePhysics(*profile, LoadModelSpec(model), LoadGpuSpec(gpu)));
    reports.back().origin = "models/profiles/" + name + ".json";
  }
  for (const std::string& name : BuiltinShapeProfileNames()) {
    const auto [gpu, source, engine] = split(name);
    const ShapeProfile* profile = FindBuiltinShapeProfile(gpu, source, engine);
    if (profile == nullptr) continue;
    reports.push_back(CheckShapeProfilePhysics(*profile, LoadGpuSpec(gpu)));
    reports.back().origin = "models/shape_profiles/" + name + ".json";
  }
  return reports;
}

std::string PhysicsReportText(const PhysicsReport& report) {
  std::string text = Printf("physics check of %s on %s (datasheet %.4g TFLOP/s bf16, %.4g TB/s", report.origin.c_str(),
                            report.gpu.c_str(), report.compute_peak * 1e-12, report.bandwidth * 1e-12);
  text += report.l2_bytes > 0 ? Printf(", L2 %.0f MiB):\n", report.l2_bytes / (1 << 20)) : ", no L2 size stated):\n";
  text += Printf("  %-26s %7s %9s %6s %6s %6s %6s\n", "tables", "count", "rows", "above", "cache", "slow", "floor");
  for (const PhysicsGroup& g : report.groups) {
    text += Printf("  %-26s %7lld %9lld %6lld %6lld %6lld %6lld\n", g.name.c_str(), static_cast<long long>(g.tables),
                   static_cast<long long>(g.rows), static_cast<long long>(g.above_ceiling),
                   static_cast<long long>(g.cache_resident), static_cast<long long>(g.slow),
                   static_cast<long long>(g.below_gemm_floor));
    if (g.worst) text += "    highest: " + RowText(*g.worst, IsLinkGroup(g)) + "\n";
    if (g.slowest) text += "    slowest: " + RowText(*g.slowest, false) + "\n";
    for (const std::string& table : g.floor_tables) text += "    below the GEMM floor: " + table + "\n";
  }
  text += Printf("  %lld rows: %lld errors, %lld flagged\n", static_cast<long long>(report.Rows()),
                 static_cast<long long>(report.Errors()), static_cast<long long>(report.Flags()));
  return text;
}

std::string PhysicsErrorText(const PhysicsReport& report) {
  std::string text;
  for (const PhysicsGroup& g : report.groups) {
    if (g.above_ceiling > 0 && g.worst) {
      text += Printf("%s: %lld of %lld rows above the datasheet ceilings x %.2f; worst %s\n", g.name.c_str(),
                     static_cast<long long>(g.above_ceiling), static_cast<long long>(g.rows), kCeilingTolerance,
                     RowText(*g.worst, IsLinkGroup(g)).c_str());
    }
    for (const std::string& table : g.floor_tables) {
      text += Printf("%s below the GEMM floor (%.0f%% at m, n, k >= %lld): keyed at smaller shapes than "
                     "were timed?\n",
                     table.c_str(), 100 * kGemmFloorFraction, static_cast<long long>(kGemmFloorMinDim));
    }
  }
  return text;
}

}  // namespace efimsim
