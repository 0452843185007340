#include "models/import/aiconfigurator_import.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <initializer_list>
#include <iterator>
#include <map>
#include <set>
#include <tuple>

#include "models/import/csv_columns.h"
#include "models/latency/moe_backend.h"
#include "models/latency/shape_rule.h"
#include "models/formats/strict_json_io.h"
#include "sim/base/errors.h"
#include "sim/base/sha256.h"

namespace efimsim {
namespace {

constexpr const char* kWhat = "an AIConfigurator CSV";

// The device names AIConfigurator's collector recorded, per efimsim GPU.
const std::map<std::string, std::string>& ExpectedDevices() {
  static const std::map<std::string, std::string> devices = {
      {"h100-sxm", "NVIDIA H100 80GB HBM3"}, {"h200", "NVIDIA H200"}, {"b200", "NVIDIA B200"},
      {"a100-sxm-80g", "NVIDIA A100-SXM4-80GB"}, {"l40s", "NVIDIA L40S"}};
  return devices;
}

struct SourceCsv {
  std::string path;
  std::string text;  // kept alive for the views of `csv`
  std::string sha256;
};

SourceCsv ReadCsv(const std::string& path) {
  SourceCsv file{path, ReadWholeFile(path), ""};
  file.sha256 = Sha256Hex(file.text);
  return file;
}

// Attention rows the import keeps: bf16 queries and compute over a KV cache
// of `kv_dtype` ("bfloat16" or "fp8"), full attention, beam 1.
bool KeptAttentionRow(const CsvColumns& csv, size_t row, const std::string& kv_dtype) {
  if (csv.Text(row, "attn_dtype") != "bfloat16" || csv.Text(row, "kv_cache_dtype") != kv_dtype) return false;
  if (csv.Has("window_size") && csv.Int(row, "window_size", 0) != 0) return false;
  return csv.Int(row, "beam_width", 1) == 1;
}

// Checks the device column.
void CheckDevice(const CsvColumns& csv, size_t row, const std::string& device) {
  const std::string seen = csv.Text(row, "device");
  if (seen != device) {
    throw InputError(csv.origin(), csv.Line(row), "device",
                     "measured on \"" + seen + "\", not \"" + device + "\"");
  }
}

// Every column a reader uses, checked before the first row (an InputError
// naming the file, line 1 and the column).
void RequireColumns(const CsvColumns& csv, std::initializer_list<const char*> columns) {
  for (const char* column : columns) csv.Require(column);
}

std::string Joined(const std::set<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

// One file's GEMM rows of some dtypes: dtype -> (n, k) -> m -> us, the
// first row of a repeated key kept, each time raised to the dtype's speed of
// light (GemmSolSeconds, as AIConfigurator's loader does).
struct GemmRows {
  std::map<std::string, std::map<std::pair<int64_t, int64_t>, std::map<int64_t, double>>> tables;
  std::map<std::string, std::set<std::string>> kernels;  // by dtype
  int64_t repeats = 0;
  int64_t clamped = 0;
};

GemmRows ReadGemmRows(const SourceCsv& file, const std::string& device, const ShapeCeilings& ceilings,
                      const std::set<std::string>& dtypes) {
  const CsvColumns csv(file.text, file.path, kWhat);
  RequireColumns(csv, {"device", "kernel_source", "gemm_dtype", "m", "n", "k", "latency"});
  GemmRows rows;
  for (size_t r = 0; r < csv.Rows(); ++r) {
    CheckDevice(csv, r, device);
    const std::string dtype = csv.Text(r, "gemm_dtype");
    if (!dtypes.count(dtype)) continue;
    rows.kernels[dtype].insert(csv.Text(r, "kernel_source"));
    const int64_t m = csv.Int(r, "m", 1), n = csv.Int(r, "n", 1), k = csv.Int(r, "k", 1);
    double us = csv.Milliseconds(r, "latency") * 1000.0;
    const double sol = GemmSolSeconds(ceilings, dtype, static_cast<double>(m), static_cast<double>(n),
                                      static_cast<double>(k)) * 1e6;
    if (us < sol) {
      us = sol;
      ++rows.clamped;
    }
    if (!rows.tables[dtype][{n, k}].emplace(m, us).second) ++rows.repeats;  // the first row of a key wins
  }
  return rows;
}

std::vector<ShapeGemmTable> GemmTablesOf(const std::map<std::pair<int64_t, int64_t>, std::map<int64_t, double>>& by_nk) {
  std::vector<ShapeGemmTable> tables;
  for (const auto& [nk, points] : by_nk) {
    ShapeGemmTable t{nk.first, nk.second, {}};
    for (const auto& [m, us] : points) t.points.push_back({m, us});
    tables.push_back(std::move(t));
  }
  return tables;
}

void ReadGemm(const SourceCsv& file, const std::string& device, ShapeProfile& profile,
              std::set<std::string>& kernels, std::vector<std::string>& notes) {
  GemmRows rows = ReadGemmRows(file, device, profile.ceilings, {"bfloat16"});
  profile.gemm = GemmTablesOf(rows.tables["bfloat16"]);
  kernels.insert(rows.kernels["bfloat16"].begin(), rows.kernels["bfloat16"].end());
  notes.push_back("gemm: " + std::to_string(profile.gemm.size()) + " (n, k) shapes from " + file.path + "; " +
                  std::to_string(rows.repeats) + " repeated keys (first row kept), " + std::to_string(rows.clamped) +
                  " times raised to the speed of light");
}

using GemmByShape = std::map<std::pair<int64_t, int64_t>, std::map<int64_t, double>>;

// Whether the source timed `dtype`'s rows of `engine` eagerly (no CUDA
// graph), so that they carry a host-launch floor: the README says so of
// vLLM's fp8_block rows only (every other table is CUDA-graph replays, and
// the data agree: SGLang fp8_block and vLLM fp8 sit near their byte bound
// at small m, vLLM fp8_block at 60-90 us on H100/H200 whatever the shape).
bool EagerTimed(const std::string& engine, const std::string& dtype) {
  return engine == "vllm_v1" && dtype == "fp8_block";
}

// `us` with one decimal, for the notes.
std::string FormatUs(double us) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", us);
  return text;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

// The launch floor per m, us: the median over the (n, k) both tables
// measured at that m of (eager time - graph-timed `twin` time, the same
// bytes), at least 0; an m with fewer than 3 such shapes gets none.
std::map<int64_t, double> LaunchFloors(const GemmByShape& eager, const GemmByShape& twin) {
  std::map<int64_t, std::vector<double>> gaps;
  for (const auto& [nk, points] : eager) {
    const auto other = twin.find(nk);
    if (other == twin.end()) continue;
    for (const auto& [m, us] : points) {
      const auto it = other->second.find(m);
      if (it != other->second.end()) gaps[m].push_back(us - it->second);
    }
  }
  std::map<int64_t, double> floors;
  for (const auto& [m, g] : gaps) {
    if (g.size() >= 3) floors[m] = std::max(0.0, Median(g));
  }
  return floors;
}

// Removes the launch floor F(m) from the eager rows it dominates (time <
// 2 F(m)); rows at 2 F(m) or more are kept (an eager loop's per-call time is
// max(launches, kernel): there the kernel outlasts the launches). Never
// below the speed of light at `dtype`. Returns the rows lowered.
int64_t RemoveLaunchFloor(GemmByShape& eager, const std::map<int64_t, double>& floors, const ShapeCeilings& ceilings,
                          const std::string& dtype) {
  int64_t lowered = 0;
  for (auto& [nk, points] : eager) {
    for (auto& [m, us] : points) {
      const auto f = floors.find(m);
      if (f == floors.end() || !(us < 2 * f->second)) continue;
      const double sol = GemmSolSeconds(ceilings, dtype, static_cast<double>(m), static_cast<double>(nk.first),
                                        static_cast<double>(nk.second)) * 1e6;
      us = std::max(sol, us - f->second);
      ++lowered;
    }
  }
  return lowered;
}

// "F(1) 46.5, F(64) 72.6, ..." at the m the notes quote, and the median of
// F(m) over m <= 64 (the decode range), us.
std::string FloorSummary(const std::map<int64_t, double>& floors) {
  std::vector<double> small;
  std::string at;
  for (const auto& [m, us] : floors) {
    if (m <= 64) small.push_back(us);
    if (m == 1 || m == 32 || m == 64 || m == 1024 || m == 8192) at += ", m " + std::to_string(m) + ": " + FormatUs(us);
  }
  return FormatUs(small.empty() ? 0.0 : Median(small)) + " us median over m <= 64 (" + at.substr(2) + " us)";
}

// The eager tables of `rows` (EagerTimed) with their launch floor removed,
// estimated against the file's graph-timed fp8 rows; notes say the floor.
// Too few shapes to estimate from (a small file): kept, and said.
void RemoveEagerFloors(GemmRows& rows, const std::string& engine, const ShapeCeilings& ceilings,
                       const std::string& path, std::vector<std::string>& notes) {
  const auto graph = rows.tables.find("fp8");
  for (auto& [dtype, by_nk] : rows.tables) {
    if (!EagerTimed(engine, dtype)) continue;
    const std::map<int64_t, double> floors =
        graph == rows.tables.end() ? std::map<int64_t, double>{} : LaunchFloors(by_nk, graph->second);
    if (floors.empty()) {
      notes.push_back("gemm " + dtype + ": timed eagerly (" + engine + ") but no m has 3 (n, k) with fp8 rows in " +
                      path + " to estimate the launch floor from: kept as measured (upper bounds)");
      continue;
    }
    const int64_t lowered = RemoveLaunchFloor(by_nk, floors, ceilings, dtype);
    notes.push_back("gemm " + dtype + ": timed eagerly (" + engine + "); launch floor " + FloorSummary(floors) +
                    ", the median per m of its time minus the CUDA-graph fp8 time at the same (n, k); removed from " +
                    std::to_string(lowered) + " rows under twice their m's floor, none below the speed of light");
  }
}

// gemm_fp8.csv: fp8 and fp8_block GEMMs, kept only at the (n, k) the bf16
// tables have (the size budget; every one of the source's has a twin);
// eager-timed tables (EagerTimed) with their launch floor removed.
void ReadGemmFp8(const SourceCsv& file, const std::string& device, ShapeProfile& profile,
                 std::vector<std::string>& notes) {
  if (!(profile.ceilings.fp8_flops_per_second > 0)) {
    throw InputError(file.path, 0, "fp8_tc_flops", "systems.csv states no FP8 ceiling for these FP8 tables");
  }
  GemmRows rows = ReadGemmRows(file, device, profile.ceilings, {"fp8", "fp8_block"});
  RemoveEagerFloors(rows, profile.engine, profile.ceilings, file.path, notes);
  std::set<std::pair<int64_t, int64_t>> bf16;
  for (const ShapeGemmTable& t : profile.gemm) bf16.insert({t.n, t.k});
  for (auto& [dtype, by_nk] : rows.tables) {
    int64_t dropped = 0;
    for (auto it = by_nk.begin(); it != by_nk.end();) {
      const bool keep = bf16.count(it->first) != 0;
      dropped += keep ? 0 : 1;
      it = keep ? std::next(it) : by_nk.erase(it);
    }
    profile.gemm_fp8.push_back({dtype, Joined(rows.kernels[dtype]), GemmTablesOf(by_nk)});
    notes.push_back("gemm " + dtype + ": " + std::to_string(by_nk.size()) + " (n, k) shapes from " + file.path +
                    " (" + Joined(rows.kernels[dtype]) + "); " + std::to_string(dropped) +
                    " shapes without a bf16 twin dropped");
  }
  notes.push_back("gemm fp8 dtypes: " + std::to_string(rows.repeats) + " repeated keys (first row kept), " +
                  std::to_string(rows.clamped) + " times raised to the FP8 speed of light");
}

// Prefill times by heads, then new tokens: one table per heads, sorted.
using PrefillRows = std::map<ShapeHeads, std::map<int64_t, double>>;
std::vector<ShapePrefillTable> PrefillTablesOf(const PrefillRows& tables) {
  std::vector<ShapePrefillTable> out;
  for (const auto& [heads, points] : tables) {
    ShapePrefillTable t{heads, {}};
    for (const auto& [tokens, us] : points) t.points.push_back({tokens, us});
    out.push_back(std::move(t));
  }
  return out;
}

// Decode times by heads, then (batch, context): one table per heads, sorted.
using DecodeRows = std::map<ShapeHeads, std::map<std::pair<int64_t, int64_t>, double>>;
std::vector<ShapeDecodeTable> DecodeTablesOf(const DecodeRows& tables) {
  std::vector<ShapeDecodeTable> out;
  for (const auto& [heads, points] : tables) {
    ShapeDecodeTable t{heads, {}};
    for (const auto& [key, us] : points) t.points.push_back({key.first, key.second, us});
    out.push_back(std::move(t));
  }
  return out;
}

// Context attention rows of batch 1 over a KV cache of `kv_dtype`.
std::vector<ShapePrefillTable> ReadPrefill(const SourceCsv& file, const std::string& device,
                                           const std::string& kv_dtype, std::set<std::string>& kernels) {
  const CsvColumns csv(file.text, file.path, kWhat);
  RequireColumns(csv, {"device", "kernel_source", "attn_dtype", "kv_cache_dtype", "batch_size", "isl", "step",
                       "num_heads", "num_key_value_heads", "head_dim", "latency"});
  PrefillRows tables;
  for (size_t r = 0; r < csv.Rows(); ++r) {
    CheckDevice(csv, r, device);
    if (!KeptAttentionRow(csv, r, kv_dtype) || csv.Int(r, "batch_size", 1) != 1) continue;
    kernels.insert(csv.Text(r, "kernel_source"));
    if (csv.Int(r, "step", 0) != 0) throw InputError(file.path, csv.Line(r), "step", "expected 0 (no cached prefix)");
    const ShapeHeads heads{csv.Int(r, "num_heads", 1), csv.Int(r, "num_key_value_heads", 1), csv.Int(r, "head_dim", 1)};
    tables[heads].emplace(csv.Int(r, "isl", 1), csv.Milliseconds(r, "latency") * 1000.0);
  }
  return PrefillTablesOf(tables);
}

// Generation attention rows over a KV cache of `kv_dtype` (context = step).
std::vector<ShapeDecodeTable> ReadDecode(const SourceCsv& file, const std::string& device,
                                         const std::string& kv_dtype, std::set<std::string>& kernels) {
  const CsvColumns csv(file.text, file.path, kWhat);
  RequireColumns(csv, {"device", "kernel_source", "attn_dtype", "kv_cache_dtype", "batch_size", "isl", "step",
                       "num_heads", "num_key_value_heads", "head_dim", "latency"});
  DecodeRows tables;
  for (size_t r = 0; r < csv.Rows(); ++r) {
    CheckDevice(csv, r, device);
    if (!KeptAttentionRow(csv, r, kv_dtype)) continue;
    kernels.insert(csv.Text(r, "kernel_source"));
    if (csv.Int(r, "isl", 1) != 1) throw InputError(file.path, csv.Line(r), "isl", "expected 1 (one new token)");
    const ShapeHeads heads{csv.Int(r, "num_heads", 1), csv.Int(r, "num_key_value_heads", 1), csv.Int(r, "head_dim", 1)};
    tables[heads].emplace(std::pair(csv.Int(r, "batch_size", 1), csv.Int(r, "step", 0)),
                          csv.Milliseconds(r, "latency") * 1000.0);
  }
  return DecodeTablesOf(tables);
}

// SGLang's MLA attention kernels (context_mla.csv: prefill, no cached
// prefix, batch-1 rows; generation_mla.csv: absorbed decode, context =
// step), one ShapeMlaAttention per KV-cache dtype. The collector times
// DeepSeek-V3's latent geometry (kv_lora_rank 512, qk_rope 64, qk_nope
// 128, v 128; ../shared/data/gpu/aiconfigurator/README.md, "MLA"), which
// the files do not record. Repeated keys: the first row is kept.
void ReadMla(const SourceCsv& context, const SourceCsv& generation, const std::string& device,
             ShapeProfile& profile, std::vector<std::string>& notes) {
  constexpr int64_t kLatent = 512, kRope = 64, kNope = 128, kV = 128;
  const auto require = [](const CsvColumns& csv) {
    RequireColumns(csv, {"device", "kernel_source", "mla_dtype", "kv_cache_dtype", "num_heads", "batch_size", "isl",
                         "step", "latency"});
  };
  // Per KV dtype: the group (its kernel from the first row), then its rows.
  std::map<std::string, ShapeMlaAttention> by_dtype;
  auto group = [&](const CsvColumns& csv, size_t r) {
    const std::string kv = csv.Text(r, "kv_cache_dtype");
    by_dtype.try_emplace(kv, ShapeMlaAttention{kv, kLatent, kRope, kNope, kV, csv.Text(r, "kernel_source"), {}, {}});
  };
  std::map<std::string, PrefillRows> prefill;
  std::map<std::string, DecodeRows> decode;
  int64_t repeats = 0;
  const CsvColumns c(context.text, context.path, kWhat);
  require(c);
  for (size_t r = 0; r < c.Rows(); ++r) {
    CheckDevice(c, r, device);
    const std::string kv = c.Text(r, "kv_cache_dtype");
    if (c.Text(r, "mla_dtype") != "bfloat16" || (kv != "bfloat16" && kv != "fp8") || c.Int(r, "batch_size", 1) != 1) {
      continue;
    }
    if (c.Int(r, "step", 0) != 0) throw InputError(context.path, c.Line(r), "step", "expected 0 (no cached prefix)");
    group(c, r);
    const int64_t heads = c.Int(r, "num_heads", 1);
    const ShapeHeads key{heads, heads, kNope + kRope};
    repeats += prefill[kv][key].emplace(c.Int(r, "isl", 1), c.Milliseconds(r, "latency") * 1000.0).second ? 0 : 1;
  }
  const CsvColumns g(generation.text, generation.path, kWhat);
  require(g);
  for (size_t r = 0; r < g.Rows(); ++r) {
    CheckDevice(g, r, device);
    const std::string kv = g.Text(r, "kv_cache_dtype");
    if (g.Text(r, "mla_dtype") != "bfloat16" || (kv != "bfloat16" && kv != "fp8")) continue;
    if (g.Int(r, "isl", 1) != 1) throw InputError(generation.path, g.Line(r), "isl", "expected 1 (one new token)");
    group(g, r);
    const ShapeHeads heads{g.Int(r, "num_heads", 1), 1, kLatent};
    const auto key = std::pair(g.Int(r, "batch_size", 1), g.Int(r, "step", 0));
    repeats += decode[kv][heads].emplace(key, g.Milliseconds(r, "latency") * 1000.0).second ? 0 : 1;
  }
  for (auto& [kv, m] : by_dtype) {
    m.prefill = PrefillTablesOf(prefill[kv]);
    m.decode = DecodeTablesOf(decode[kv]);
    if (m.prefill.empty() || m.decode.empty()) {
      throw InputError(m.prefill.empty() ? context.path : generation.path, 0, "kv_cache_dtype",
                       "MLA rows of KV dtype " + kv + " in one file but not the other");
    }
    notes.push_back("MLA attention, " + kv + " KV cache (" + m.kernel + ", latent 512 + rope 64, qk_nope 128, v 128 "
                    "as the collector times DeepSeek-V3): " + std::to_string(m.prefill.size()) + " prefill and " +
                    std::to_string(m.decode.size()) + " decode head counts from " + context.path + " and " +
                    generation.path);
    profile.mla.push_back(std::move(m));
  }
  notes.push_back("MLA attention: " + std::to_string(repeats) + " repeated keys (first row kept)");
}

void ReadAllReduce(const SourceCsv& file, const std::string& device, ShapeProfile& profile,
                   std::set<std::string>& kernels, std::vector<std::string>& notes) {
  const CsvColumns csv(file.text, file.path, kWhat);
  std::map<int64_t, std::map<int64_t, double>> tables;
  for (size_t r = 0; r < csv.Rows(); ++r) {
    CheckDevice(csv, r, device);
    const std::string backend = csv.Text(r, "backend");
    if (backend.size() >= 6 && backend.compare(backend.size() - 6, 6, "_eager") == 0) continue;
    if (csv.Text(r, "allreduce_dtype") != "bfloat16") continue;
    kernels.insert(csv.Text(r, "kernel_source"));
    tables[csv.Int(r, "num_gpus", 2)].emplace(2 * csv.Int(r, "message_size", 1),
                                              csv.Milliseconds(r, "latency") * 1000.0);
  }
  for (const auto& [gpus, points] : tables) {
    ShapeAllReduceTable t{gpus, {}};
    for (const auto& [bytes, us] : points) t.points.push_back({bytes, us});
    profile.all_reduce.push_back(std::move(t));
  }
  notes.push_back("all-reduce: CUDA-graph rows for " + std::to_string(profile.all_reduce.size()) +
                  " TP sizes from " + file.path);
}

// moe.csv: the routed experts of one MoE layer on one GPU, rows of the
// weight formats efimsim serves (bfloat16, fp8, fp8_block) and the kept
// routings (kMoeDistributions) on at most one 8-GPU node (tp x ep <= 8); the
// first row of a repeated key wins; a table's kernel is its first row's.
constexpr const char* kMoeDistributions[] = {"balanced", "power_law_1.2"};

void ReadMoe(const SourceCsv& file, const std::string& device, ShapeProfile& profile,
             std::vector<std::string>& notes) {
  const CsvColumns csv(file.text, file.path, kWhat);
  RequireColumns(csv, {"device", "kernel_source", "moe_dtype", "num_tokens", "hidden_size", "inter_size", "topk",
                       "num_experts", "moe_tp_size", "moe_ep_size", "distribution", "latency"});
  const std::set<std::string> dtypes = {"bfloat16", "fp8", "fp8_block"};
  const std::set<std::string> distributions(std::begin(kMoeDistributions), std::end(kMoeDistributions));
  std::map<ShapeMoeKey, std::pair<std::string, std::map<int64_t, double>>> tables;
  int64_t repeats = 0, skipped = 0;
  for (size_t r = 0; r < csv.Rows(); ++r) {
    CheckDevice(csv, r, device);
    ShapeMoeKey key{csv.Text(r, "moe_dtype"), csv.Int(r, "hidden_size", 1), csv.Int(r, "inter_size", 1),
                    csv.Int(r, "topk", 1), csv.Int(r, "num_experts", 1), csv.Int(r, "moe_tp_size", 1),
                    csv.Int(r, "moe_ep_size", 1), csv.Text(r, "distribution")};
    if (!dtypes.count(key.dtype) || !distributions.count(key.distribution) || key.tp * key.ep > 8) {
      ++skipped;
      continue;
    }
    if (key.topk > key.experts) throw InputError(file.path, csv.Line(r), "topk", "more than num_experts");
    if (key.inter % key.tp != 0) throw InputError(file.path, csv.Line(r), "moe_tp_size", "does not divide inter_size");
    if (key.experts % key.ep != 0) throw InputError(file.path, csv.Line(r), "moe_ep_size", "does not divide num_experts");
    auto& [kernel, points] = tables[key];
    if (kernel.empty()) kernel = csv.Text(r, "kernel_source");
    const int64_t tokens = csv.Int(r, "num_tokens", 1);
    if (!points.emplace(tokens, csv.Milliseconds(r, "latency") * 1000.0).second) ++repeats;
  }
  for (const auto& [key, table] : tables) {
    ShapeMoeTable t{key, table.first, false, {}};
    for (const auto& [tokens, us] : table.second) t.points.push_back({tokens, us});
    profile.moe.push_back(std::move(t));
  }
  notes.push_back("moe: " + std::to_string(profile.moe.size()) + " tables (dtype, shape, tp, ep, routing) from " +
                  file.path + "; " + std::to_string(skipped) + " rows of other dtypes, routings or > 8 GPUs left out, " +
                  std::to_string(repeats) + " repeated keys (first row kept)");
}

// The --dir folder, normalised, without a trailing separator.
std::filesystem::path FolderOf(const std::string& dir) {
  std::filesystem::path folder = std::filesystem::path(dir).lexically_normal();
  return folder.filename().empty() ? folder.parent_path() : folder;
}

// <system>/vllm-0.24.0 -> ("vllm_v1", "vLLM 0.24.0").
std::pair<std::string, std::string> EngineOf(const std::filesystem::path& folder, const std::string& dir) {
  const std::string leaf = folder.filename().string();
  if (leaf.rfind("vllm-", 0) == 0) return {"vllm_v1", "vLLM " + leaf.substr(5)};
  if (leaf.rfind("sglang-", 0) == 0) return {"sglang", "SGLang " + leaf.substr(7)};
  throw UsageError("--dir: expected an AIConfigurator <system>/vllm-<version> or sglang-<version> folder, got '" +
                   dir + "'");
}

// "AIConfigurator database at commit <c>", from MANIFEST.csv beside
// systems.csv (the converted files' provenance), or without the commit
// when there is no such file or row.
std::string DatabaseCommit(const std::string& systems_csv, const std::string& gemm_csv) {
  const std::filesystem::path manifest = std::filesystem::path(systems_csv).parent_path() / "MANIFEST.csv";
  const std::string unknown = "AIConfigurator database (commit not recorded)";
  if (!std::filesystem::exists(manifest)) return unknown;
  const std::string text = ReadWholeFile(manifest.string());
  const CsvColumns csv(text, manifest.string(), kWhat);
  const std::string relative =
      std::filesystem::path(gemm_csv).lexically_relative(manifest.parent_path()).generic_string();
  for (size_t r = 0; r < csv.Rows(); ++r) {
    if (csv.Text(r, "file") == relative) return "AIConfigurator database at commit " + csv.Text(r, "source_commit");
  }
  return unknown;
}

// The profile's source.method: how the CSVs became tables.
std::string ImportMethod(const std::string& system) {
  return "bf16 rows, full attention, first row of a repeated key (as AIConfigurator's loader); GEMM times "
         "raised to the speed of light at systems.csv's ceilings; prefill attention from batch-1 rows; "
         "CUDA-graph all-reduce rows; milliseconds to microseconds; systems.csv row " + system +
         ". Where the folder has them: gemm_fp8.csv's fp8 and fp8_block GEMMs at the (n, k) the bf16 tables "
         "have, raised to the speed of light at fp8_tc_flops and 1-byte elements; vLLM fp8_block rows were "
         "timed eagerly, so their launch floor F(m) (the median over (n, k) of fp8_block minus fp8 time at that "
         "m, at least 0) is taken off every row under 2 F(m), never below the speed of light; FP8-KV attention from the "
         "*_attention_fp8kv.csv rows with bf16 compute; moe.csv's bfloat16, fp8 and fp8_block rows with "
         "balanced and power_law_1.2 routing on at most 8 GPUs (tp x ep <= 8), keyed as AIConfigurator keys "
         "them (dtype, hidden, inter, top-k, experts, tp, ep, distribution) over tokens";
}

}  // namespace

GraphGemmTimings LoadGraphGemmTimings(const std::string& path) {
  const SourceCsv file = ReadCsv(path);
  const CsvColumns csv(file.text, file.path, kWhat);
  GraphGemmTimings out{file.path, file.sha256, {}};
  for (size_t r = 0; r < csv.Rows(); ++r) {
    if (csv.Text(r, "gemm_dtype") != "bfloat16") continue;
    out.us.emplace(std::tuple(csv.Int(r, "m", 1), csv.Int(r, "n", 1), csv.Int(r, "k", 1)),
                   csv.Milliseconds(r, "latency") * 1000.0);
  }
  if (out.us.empty()) throw InputError(path, 0, "gemm_dtype", "no bfloat16 rows");
  return out;
}

AiConfiguratorSystem LoadAiConfiguratorSystem(const std::string& path, const std::string& system) {
  const std::string text = ReadWholeFile(path);
  const CsvColumns csv(text, path, kWhat);
  for (size_t r = 0; r < csv.Rows(); ++r) {
    if (csv.Text(r, "system") != system) continue;
    AiConfiguratorSystem s;
    s.system = system;
    s.memory_bytes_per_second = csv.Number(r, "mem_bw");
    s.bandwidth_fraction = csv.Number(r, "mem_bw_empirical_scaling_factor");
    s.constant_latency_seconds = csv.Number(r, "mem_empirical_constant_latency");
    s.bf16_flops_per_second = csv.Number(r, "bfloat16_tc_flops");
    // Empty for GPUs without FP8 tensor cores (A100).
    if (csv.Has("fp8_tc_flops") && !csv.Text(r, "fp8_tc_flops").empty()) {
      s.fp8_flops_per_second = csv.Number(r, "fp8_tc_flops");
      if (!(s.fp8_flops_per_second > 0)) throw InputError(path, csv.Line(r), "fp8_tc_flops", "must be > 0");
    }
    if (!(s.memory_bytes_per_second > 0) || !(s.bf16_flops_per_second > 0) ||
        !(s.bandwidth_fraction > 0 && s.bandwidth_fraction <= 1) || s.constant_latency_seconds < 0) {
      throw InputError(path, csv.Line(r), "mem_bw", "ceilings must be > 0 and the scaling factor in (0, 1]");
    }
    return s;
  }
  throw InputError(path, 0, "system", "no row for system \"" + system + "\"");
}

namespace {

// The optional tables of the folder, each read when its file is there:
// moe.csv, gemm_fp8.csv, {context,generation}_attention_fp8kv.csv,
// {context,generation}_mla.csv (both or neither). Their
// files join `files` (for the provenance); their kernels are named in the
// notes, not in the profile's stack (which names the bf16 tables' kernels).
void ReadOptionalTables(const std::filesystem::path& dir, const std::string& device, ShapeProfile& profile,
                        std::vector<SourceCsv>& files, std::vector<std::string>& notes) {
  const auto present = [&](const char* name) { return std::filesystem::exists(dir / name); };
  if (present("gemm_fp8.csv")) {
    files.push_back(ReadCsv((dir / "gemm_fp8.csv").string()));
    ReadGemmFp8(files.back(), device, profile, notes);
  }
  std::set<std::string> kernels;
  if (present("context_attention_fp8kv.csv")) {
    files.push_back(ReadCsv((dir / "context_attention_fp8kv.csv").string()));
    profile.prefill_attention_fp8kv = ReadPrefill(files.back(), device, "fp8", kernels);
    notes.push_back("prefill attention, FP8 KV cache: " + std::to_string(profile.prefill_attention_fp8kv.size()) +
                    " head shapes (batch-1 rows, bf16 compute) from " + files.back().path);
  }
  if (present("generation_attention_fp8kv.csv")) {
    files.push_back(ReadCsv((dir / "generation_attention_fp8kv.csv").string()));
    profile.decode_attention_fp8kv = ReadDecode(files.back(), device, "fp8", kernels);
    notes.push_back("decode attention, FP8 KV cache: " + std::to_string(profile.decode_attention_fp8kv.size()) +
                    " head shapes from " + files.back().path);
  }
  if (!kernels.empty()) notes.push_back("FP8-KV attention kernels: " + Joined(kernels));
  if (present("moe.csv")) {
    files.push_back(ReadCsv((dir / "moe.csv").string()));
    ReadMoe(files.back(), device, profile, notes);
  }
  if (present("context_mla.csv") && present("generation_mla.csv")) {
    files.push_back(ReadCsv((dir / "context_mla.csv").string()));
    files.push_back(ReadCsv((dir / "generation_mla.csv").string()));
    ReadMla(files[files.size() - 2], files.back(), device, profile, notes);
  }
}

}  // namespace

ShapeProfile ImportAiConfigurator(const AiConfiguratorImport& import, const GpuSpec& gpu,
                                  std::vector<std::string>& notes) {
  const auto device = ExpectedDevices().find(gpu.name);
  if (device == ExpectedDevices().end()) {
    throw UsageError("--gpu: AIConfigurator's database has no efimsim GPU named '" + gpu.name +
                     "' (it covers h100-sxm, h200, b200, a100-sxm-80g, l40s)");
  }
  const std::filesystem::path dir = FolderOf(import.dir);  // <system>/<framework>-<version>
  const auto [engine, stack] = EngineOf(dir, import.dir);
  const std::string system = dir.parent_path().filename().string();
  const std::string systems_csv = import.systems_csv.empty()
                                      ? (dir.parent_path().parent_path() / "systems.csv").string()
                                      : import.systems_csv;
  const AiConfiguratorSystem sys = LoadAiConfiguratorSystem(systems_csv, system);
  ShapeProfile profile;
  profile.gpu = gpu.name;
  profile.engine = engine;
  profile.command = import.command;
  profile.device = device->second;
  profile.measured_on = DatabaseCommit(systems_csv, (dir / "gemm.csv").string());
  profile.ceilings = {sys.bf16_flops_per_second, sys.memory_bytes_per_second, sys.fp8_flops_per_second};
  profile.elementwise = {sys.memory_bytes_per_second, sys.bandwidth_fraction, sys.constant_latency_seconds * 1e6};
  std::string ar_path = import.all_reduce_csv;
  if (ar_path.empty() && std::filesystem::exists(dir / "custom_allreduce.csv")) ar_path = (dir / "custom_allreduce.csv").string();
  std::vector<SourceCsv> files = {ReadCsv((dir / "gemm.csv").string()),
                                  ReadCsv((dir / "context_attention.csv").string()),
                                  ReadCsv((dir / "generation_attention.csv").string())};
  if (!ar_path.empty()) files.push_back(ReadCsv(ar_path));
  std::set<std::string> kernels;
  ReadGemm(files[0], device->second, profile, kernels, notes);
  profile.prefill_attention = ReadPrefill(files[1], device->second, "bfloat16", kernels);
  notes.push_back("prefill attention: " + std::to_string(profile.prefill_attention.size()) +
                  " head shapes (batch-1 rows) from " + files[1].path);
  profile.decode_attention = ReadDecode(files[2], device->second, "bfloat16", kernels);
  notes.push_back("decode attention: " + std::to_string(profile.decode_attention.size()) + " head shapes from " +
                  files[2].path + " (context = step, the tokens already cached)");
  if (files.size() > 3) ReadAllReduce(files[3], device->second, profile, kernels, notes);
  if (files.size() == 3) notes.push_back("all-reduce: no custom_allreduce.csv (give --all-reduce FILE): TP priced by the ring");
  ReadOptionalTables(dir, device->second, profile, files, notes);
  profile.source.kind = "aiconfigurator";
  profile.source.stack = stack + " kernels as NVIDIA AIConfigurator's collector timed them under CUDA graphs (" +
                         Joined(kernels) + ")";
  profile.source.method = ImportMethod(system);
  for (const SourceCsv& f : files) profile.source.files.push_back({f.path, f.sha256});
  profile.source.files.push_back({systems_csv, Sha256Hex(ReadWholeFile(systems_csv))});
  return profile;
}

namespace {

void AddErrors(std::vector<double>& errors, double predicted, double measured) {
  errors.push_back(std::abs(predicted / measured - 1.0));
}

ShapeRuleStudy Summarize(const std::string& table, int64_t shapes, std::vector<double> errors) {
  ShapeRuleStudy s{table, shapes, static_cast<int64_t>(errors.size()), 0, 0};
  if (errors.empty()) return s;
  std::sort(errors.begin(), errors.end());
  s.median = errors[errors.size() / 2];
  s.p90 = errors[std::min(errors.size() - 1, errors.size() * 9 / 10)];
  return s;
}

}  // namespace

namespace {

// "gemm<suffix>" and "gemm<suffix> m<=256": each table with n, k >= 512
// held out and predicted from the rest at `dtype`'s speed of light.
std::vector<ShapeRuleStudy> StudyGemm(const std::vector<ShapeGemmTable>& tables, const ShapeCeilings& ceilings,
                                      const std::string& dtype, const std::string& suffix) {
  std::vector<double> all, small;
  int64_t shapes = 0;
  for (size_t i = 0; i < tables.size(); ++i) {
    const ShapeGemmTable& held = tables[i];
    if (held.n < 512 || held.k < 512) continue;
    std::vector<ShapeGemmTable> rest = tables;
    rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(i));
    ++shapes;
    for (const ProfilePoint& p : TransferGemm(rest, ceilings, held.n, held.k, nullptr, dtype)) {
      for (const ProfilePoint& q : held.points) {
        if (q.key != p.key) continue;
        AddErrors(all, p.time_us, q.time_us);
        if (q.key <= 256) AddErrors(small, p.time_us, q.time_us);
      }
    }
  }
  return {Summarize("gemm" + suffix, shapes, all), Summarize("gemm" + suffix + " m<=256", shapes, small)};
}

}  // namespace

ShapeRuleStudy StudyMoeShapeRule(const ShapeProfile& profile, const std::string& dtype, bool per_backend) {
  std::vector<double> errors;
  int64_t shapes = 0;
  for (size_t i = 0; i < profile.moe.size(); ++i) {
    const ShapeMoeTable& held = profile.moe[i];
    if (held.key.dtype != dtype || held.key.distribution != "balanced") continue;
    std::vector<ShapeMoeTable> rest = profile.moe;
    rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(i));
    const std::string backend = per_backend ? MoeBackendOf(held.kernel) : "";
    const std::vector<ProfilePoint> predicted =
        TransferMoe(rest, profile.ceilings, held.key, nullptr, nullptr, backend);
    if (predicted.empty()) continue;
    ++shapes;
    for (const ProfilePoint& p : predicted) {
      for (const ProfilePoint& q : held.points) {
        if (q.key == p.key) AddErrors(errors, p.time_us, q.time_us);
      }
    }
  }
  return Summarize("moe " + dtype + (per_backend ? " per backend" : ""), shapes, errors);
}

