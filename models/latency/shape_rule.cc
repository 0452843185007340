#include "models/latency/shape_rule.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "models/latency/moe_backend.h"
#include "models/latency/operator_work.h"
#include "models/latency/profile_latency_model.h"
#include "models/formats/profile_table.h"
#include "models/latency/step_latency_model.h"
#include "sim/base/errors.h"

namespace efimsim {
namespace {

constexpr size_t kMaxSites = 4;
constexpr double kNearOctaves = 2.0;

struct Site {
  size_t index = 0;
  double distance = 0;  // in octaves
};

// A site's position: one positive value per axis (distances are taken in log2).
using Coords = std::vector<double>;

// Up to kMaxSites sites nearest to `target` in log2 space (Euclidean over
// the axes). With `within`, only those within kNearOctaves on every axis, or
// the nearest one when none is. An exact match is the only site returned.
// Ties keep the input order.
std::vector<Site> NearestSites(const std::vector<Coords>& coords, const Coords& target, bool within) {
  std::vector<Site> all;
  for (size_t i = 0; i < coords.size(); ++i) {
    double squares = 0;
    bool near = true;
    for (size_t a = 0; a < target.size(); ++a) {
      const double d = std::log2(target[a] / coords[i][a]);
      squares += d * d;
      near = near && std::abs(d) <= kNearOctaves;
    }
    all.push_back({i, std::sqrt(squares)});
    if (within && !near) all.back().distance += 1e9;
  }
  std::stable_sort(all.begin(), all.end(), [](const Site& x, const Site& y) { return x.distance < y.distance; });
  if (all.empty() || all.front().distance == 0) return {all.begin(), all.begin() + std::min<size_t>(1, all.size())};
  std::vector<Site> out;
  for (const Site& s : all) {
    if (out.size() == kMaxSites || (s.distance >= 1e9 && !out.empty())) break;
    out.push_back(s);
  }
  for (Site& s : out) s.distance = std::fmod(s.distance, 1e9);
  return out;
}

// Inverse-square-distance weights of `sites`; an exact match (distance 0,
// then the only site) weighs 1.
std::vector<double> Weights(const std::vector<Site>& sites) {
  std::vector<double> w;
  for (const Site& s : sites) w.push_back(s.distance > 0 ? 1.0 / (s.distance * s.distance) : 1.0);
  return w;
}

std::string SitesText(const std::vector<std::string>& names, const std::vector<Site>& sites) {
  std::string text;
  for (const Site& s : sites) {
    char d[32];
    std::snprintf(d, sizeof d, " (%.2f oct)", s.distance);
    text += (text.empty() ? "" : ", ") + names[s.index] + d;
  }
  return text;
}

// The weighted mean utilisation of `sites` at each key all of them measured,
// turned into the target's time: sol(target, key) / utilisation. `times`
// gives a site's measured time (us) at a key, if any; `sol(site, key)` the
// speed of light of a site (site == -1: the target), in us.
template <typename Key, typename TimeAt, typename SolOf>
std::vector<std::pair<Key, double>> TransferUtilisation(const std::vector<Key>& keys,
                                                        const std::vector<Site>& sites, TimeAt time_at,
                                                        SolOf sol) {
  const std::vector<double> w = Weights(sites);
  std::vector<std::pair<Key, double>> out;
  for (const Key& key : keys) {
    double weighted = 0, total = 0;
    bool all = true;
    for (size_t i = 0; i < sites.size() && all; ++i) {
      const std::optional<double> t = time_at(sites[i].index, key);
      if (!t) {
        all = false;
        break;
      }
      weighted += w[i] * sol(static_cast<int64_t>(sites[i].index), key) / *t;
      total += w[i];
    }
    if (all && total > 0) out.push_back({key, sol(-1, key) / (weighted / total)});
  }
  return out;
}

std::optional<double> PointAt(const std::vector<ProfilePoint>& points, int64_t key) {
  const auto it = std::lower_bound(points.begin(), points.end(), key,
                                   [](const ProfilePoint& p, int64_t k) { return p.key < k; });
  if (it == points.end() || it->key != key) return std::nullopt;
  return it->time_us;
}

template <typename Table>
std::vector<Site> HeadSites(const std::vector<Table>& tables, const ShapeHeads& heads,
                            std::vector<size_t>& kept, std::vector<std::string>& names) {
  std::vector<Coords> coords;
  for (size_t i = 0; i < tables.size(); ++i) {
    if (tables[i].heads.head_dim != heads.head_dim) continue;
    kept.push_back(i);
    coords.push_back({static_cast<double>(tables[i].heads.q_heads),
                      static_cast<double>(tables[i].heads.kv_heads)});
    names.push_back(std::to_string(tables[i].heads.q_heads) + "/" + std::to_string(tables[i].heads.kv_heads));
  }
  return NearestSites(coords, {static_cast<double>(heads.q_heads), static_cast<double>(heads.kv_heads)}, false);
}

std::string HeadsText(const ShapeHeads& h) {
  return std::to_string(h.q_heads) + "/" + std::to_string(h.kv_heads) + "/" + std::to_string(h.head_dim);
}

}  // namespace

ShardShapes HeadShapes(const ShapeHeads& h, int64_t kv_bytes) {
  ShardShapes s;
  s.q_heads = h.q_heads;
  s.kv_heads = h.kv_heads;
  s.head_dim = h.head_dim;
  s.dtype_bytes = 2;
  s.kv_bytes = kv_bytes;
  return s;
}

bool IsFp8Dtype(const std::string& dtype) { return dtype == "fp8" || dtype == "fp8_block"; }

double GemmSolSeconds(const ShapeCeilings& c, const std::string& dtype, double m, double n, double k) {
  if (IsFp8Dtype(dtype) && c.fp8_flops_per_second > 0) {
    return std::max(2.0 * m * n * k / c.fp8_flops_per_second, (m * n + m * k + n * k) / c.memory_bytes_per_second);
  }
  return std::max(2.0 * m * n * k / c.bf16_flops_per_second,
                  2.0 * (m * n + m * k + n * k) / c.memory_bytes_per_second);
}

double SolSeconds(const ShapeCeilings& c, const OperatorWork& work) {
  return std::max(work.flops / c.bf16_flops_per_second, work.bytes / c.memory_bytes_per_second);
}

std::vector<ProfilePoint> TransferGemm(const std::vector<ShapeGemmTable>& tables,
                                       const ShapeCeilings& ceilings, int64_t n, int64_t k,
                                       std::string* note, const std::string& dtype) {
  std::vector<Coords> coords;
  coords.reserve(tables.size());
  for (const ShapeGemmTable& t : tables) {
    coords.push_back({static_cast<double>(t.n), static_cast<double>(t.k)});
  }
  const std::vector<Site> sites = NearestSites(coords, {static_cast<double>(n), static_cast<double>(k)}, true);
  if (sites.empty()) return {};
  if (sites.front().distance == 0) return tables[sites.front().index].points;
  if (note) {
    std::vector<std::string> names;
    for (const ShapeGemmTable& t : tables) names.push_back(std::to_string(t.n) + "x" + std::to_string(t.k));
    *note = "from " + SitesText(names, sites);
  }
  // Only a key every site measured is transferred, so the nearest site's
  // keys (sorted, unique) are all the candidates.
  std::vector<int64_t> keys;
  for (const ProfilePoint& p : tables[sites.front().index].points) keys.push_back(p.key);
  const auto result = TransferUtilisation<int64_t>(
      keys, sites, [&](size_t site, int64_t m) { return PointAt(tables[site].points, m); },
      [&](int64_t site, int64_t m) {
        const double md = static_cast<double>(m);
        if (site < 0) return GemmSolSeconds(ceilings, dtype, md, static_cast<double>(n), static_cast<double>(k)) * 1e6;
        const ShapeGemmTable& t = tables[static_cast<size_t>(site)];
        return GemmSolSeconds(ceilings, dtype, md, static_cast<double>(t.n), static_cast<double>(t.k)) * 1e6;
      });
  std::vector<ProfilePoint> points;
  for (const auto& [m, us] : result) points.push_back({m, us});
  return points;
}

namespace {

// The head-count rule of TransferPrefill and TransferDecode: `Point` is
// ProfilePoint or AttentionPoint; `key_of` gives a point's key, `make` a
// point from a key and a time, `work` the operator's work at a key for
// some heads.
// `target` (optional): the shapes whose work the result is for, when they
// are not plain heads (MLA); the sites are then always rescaled, an exact
// match of `heads` included.
template <typename Table, typename Point, typename KeyOf, typename Make, typename WorkAt>
std::vector<Point> TransferHeads(const std::vector<Table>& tables, const ShapeCeilings& ceilings,
                                 const ShapeHeads& heads, int64_t kv_bytes, std::string* note, KeyOf key_of,
                                 Make make, WorkAt work, const ShardShapes* target) {
  std::vector<size_t> kept;
  std::vector<std::string> names;
  const std::vector<Site> sites = HeadSites(tables, heads, kept, names);
  if (sites.empty()) return {};
  const std::vector<Point>& nearest = tables[kept[sites.front().index]].points;
  if (sites.front().distance == 0 && target == nullptr) return nearest;
  if (note) *note = "from heads " + SitesText(names, sites);
  using Key = decltype(key_of(nearest.front()));
  std::vector<Key> keys;
  for (const Point& p : nearest) keys.push_back(key_of(p));
  const auto result = TransferUtilisation<Key>(
      keys, sites,
      [&](size_t site, const Key& key) -> std::optional<double> {
        for (const Point& p : tables[kept[site]].points) {
          if (key_of(p) == key) return p.time_us;
        }
        return std::nullopt;
      },
      [&](int64_t site, const Key& key) {
        if (site < 0 && target != nullptr) return SolSeconds(ceilings, work(*target, key)) * 1e6;
        const ShapeHeads& h = site < 0 ? heads : tables[kept[static_cast<size_t>(site)]].heads;
        return SolSeconds(ceilings, work(HeadShapes(h, kv_bytes), key)) * 1e6;
      });
  std::vector<Point> points;
  for (const auto& [key, us] : result) points.push_back(make(key, us));
  return points;
}

}  // namespace

std::vector<ProfilePoint> TransferPrefill(const std::vector<ShapePrefillTable>& tables,
                                          const ShapeCeilings& ceilings, const ShapeHeads& heads,
                                          std::string* note, int64_t kv_bytes, const ShardShapes* target) {
  return TransferHeads<ShapePrefillTable, ProfilePoint>(
      tables, ceilings, heads, kv_bytes, note, [](const ProfilePoint& p) { return p.key; },
      [](int64_t key, double us) { return ProfilePoint{key, us}; },
      [](const ShardShapes& s, int64_t t) { return PrefillAttentionWork(s, static_cast<double>(t), 0.0); },
      target);
}

std::vector<AttentionPoint> TransferDecode(const std::vector<ShapeDecodeTable>& tables,
                                           const ShapeCeilings& ceilings, const ShapeHeads& heads,
                                           std::string* note, int64_t kv_bytes, const ShardShapes* target) {
  return TransferHeads<ShapeDecodeTable, AttentionPoint>(
      tables, ceilings, heads, kv_bytes, note,
      [](const AttentionPoint& p) { return std::pair(p.rows, p.context_tokens); },
      [](std::pair<int64_t, int64_t> key, double us) { return AttentionPoint{key.first, key.second, us}; },
      [](const ShardShapes& s, std::pair<int64_t, int64_t> key) {
        return DecodeAttentionWork(s, static_cast<double>(key.first), static_cast<double>(key.second));
      },
      target);
}

ShardShapes MoeShapes(const ShapeMoeKey& key) {
  ShardShapes s;
  s.tensor_parallel = key.tp * key.ep;
  s.hidden = key.hidden;
  s.dtype_bytes = 2;
  s.weight_bytes = IsFp8Dtype(key.dtype) ? 1 : 2;
  s.quantization = key.dtype == "fp8"         ? WeightQuantization::kFp8
                   : key.dtype == "fp8_block" ? WeightQuantization::kFp8Block
                                              : WeightQuantization::kNone;
  s.moe_layers = 1;
  s.experts = key.experts;
  s.experts_per_gpu = key.experts / key.ep;
  s.experts_per_token = key.topk;
  s.expert_ffn = key.inter / key.tp;
  s.expert_parallel = key.ep;
  // The experts a table's steps touched: all its tokens' top-k spread
  // evenly when timed balanced, random top-k otherwise.
  s.moe_routing = key.distribution == "balanced" ? MoeRouting::kBalanced : MoeRouting::kUniform;
  return s;
}

double MoeSolSeconds(const ShapeCeilings& c, const ShapeMoeKey& key, double tokens) {
  const OperatorWork work = MoeExpertsWork(MoeShapes(key), tokens);
  const double flops = IsFp8Dtype(key.dtype) && c.fp8_flops_per_second > 0 ? c.fp8_flops_per_second
                                                                           : c.bf16_flops_per_second;
  return std::max(work.flops / flops, work.bytes / c.memory_bytes_per_second);
}

std::string MoeKeyText(const ShapeMoeKey& k) {
  return k.dtype + " " + std::to_string(k.hidden) + "x" + std::to_string(k.inter) + " top-" +
         std::to_string(k.topk) + " of " + std::to_string(k.experts) + " tp " + std::to_string(k.tp) + " ep " +
         std::to_string(k.ep) + " " + k.distribution;
}

namespace {

// Tokens routed to each expert per token of the batch: top-k / experts.
double ExpertDensity(const ShapeMoeKey& key) {
  return static_cast<double>(key.topk) / static_cast<double>(key.experts);
}

// `points` (us by tokens) as a log-log table, read inside its range only.
ProfileTable LogLogCurve(const std::vector<ProfilePoint>& points) {
  std::vector<ProfileTable::Point> curve;
  for (const ProfilePoint& p : points) curve.push_back({1.0, static_cast<double>(p.key), p.time_us});
  return ProfileTable(curve, 0.0, 0.0, [](double, double) { return 1.0; }, Interpolation::kLogLog);
}

}  // namespace

std::vector<ProfilePoint> TransferMoe(const std::vector<ShapeMoeTable>& tables, const ShapeCeilings& ceilings,
                                      const ShapeMoeKey& key, std::string* note, std::string* kernel,
                                      const std::string& backend) {
  std::vector<size_t> kept;
  std::vector<Coords> coords;
  std::vector<std::string> names;
  std::vector<int64_t> keys;
  for (size_t i = 0; i < tables.size(); ++i) {
    const ShapeMoeKey& k = tables[i].key;
    if (k.dtype != key.dtype || k.tp != key.tp || k.ep != key.ep || k.distribution != key.distribution) continue;
    if (tables[i].points.empty()) continue;
    if (!backend.empty() && MoeBackendOf(tables[i].kernel) != backend) continue;
    kept.push_back(i);
    coords.push_back({static_cast<double>(k.hidden), static_cast<double>(k.inter),
                      static_cast<double>(k.experts), ExpertDensity(k)});
    names.push_back(std::to_string(k.hidden) + "x" + std::to_string(k.inter) + " top-" +
                    std::to_string(k.topk) + "/" + std::to_string(k.experts));
    for (const ProfilePoint& p : tables[i].points) keys.push_back(p.key);
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  const Coords target = {static_cast<double>(key.hidden), static_cast<double>(key.inter),
                         static_cast<double>(key.experts), ExpertDensity(key)};
  const std::vector<Site> sites = NearestSites(coords, target, false);
  if (sites.empty()) return {};
  const ShapeMoeTable& nearest = tables[kept[sites.front().index]];
  if (kernel) *kernel = nearest.kernel;
  if (sites.front().distance == 0) return nearest.points;
  if (note) *note = "from " + SitesText(names, sites);
  // Each site's utilisation is read where its experts see as many tokens
  // each as the target's do at t: t x (target's top-k / experts) / (the
  // site's), between its measured counts (clamped to them).
  const std::vector<double> w = Weights(sites);
  std::vector<ProfileTable> curves;
  for (const Site& site : sites) curves.push_back(LogLogCurve(tables[kept[site.index]].points));
  std::vector<ProfilePoint> points;
  for (const int64_t t : keys) {
    double weighted = 0, total = 0;
    for (size_t i = 0; i < sites.size(); ++i) {
      const ShapeMoeTable& site = tables[kept[sites[i].index]];
      const double tokens = std::clamp(static_cast<double>(t) * ExpertDensity(key) / ExpertDensity(site.key),
                                       static_cast<double>(site.points.front().key),
                                       static_cast<double>(site.points.back().key));
      const double us = curves[i].Lookup(1.0, tokens).seconds;  // the curve holds us
      weighted += w[i] * MoeSolSeconds(ceilings, site.key, tokens) * 1e6 / us;
      total += w[i];
    }
    points.push_back({t, MoeSolSeconds(ceilings, key, static_cast<double>(t)) * 1e6 / (weighted / total)});
  }
  return points;
}

namespace {

// Context lengths (cached tokens) at which a resolved prefill table is
// tabulated; beyond the measured lengths the table's fit extrapolates.
constexpr int64_t kPrefillContexts[] = {0, 16, 64, 256, 512, 1024, 2048, 3072, 4096, 6144, 8192, 12288, 16384};

// Prefill rows (new tokens) x cached contexts from the no-cache curve
// `no_cache` (s tokens -> us) and the decode table (one query over c cached).
std::vector<AttentionPoint> PrefillWithContext(const std::vector<ProfilePoint>& no_cache,
                                               const std::vector<AttentionPoint>& decode,
                                               const ShardShapes& shard) {
  std::vector<ProfileTable::Point> curve;
  for (const ProfilePoint& p : no_cache) curve.push_back({1.0, static_cast<double>(p.key), p.time_us * 1e-6});
  const ProfileTable t(curve, 0.0, 0.0, [shard](double, double s) {
    const OperatorWork w = PrefillAttentionWork(shard, s, 0.0);
    return w.flops * 1e-15 + w.bytes * 1e-12;
  });
  std::vector<ProfileTable::Point> one_query;
  for (const AttentionPoint& p : decode) {
    if (p.rows == 1) one_query.push_back({1.0, static_cast<double>(p.context_tokens), p.time_us * 1e-6});
  }
  std::optional<ProfileTable> floor;
  if (!one_query.empty()) {
    floor.emplace(one_query, 0.0, 1.0, [shard](double, double c) {
      return DecodeAttentionWork(shard, 1.0, c).bytes * 1e-12 + 1e-6;
    });
  }
  const int64_t longest = no_cache.back().key;
  std::vector<AttentionPoint> out;
  for (const ProfilePoint& row : no_cache) {
    if (row.key < 2) continue;  // prefill chunks have >= 2 new tokens
    for (const int64_t c : kPrefillContexts) {
      const int64_t s = row.key + c;
      if (c > 0 && s > longest) break;
      const double sd = static_cast<double>(s), cd = static_cast<double>(c);
      double us = t.Lookup(1.0, sd).seconds * 1e6 * (sd * sd - cd * cd) / (sd * sd);
      if (c > 0 && floor) us = std::max(us, floor->Lookup(1.0, cd).seconds * 1e6);
      out.push_back({row.key, c, us});
    }
  }
  return out;
}

// Elementwise tables of the engine's fused kernels, modelled by `rule`.
std::vector<ElementwiseTable> FusedElementwise(const ShapeProfile& profile, const ShardShapes& s,
                                               int64_t vocab) {
  const ElementwiseRule& rule = profile.elementwise;
  const std::string how = "modelled: " + profile.source.kind + "'s analytic rule, bytes / (" +
                          std::to_string(rule.memory_bytes_per_second / 1e12).substr(0, 5) + " TB/s x " +
                          std::to_string(rule.bandwidth_fraction).substr(0, 4) + ") + " +
                          std::to_string(rule.constant_us).substr(0, 4) + " us";
  const double d = static_cast<double>(s.dtype_bytes);
  struct Op {
    ElementwiseId id;
    double bytes_per_token;  // < 0: priced 0.001 us (inside another kernel)
    double kernels;          // small-kernel constants per launch
    std::string note;
  };
  const std::vector<Op> ops = {
      {ElementwiseId::kRmsnorm, 4.0 * static_cast<double>(s.hidden) * d, 1, " over a fused add+RMSNorm"},
      {ElementwiseId::kRope, 2.0 * static_cast<double>(s.RopeWidth()) * d, 1, " over the in-place rotary embedding of q and k"},
      {ElementwiseId::kActivation, (s.gated_mlp ? 3.0 : 2.0) * static_cast<double>(s.ffn) * d, 1, ""},
      {ElementwiseId::kResidualAdd, -1, 0, "modelled: inside the fused add+RMSNorm kernel; priced at 0.001 us"},
      {ElementwiseId::kKvCacheWrite, -1, 0, "modelled: inside the attention timing (the source's attention includes the KV-cache write); priced at 0.001 us"},
      {ElementwiseId::kSampling, 2.0 * 4.0 * static_cast<double>(vocab), 8, " for 8 small kernels and two passes over fp32 logits per sequence"}};
  std::vector<ElementwiseTable> tables;
  for (const Op& op : ops) {
    ElementwiseTable table;
    table.name = ElementwiseName(op.id, s.gated_mlp);
    table.source = op.bytes_per_token < 0 ? op.note : how + op.note;
    for (int64_t tokens = 1; tokens <= 32768; tokens *= 2) {
      const double us = op.bytes_per_token < 0
                            ? 0.001
                            : rule.Microseconds(op.bytes_per_token * static_cast<double>(tokens)) +
                                  (op.kernels - 1) * rule.constant_us;
      table.points.push_back({tokens, us});
    }
    tables.push_back(std::move(table));
  }
  return tables;
}

std::vector<AllReduceTable> ResolveAllReduce(const ShapeProfile& profile, const ShardShapes& s) {
  std::vector<AllReduceTable> out;
  for (const ShapeAllReduceTable& table : profile.all_reduce) {
    if (table.gpus != s.tensor_parallel) continue;
    std::vector<ProfileTable::Point> curve;
    for (const ProfilePoint& p : table.points) curve.push_back({1.0, static_cast<double>(p.key), p.time_us * 1e-6});
    const ProfileTable t(curve, 0.0, 0.0, [](double, double bytes) { return 5e-6 + bytes / 100e9; });
    AllReduceTable resolved;
    resolved.tensor_parallel = table.gpus;
    for (int64_t tokens = 1; tokens <= 32768; tokens *= 2) {
      const double bytes = AllReduceBytes(s, static_cast<double>(tokens));
      resolved.points.push_back({tokens, t.Lookup(1.0, bytes).seconds * 1e6});
    }
    out.push_back(std::move(resolved));
  }
  return out;
}

// The GEMM tables of `dtype` ("bfloat16", "fp8", "fp8_block"); null when
// the source has none.
const std::vector<ShapeGemmTable>* GemmTablesOf(const ShapeProfile& profile, const std::string& dtype) {
  if (dtype == "bfloat16") return &profile.gemm;
  for (const ShapeGemmDtype& group : profile.gemm_fp8) {
    if (group.dtype == dtype && !group.tables.empty()) return &group.tables;
  }
  return nullptr;
}

// Every GEMM of the model: the quantized ones (GemmIsQuantized) from the
// tables of their weight format, or, where the source has none, from the
// bf16 tables (said, and flagged transferred); the rest from the bf16 tables.
void ResolveGemms(const ShapeProfile& profile, const ShardShapes& shard, KernelProfile& out,
                  ShapeResolution& r) {
  const std::string quantized = WeightQuantizationName(shard.quantization);
  const bool has_quantized_tables = GemmTablesOf(profile, quantized) != nullptr;
  for (int g = 0; g < kGemmCount; ++g) {
    const GemmId id = static_cast<GemmId>(g);
    if (!HasGemm(shard, id)) continue;
    const GemmShape shape = GemmShapeOf(shard, id);
    GemmTable table;
    table.name = std::string(GemmName(id));
    table.n = shape.n;
    table.k = shape.k;
    const bool is_quantized = GemmIsQuantized(shard, id);
    const std::string dtype = is_quantized && has_quantized_tables ? quantized : "bfloat16";
    std::string note;
    table.points = TransferGemm(*GemmTablesOf(profile, dtype), profile.ceilings, shape.n, shape.k, &note, dtype);
    if (table.points.empty()) continue;
    const bool fell_back = is_quantized && !has_quantized_tables;
    table.transferred = !note.empty() || fell_back;
    table.weight_dtype = dtype;  // a bf16 table pricing FP8 weights is rescaled by its fit
    if (!table.transferred) {
      ++r.gemm_measured;
    } else {
      ++r.gemm_transferred;
      std::string line = table.name + " " + std::to_string(shape.n) + "x" + std::to_string(shape.k);
      if (is_quantized) line += " " + quantized;
      if (!note.empty()) line += " " + note;
      if (fell_back) line += (note.empty() ? " " : ", ") + std::string("from the bf16 tables");
      r.notes.push_back(line);
    }
    out.gemm.push_back(std::move(table));
  }
  if (shard.quantization == WeightQuantization::kNone) return;
  r.quantized_gemms = quantized + " GEMMs from the source's " +
                      (has_quantized_tables ? quantized + " tables"
                                            : "bf16 tables (it has no " + quantized + " GEMM table; flagged)");
}

// One attention kind for `heads` by `transfer(tables, kv_bytes, note)`: from
// the FP8-KV tables when the KV cache is FP8 and they hold the head dim,
// else from the bf16-KV tables (`fell_back` set when the cache is FP8).
template <typename Table, typename Transfer>
auto AttentionFrom(const std::vector<Table>& fp8kv, const std::vector<Table>& bf16kv, bool fp8_kv,
                   Transfer transfer, std::string& note, bool& fell_back) {
  if (fp8_kv) {
    auto points = transfer(fp8kv, 1, note);
    if (!points.empty()) return points;
    note.clear();
  }
  fell_back = fp8_kv;
  return transfer(bf16kv, 2, note);
}

// The head dim among `tables` nearest `want` in log2 (ties: the smaller);
// `want` itself when there are no tables.
template <typename Table>
int64_t NearestHeadDim(const std::vector<Table>& tables, int64_t want) {
  int64_t best = want;
  double best_distance = 1e300;
  for (const Table& t : tables) {
    const double d = std::abs(std::log2(static_cast<double>(t.heads.head_dim) / static_cast<double>(want)));
    if (d < best_distance || (d == best_distance && t.heads.head_dim < best)) {
      best = t.heads.head_dim;
      best_distance = d;
    }
  }
  return best;
}

// The model's attention tables from no-cache prefill and decode points.
void FillAttention(const ShardShapes& shard, const std::vector<ProfilePoint>& no_cache,
                   const std::vector<AttentionPoint>& decode, KernelProfile& out) {
  for (AttentionTable* t : {&out.prefill_attention, &out.decode_attention}) {
    t->q_heads = shard.q_heads;
    t->kv_heads = shard.kv_heads;
    t->head_dim = shard.head_dim;
    t->block_tokens = 16;
  }
  out.prefill_attention.points = PrefillWithContext(no_cache, decode, shard);
  out.decode_attention.points = decode;
}

// The profile's MLA tables of KV dtype `kv` at the model's latent geometry
// and its heads on this GPU; nulls when there are none.
struct MeasuredMla {
  const ShapeMlaAttention* group = nullptr;
  const ShapePrefillTable* prefill = nullptr;
  const ShapeDecodeTable* decode = nullptr;
};
MeasuredMla FindMeasuredMla(const ShapeProfile& profile, const ShardShapes& shard, const std::string& kv) {
  for (const ShapeMlaAttention& g : profile.mla) {
    if (g.kv_cache_dtype != kv || g.kv_lora_rank != shard.mla_latent || g.qk_rope_head_dim != shard.mla_rope ||
        g.qk_nope_head_dim != shard.mla_nope || g.v_head_dim != shard.mla_v) {
      continue;
    }
    MeasuredMla m{&g, nullptr, nullptr};
    for (const ShapePrefillTable& t : g.prefill) {
      if (t.heads.q_heads == shard.q_heads) m.prefill = &t;
    }
    for (const ShapeDecodeTable& t : g.decode) {
      if (t.heads.q_heads == shard.q_heads) m.decode = &t;
    }
    if (m.prefill != nullptr && m.decode != nullptr) return m;
  }
  return {};
}

// MLA attention from the profile's own MLA tables; false when it has none
// for this model (the GQA carry then applies).
bool ResolveMeasuredMla(const ShapeProfile& profile, const ShardShapes& shard, KernelProfile& out,
                        ShapeResolution& r) {
  const bool fp8_kv = shard.kv_bytes == 1;
  MeasuredMla m = FindMeasuredMla(profile, shard, fp8_kv ? "fp8" : "bfloat16");
  const bool fell_back = m.group == nullptr && fp8_kv;
  if (fell_back) m = FindMeasuredMla(profile, shard, "bfloat16");
  if (m.group == nullptr) return false;
  FillAttention(shard, m.prefill->points, m.decode->points, out);
  out.prefill_attention.transferred = fell_back;
  out.decode_attention.transferred = fell_back;
  out.prefill_attention.kv_cache_dtype = m.group->kv_cache_dtype;
  out.decode_attention.kv_cache_dtype = m.group->kv_cache_dtype;
  r.prefill_heads_measured = true;
  r.decode_heads_measured = true;
  r.mla = "MLA attention measured at " + std::to_string(shard.q_heads) + " heads, latent " +
          std::to_string(shard.mla_latent) + " + rope " + std::to_string(shard.mla_rope) + " (" + m.group->kernel +
          ", " + m.group->kv_cache_dtype + " KV)";
  if (fp8_kv) {
    r.kv_cache = fell_back ? "attention over the FP8 KV cache from the bf16-KV MLA tables (the source has no FP8-KV "
                             "MLA table; flagged)"
                           : "attention over the FP8 KV cache from the FP8-KV MLA tables";
  }
  return true;
}

void ResolveAttention(const ShapeProfile& profile, const ShardShapes& shard, KernelProfile& out,
                      ShapeResolution& r) {
  if (shard.IsMla() && ResolveMeasuredMla(profile, shard, out, r)) return;
  const ShapeHeads heads{shard.q_heads, shard.kv_heads, shard.head_dim};
  const bool fp8_kv = shard.kv_bytes == 1;
  // MLA without a table of its own: prefill (every head's attention over
  // the expanded K and V) is carried from the tables of the nearest head dim
  // to its query-key width, decode (one latent read by every head) from the
  // single-KV-head tables of the head dim nearest the latent's, each by the
  // ratio of MLA's speed of light to theirs (flagged transferred).
  const bool mla = shard.IsMla();
  const ShapeHeads prefill_heads =
      mla ? ShapeHeads{shard.q_heads, shard.q_heads, NearestHeadDim(profile.prefill_attention, shard.head_dim)}
          : heads;
  const ShapeHeads decode_heads =
      mla ? ShapeHeads{shard.q_heads, 1, NearestHeadDim(profile.decode_attention, shard.mla_latent)} : heads;
  const auto mla_target = [&](int64_t kv_bytes) {
    ShardShapes t = shard;
    t.kv_bytes = kv_bytes;
    return t;
  };
  std::string prefill_note, decode_note;
  bool prefill_fell_back = false, decode_fell_back = false;
  const std::vector<ProfilePoint> no_cache = AttentionFrom(
      profile.prefill_attention_fp8kv, profile.prefill_attention, fp8_kv,
      [&](const std::vector<ShapePrefillTable>& t, int64_t kv_bytes, std::string& note) {
        const ShardShapes target = mla_target(kv_bytes);
        return TransferPrefill(t, profile.ceilings, prefill_heads, &note, kv_bytes, mla ? &target : nullptr);
      },
      prefill_note, prefill_fell_back);
  const std::vector<AttentionPoint> decode = AttentionFrom(
      profile.decode_attention_fp8kv, profile.decode_attention, fp8_kv,
      [&](const std::vector<ShapeDecodeTable>& t, int64_t kv_bytes, std::string& note) {
        const ShardShapes target = mla_target(kv_bytes);
        return TransferDecode(t, profile.ceilings, decode_heads, &note, kv_bytes, mla ? &target : nullptr);
      },
      decode_note, decode_fell_back);
  if (mla) {
    const std::string shape = "MLA " + std::to_string(shard.q_heads) + " heads, latent " +
                              std::to_string(shard.mla_latent) + " + rope " + std::to_string(shard.mla_rope);
    if (!prefill_note.empty()) {
      prefill_note = "(" + shape + ", qk " + std::to_string(shard.head_dim) + ", v " + std::to_string(shard.mla_v) +
                     ") by speed of light from the head-dim-" + std::to_string(prefill_heads.head_dim) +
                     " tables, " + prefill_note.substr(5);  // "from heads ..." -> "heads ..."
    }
    if (!decode_note.empty()) {
      decode_note = "(" + shape + ", absorbed) by speed of light from the head-dim-" +
                    std::to_string(decode_heads.head_dim) + " tables, " + decode_note.substr(5);
    }
  }
  if (no_cache.empty() || decode.empty()) {
    throw InputError(profile.origin, 0, no_cache.empty() ? "prefill_attention" : "decode_attention",
                     "no table of head dim " + std::to_string(shard.head_dim));
  }
  r.prefill_heads_measured = prefill_note.empty();
  r.decode_heads_measured = decode_note.empty();
  const std::string kv = fp8_kv ? " fp8 KV" : "";
  if (!prefill_note.empty()) r.notes.push_back("prefill attention " + HeadsText(heads) + kv + " " + prefill_note);
  if (!decode_note.empty()) r.notes.push_back("decode attention " + HeadsText(heads) + kv + " " + decode_note);
  if (fp8_kv) {
    // The head dims searched (MLA's differ between prefill and decode).
    const std::string p_dim = std::to_string(prefill_heads.head_dim);
    const std::string d_dim = std::to_string(decode_heads.head_dim);
    const std::string missing =
        prefill_fell_back && decode_fell_back
            ? (p_dim == d_dim ? "head dim " + p_dim + " for prefill and decode"
                              : "head dim " + p_dim + " for prefill and " + d_dim + " for decode")
        : prefill_fell_back ? "head dim " + p_dim + " for prefill"
                            : "head dim " + d_dim + " for decode";
    r.kv_cache = prefill_fell_back || decode_fell_back
                     ? "attention over the FP8 KV cache from the bf16-KV tables (the source has no FP8-KV table of " +
                           missing + "; flagged)"
                     : "attention over the FP8 KV cache from the FP8-KV tables";
  }
  FillAttention(shard, no_cache, decode, out);
  out.prefill_attention.transferred = !prefill_note.empty() || prefill_fell_back;
  out.decode_attention.transferred = !decode_note.empty() || decode_fell_back;
  // The cache format the times were measured with (bf16 tables pricing an
  // FP8 cache are rescaled by their fit).
  out.prefill_attention.kv_cache_dtype = fp8_kv && !prefill_fell_back ? "fp8" : "bfloat16";
  out.decode_attention.kv_cache_dtype = fp8_kv && !decode_fell_back ? "fp8" : "bfloat16";
}

// The MoE table key of the model's fused experts at its TP (and EP).
ShapeMoeKey MoeKeyOf(const ShardShapes& shard) {
  ShapeMoeKey key;
  key.dtype = shard.quantization == WeightQuantization::kNone ? "bfloat16"
                                                              : WeightQuantizationName(shard.quantization);
  key.hidden = shard.hidden;
  key.tp = shard.MoeTensorParallel();
  key.ep = shard.expert_parallel;
  key.inter = shard.expert_ffn * key.tp;  // the full size, as the source keys it
  key.topk = shard.experts_per_token;
  key.experts = shard.experts;
  key.distribution = "balanced";
  return key;
}

// KernelProfile::moe for an MoE model: the table of the weights' dtype and
// the run's (tp, ep) with balanced routing, measured or transferred; failing
// that (said, flagged transferred) skewed routing, then the bf16 tables.
// Under power-law routing the skewed tables come first and even routing
// stands in (flagged). With none, the profile latency model prices the
// experts by the roofline.
void ResolveMoe(const ShapeProfile& profile, const ShardShapes& shard, const std::string& backend, KernelProfile& out,
                ShapeResolution& r) {
  if (shard.moe_layers == 0) return;
  const std::set<std::string> has = backend.empty() ? std::set<std::string>{} : MoeBackendsOf(profile.moe);
  if (!backend.empty() && !has.count(backend)) {
    std::string list;
    for (const std::string& b : has) list += (list.empty() ? "" : ", ") + b;
    throw UsageError("--moe-backend " + backend + ": " + profile.origin + " has no MoE tables of it (" +
                     (list.empty() ? "it has no MoE tables" : "it has: " + list) + ")");
  }
  const ShapeMoeKey want = MoeKeyOf(shard);
  // An expert-parallel group that spans nodes is larger than any table
  // (AIConfigurator times groups of at most 8 GPUs): it is read from the
  // largest EP the tables have at this tp, at the same tokens, which for one
  // model means the same tokens per expert, and scaled by the ratio of the
  // two groups' roofline times (half the experts per GPU at twice the EP).
  int64_t read_ep = want.ep;
  if (shard.MoeGroupSpansNodes() && want.ep > 1) {
    read_ep = 0;
    for (const ShapeMoeTable& t : profile.moe) {
      if (t.key.tp == want.tp && t.key.ep <= want.ep) read_ep = std::max(read_ep, t.key.ep);
    }
    if (read_ep == 0) read_ep = want.ep;
  }
  const bool skewed = shard.moe_routing == MoeRouting::kPowerLaw;
  const std::vector<std::string> distributions =
      skewed ? std::vector<std::string>{"power_law_1.2", "balanced", "uniform"}
             : std::vector<std::string>{"balanced", "uniform", "power_law_1.2"};
  std::vector<ShapeMoeKey> tries;
  for (const std::string& dtype : {want.dtype, std::string("bfloat16")}) {
    for (const std::string& distribution : distributions) {
      ShapeMoeKey key = want;
      key.dtype = dtype;
      key.distribution = distribution;
      key.ep = read_ep;
      if (std::find(tries.begin(), tries.end(), key) == tries.end()) tries.push_back(key);
    }
  }
  for (size_t i = 0; i < tries.size(); ++i) {
    std::string note, kernel;
    std::vector<ProfilePoint> points = TransferMoe(profile.moe, profile.ceilings, tries[i], &note, &kernel, backend);
    if (points.empty()) continue;
    const ShapeMoeKey& key = tries[i];
    if (key.ep != want.ep) {
      ShapeMoeKey target = key;
      target.ep = want.ep;
      for (ProfilePoint& p : points) {
        const double t = static_cast<double>(p.key);
        p.time_us *= MoeSolSeconds(profile.ceilings, target, t) / MoeSolSeconds(profile.ceilings, key, t);
      }
      note = (note.empty() ? "" : note + "; ") + "from ep " + std::to_string(key.ep) +
             " tables at equal tokens, scaled by the roofline to ep " + std::to_string(want.ep) +
             " (the group spans nodes)";
    }
    // The run's dtype with even or random routing is what the source
    // measured for it; another dtype or skewed routing stands in (flagged).
    const bool stand_in = key.dtype != want.dtype || (key.distribution == "power_law_1.2") != skewed;
    MoeTable table;
    table.kernel = kernel;
    table.distribution = key.distribution;
    table.weight_dtype = key.dtype;
    table.includes_router = std::any_of(profile.moe.begin(), profile.moe.end(), [&](const ShapeMoeTable& t) {
      return t.includes_router && t.key.dtype == key.dtype && t.key.distribution == key.distribution;
    });
    table.points = std::move(points);
    table.transferred = stand_in || !note.empty();
    r.moe = std::string("MoE experts ") + (note.empty() ? "measured" : "transferred") + " at " +
            MoeKeyText(key) + (backend.empty() ? "" : " from " + backend + " kernels (--moe-backend)") +
            (stand_in ? " (no " + want.dtype + (skewed ? " power-law table" : " table of even or random routing") +
                            " at this tp and ep; flagged)"
                      : "");
    if (!note.empty()) r.notes.push_back("moe_experts " + MoeKeyText(tries[i]) + " " + note);
    out.moe = std::move(table);
    return;
  }
  r.moe = "no MoE table at tp " + std::to_string(want.tp) + " ep " + std::to_string(want.ep) + " for " +
          MoeKeyText(want) + (backend.empty() ? "" : " of backend " + backend) +
          " (nor bf16, nor skewed routing): the roofline prices the experts (flagged)";
}

}  // namespace

std::string ShapeResolution::Summary() const {
  std::string text = "GEMMs " + std::to_string(gemm_measured) + " of " +
                     std::to_string(gemm_measured + gemm_transferred) + " at measured (n, k)";
  text += prefill_heads_measured && decode_heads_measured ? "; attention heads measured"
                                                          : "; attention heads transferred";
  for (const std::string* phrase : {&quantized_gemms, &kv_cache, &mla, &moe}) {
    if (!phrase->empty()) text += "; " + *phrase;
  }
  if (!notes.empty()) {
    text += "; transferred by the shape rule (";
    for (size_t i = 0; i < notes.size(); ++i) text += (i ? "; " : "") + notes[i];
    text += ")";
  }
  return text;
}

KernelProfile ResolveShapeProfile(const ShapeProfile& profile, const ModelSpec& model,
                                  int64_t tensor_parallel, ShapeResolution* resolution,
                                  const std::string& moe_backend) {
  const ShardShapes shard = ShardModel(model, tensor_parallel);
  ShapeResolution r;
  KernelProfile out;
  out.gpu = profile.gpu;
  out.model = model.name;
  out.command = profile.command;
  out.tensor_parallel = tensor_parallel;
  out.interpolation = Interpolation::kLinear;
  out.gemm_kernel = profile.source.stack;
  out.prefill_attention_kernel = profile.source.stack;
  out.decode_attention_kernel = profile.source.stack;
  out.elementwise_kernel = "modelled by " + profile.source.kind + "'s analytic rule";
  out.provenance.gpu_name = profile.device;
  out.provenance.date_utc = profile.measured_on;
  out.source = profile.source;
  ResolveGemms(profile, shard, out, r);
  ResolveAttention(profile, shard, out, r);
  ResolveMoe(profile, shard, moe_backend, out, r);
  out.elementwise = FusedElementwise(profile, shard, shard.vocab * shard.tensor_parallel);
  out.all_reduce = ResolveAllReduce(profile, shard);
  out.origin = profile.origin + ", resolved for " + model.name + " at TP " +
               std::to_string(tensor_parallel) + ": " + r.Summary();
  out.cpu_overhead = DefaultProfileCpuOverhead();
  if (resolution) *resolution = std::move(r);
  return out;
}

}  // namespace efimsim