std::vector<ShapeRuleStudy> StudyShapeRule(const ShapeProfile& profile) {
  std::vector<double> prefill, decode;
  std::vector<ShapeRuleStudy> out = StudyGemm(profile.gemm, profile.ceilings, "bfloat16", "");
  for (size_t i = 0; i < profile.prefill_attention.size(); ++i) {
    std::vector<ShapePrefillTable> rest = profile.prefill_attention;
    rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(i));
    const ShapePrefillTable& held = profile.prefill_attention[i];
    for (const ProfilePoint& p : TransferPrefill(rest, profile.ceilings, held.heads)) {
      for (const ProfilePoint& q : held.points) {
        if (q.key == p.key) AddErrors(prefill, p.time_us, q.time_us);
      }
    }
  }
  for (size_t i = 0; i < profile.decode_attention.size(); ++i) {
    std::vector<ShapeDecodeTable> rest = profile.decode_attention;
    rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(i));
    const ShapeDecodeTable& held = profile.decode_attention[i];
    std::map<std::pair<int64_t, int64_t>, double> measured;
    for (const AttentionPoint& q : held.points) measured[{q.rows, q.context_tokens}] = q.time_us;
    for (const AttentionPoint& p : TransferDecode(rest, profile.ceilings, held.heads)) {
      const auto it = measured.find({p.rows, p.context_tokens});
      if (it != measured.end()) AddErrors(decode, p.time_us, it->second);
    }
  }
  out.push_back(Summarize("prefill_attention", static_cast<int64_t>(profile.prefill_attention.size()), prefill));
  out.push_back(Summarize("decode_attention", static_cast<int64_t>(profile.decode_attention.size()), decode));
  for (const ShapeGemmDtype& group : profile.gemm_fp8) {
    for (ShapeRuleStudy& row : StudyGemm(group.tables, profile.ceilings, group.dtype, " " + group.dtype)) {
      out.push_back(std::move(row));
    }
  }
  for (const std::string dtype : {"bfloat16", "fp8", "fp8_block"}) {
    const bool present = std::any_of(profile.moe.begin(), profile.moe.end(), [&](const ShapeMoeTable& t) {
      return t.key.dtype == dtype && t.key.distribution == "balanced";
    });
    if (!present) continue;
    out.push_back(StudyMoeShapeRule(profile, dtype, false));
    // Where the dtype's tables were timed with more than one backend, the
    // rule as a run naming its --moe-backend applies it.
    if (MoeBackendsOf(profile.moe, dtype).size() > 1) out.push_back(StudyMoeShapeRule(profile, dtype, true));
  }
  return out;
}

}  // namespace efimsim
