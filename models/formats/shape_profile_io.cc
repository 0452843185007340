// JSON reader and writer of shape profiles (models/PROFILE.md, "Shape
// profiles"), and the built-in ones, parsed once per process.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

#include <nlohmann/json.hpp>

#include "models/formats/profile_source_io.h"
#include "models/formats/shape_profile.h"
#include "models/formats/strict_json_io.h"
#include "sim/base/errors.h"

namespace efimsim {
namespace {

using nlohmann::json;
using ordered = nlohmann::ordered_json;

std::string Indexed(const std::string& path, size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

// A list of integer keys, strictly increasing, each >= min_key.
std::vector<int64_t> ReadKeys(StrictObject& object, const std::string& key, int64_t min_key) {
  const json& list = object.Array(key);
  const std::string path = object.Path(key);
  if (list.empty()) throw InputError(object.origin(), 0, path, "empty list");
  std::vector<int64_t> keys;
  for (size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_number_integer() || list[i].get<int64_t>() < min_key) {
      throw InputError(object.origin(), 0, Indexed(path, i),
                       "expected an integer >= " + std::to_string(min_key));
    }
    const int64_t value = list[i].get<int64_t>();
    if (!keys.empty() && value <= keys.back()) {
      throw InputError(object.origin(), 0, Indexed(path, i), "keys must be strictly increasing");
    }
    keys.push_back(value);
  }
  return keys;
}

// Times in microseconds aligned with `keys`: > 0 and < 1e9, or null for a
// point the source did not measure. At least one must be present.
std::vector<ProfilePoint> ReadTimes(const json& list, const std::vector<int64_t>& keys,
                                    const std::string& origin, const std::string& path) {
  if (!list.is_array() || list.size() != keys.size()) {
    throw InputError(origin, 0, path,
                     "expected a list of " + std::to_string(keys.size()) + " times (us) or nulls");
  }
  std::vector<ProfilePoint> points;
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i].is_null()) continue;
    const double us = list[i].is_number() ? list[i].get<double>() : -1;
    if (!(us > 0) || !(us < 1e9)) {
      throw InputError(origin, 0, Indexed(path, i), "expected a time in us, > 0 and < 1e9, or null");
    }
    points.push_back({keys[i], us});
  }
  if (points.empty()) throw InputError(origin, 0, path, "no measured point");
  return points;
}

ShapeHeads ReadHeads(StrictObject& table) {
  ShapeHeads h;
  h.q_heads = table.Int("q_heads", 1);
  h.kv_heads = table.Int("kv_heads", 1);
  h.head_dim = table.Int("head_dim", 1);
  if (h.q_heads % h.kv_heads != 0) {
    throw InputError(table.origin(), 0, table.Path("kv_heads"), "must divide q_heads");
  }
  return h;
}

template <typename T, typename Key>
void RequireSortedUnique(const std::vector<T>& tables, Key key, const std::string& origin,
                         const std::string& path) {
  for (size_t i = 1; i < tables.size(); ++i) {
    if (!(key(tables[i - 1]) < key(tables[i]))) {
      throw InputError(origin, 0, Indexed(path, i), "tables must be sorted by their key, unique");
    }
  }
}

// {"m": [...], "tables": [{"n", "k", "us"}]} at `path`: GEMM tables sorted by (n, k), unique.
std::vector<ShapeGemmTable> ReadGemmTables(StrictObject& gemm, const std::string& origin) {
  const std::vector<int64_t> m = ReadKeys(gemm, "m", 1);
  const json& list = gemm.Array("tables");
  std::vector<ShapeGemmTable> tables;
  for (size_t i = 0; i < list.size(); ++i) {
    StrictObject t(list[i], origin, Indexed(gemm.Path("tables"), i));
    ShapeGemmTable table;
    table.n = t.Int("n", 1);
    table.k = t.Int("k", 1);
    table.points = ReadTimes(t.Field("us"), m, origin, t.Path("us"));
    t.RejectUnknownKeys();
    tables.push_back(std::move(table));
  }
  RequireSortedUnique(tables, [](const ShapeGemmTable& g) { return std::pair(g.n, g.k); }, origin,
                      gemm.Path("tables"));
  return tables;
}

void ReadGemm(StrictObject& root, ShapeProfile& profile) {
  StrictObject gemm(root.Field("gemm"), profile.origin, "gemm");
  profile.gemm = ReadGemmTables(gemm, profile.origin);
  gemm.RejectUnknownKeys();
}

// Optional "gemm_fp8": a list of {"dtype", "kernels", "m", "tables"}.
void ReadGemmFp8(StrictObject& root, ShapeProfile& profile) {
  if (!root.Has("gemm_fp8")) return;
  const json& list = root.Array("gemm_fp8");
  for (size_t i = 0; i < list.size(); ++i) {
    StrictObject group(list[i], profile.origin, Indexed("gemm_fp8", i));
    ShapeGemmDtype dtype;
    dtype.dtype = group.String("dtype");
    if (dtype.dtype != "fp8" && dtype.dtype != "fp8_block") {
      throw InputError(profile.origin, 0, group.Path("dtype"), "expected \"fp8\" or \"fp8_block\"");
    }
    dtype.kernels = group.String("kernels");
    dtype.tables = ReadGemmTables(group, profile.origin);
    group.RejectUnknownKeys();
    profile.gemm_fp8.push_back(std::move(dtype));
  }
  RequireSortedUnique(profile.gemm_fp8, [](const ShapeGemmDtype& g) { return g.dtype; }, profile.origin,
                      "gemm_fp8");
}

// The prefill attention tables under `key` ("prefill_attention" or its fp8kv twin).
std::vector<ShapePrefillTable> ReadPrefill(StrictObject& root, const std::string& key, const std::string& origin) {
  StrictObject prefill(root.Field(key), origin, root.Path(key));
  const std::vector<int64_t> tokens = ReadKeys(prefill, "tokens", 1);
  const json& list = prefill.Array("tables");
  std::vector<ShapePrefillTable> tables;
  for (size_t i = 0; i < list.size(); ++i) {
    StrictObject t(list[i], origin, Indexed(prefill.Path("tables"), i));
    ShapePrefillTable table;
    table.heads = ReadHeads(t);
    table.points = ReadTimes(t.Field("us"), tokens, origin, t.Path("us"));
    t.RejectUnknownKeys();
    tables.push_back(std::move(table));
  }
  prefill.RejectUnknownKeys();
  RequireSortedUnique(tables, [](const ShapePrefillTable& p) { return p.heads; }, origin, prefill.Path("tables"));
  return tables;
}

// The decode attention tables under `key` ("decode_attention" or its fp8kv twin).
std::vector<ShapeDecodeTable> ReadDecode(StrictObject& root, const std::string& key, const std::string& origin) {
  StrictObject decode(root.Field(key), origin, root.Path(key));
  const std::vector<int64_t> batch = ReadKeys(decode, "batch", 1);
  const std::vector<int64_t> context = ReadKeys(decode, "context", 0);
  const json& list = decode.Array("tables");
  std::vector<ShapeDecodeTable> tables;
  for (size_t i = 0; i < list.size(); ++i) {
    StrictObject t(list[i], origin, Indexed(decode.Path("tables"), i));
    ShapeDecodeTable table;
    table.heads = ReadHeads(t);
    const json& rows = t.Array("us");
    if (rows.size() != batch.size()) {
      throw InputError(origin, 0, t.Path("us"),
                       "expected one row per batch size (" + std::to_string(batch.size()) + ")");
    }
    for (size_t r = 0; r < rows.size(); ++r) {
      if (rows[r].is_null()) continue;  // a batch size not measured for these heads
      for (const ProfilePoint& p : ReadTimes(rows[r], context, origin, Indexed(t.Path("us"), r))) {
        table.points.push_back({batch[r], p.key, p.time_us});
      }
    }
    if (table.points.empty()) throw InputError(origin, 0, t.Path("us"), "no measured point");
    t.RejectUnknownKeys();
    tables.push_back(std::move(table));
  }
  decode.RejectUnknownKeys();
  RequireSortedUnique(tables, [](const ShapeDecodeTable& d) { return d.heads; }, origin, decode.Path("tables"));
  return tables;
}

ShapeMoeKey ReadMoeKey(StrictObject& t) {
  ShapeMoeKey key;
  key.dtype = t.String("dtype");
  if (key.dtype != "bfloat16" && key.dtype != "fp8" && key.dtype != "fp8_block") {
    throw InputError(t.origin(), 0, t.Path("dtype"), "expected \"bfloat16\", \"fp8\" or \"fp8_block\"");
  }
  key.hidden = t.Int("hidden", 1);
  key.inter = t.Int("inter", 1);
  key.topk = t.Int("topk", 1);
  key.experts = t.Int("experts", 1);
  key.tp = t.Int("tp", 1);
  key.ep = t.Int("ep", 1);
  key.distribution = t.String("distribution");
  if (key.topk > key.experts) throw InputError(t.origin(), 0, t.Path("topk"), "must be <= experts");
  if (key.inter % key.tp != 0) throw InputError(t.origin(), 0, t.Path("tp"), "must divide inter");
  if (key.experts % key.ep != 0) throw InputError(t.origin(), 0, t.Path("ep"), "must divide experts");
  if (key.distribution.empty()) throw InputError(t.origin(), 0, t.Path("distribution"), "empty");
  return key;
}

// Optional "moe": {"tokens": [...], "tables": [{key..., "kernel", "us"}]}.
void ReadMoe(StrictObject& root, ShapeProfile& profile) {
  if (!root.Has("moe")) return;
  StrictObject moe(root.Field("moe"), profile.origin, "moe");
  const std::vector<int64_t> tokens = ReadKeys(moe, "tokens", 1);
  const json& list = moe.Array("tables");
  for (size_t i = 0; i < list.size(); ++i) {
    StrictObject t(list[i], profile.origin, Indexed("moe.tables", i));
    ShapeMoeTable table;
    table.key = ReadMoeKey(t);
    table.kernel = t.String("kernel");
    table.includes_router = t.Has("includes_router") && t.Bool("includes_router");
    table.points = ReadTimes(t.Field("us"), tokens, profile.origin, t.Path("us"));
    t.RejectUnknownKeys();
    profile.moe.push_back(std::move(table));
  }
  moe.RejectUnknownKeys();
  RequireSortedUnique(profile.moe, [](const ShapeMoeTable& m) { return m.key; }, profile.origin, "moe.tables");
}

// Optional "mla": a list of {"kv_cache_dtype", the latent geometry,
// "kernel", "prefill_attention", "decode_attention"}.
void ReadMla(StrictObject& root, ShapeProfile& profile) {
  if (!root.Has("mla")) return;
  const json& list = root.Array("mla");
  for (size_t i = 0; i < list.size(); ++i) {
    StrictObject group(list[i], profile.origin, Indexed("mla", i));
    ShapeMlaAttention mla;
    mla.kv_cache_dtype = group.String("kv_cache_dtype");
    if (mla.kv_cache_dtype != "bfloat16" && mla.kv_cache_dtype != "fp8") {
      throw InputError(profile.origin, 0, group.Path("kv_cache_dtype"), "expected \"bfloat16\" or \"fp8\"");
    }
    mla.kv_lora_rank = group.Int("kv_lora_rank", 1);
    mla.qk_rope_head_dim = group.Int("qk_rope_head_dim", 1);
    mla.qk_nope_head_dim = group.Int("qk_nope_head_dim", 1);
    mla.v_head_dim = group.Int("v_head_dim", 1);
    mla.kernel = group.String("kernel");
    mla.prefill = ReadPrefill(group, "prefill_attention", profile.origin);
    mla.decode = ReadDecode(group, "decode_attention", profile.origin);
    group.RejectUnknownKeys();
    profile.mla.push_back(std::move(mla));
  }
  RequireSortedUnique(profile.mla, [](const ShapeMlaAttention& m) {
    return std::tuple(m.kv_cache_dtype, m.kv_lora_rank, m.qk_rope_head_dim, m.qk_nope_head_dim, m.v_head_dim);
  }, profile.origin, "mla");
}

void ReadAllReduce(StrictObject& root, ShapeProfile& profile) {
  const json& list = root.Array("all_reduce");
  for (size_t i = 0; i < list.size(); ++i) {
    StrictObject t(list[i], profile.origin, Indexed("all_reduce", i));
    ShapeAllReduceTable table;
    table.gpus = t.Int("gpus", 2);
    const std::vector<int64_t> bytes = ReadKeys(t, "bytes", 1);
    table.points = ReadTimes(t.Field("us"), bytes, profile.origin, t.Path("us"));
    t.RejectUnknownKeys();
    profile.all_reduce.push_back(std::move(table));
  }
  RequireSortedUnique(profile.all_reduce, [](const ShapeAllReduceTable& a) { return a.gpus; },
                      profile.origin, "all_reduce");
}

// 6 significant digits: the sources' timing noise is far above that, and
// the built-in files stay small.
double Rounded(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return std::strtod(text, nullptr);
}

// Times aligned with `keys`, null where `points` has no point at a key.
ordered TimesJson(const std::vector<int64_t>& keys, const std::vector<ProfilePoint>& points) {
  std::map<int64_t, double> by_key;
  for (const ProfilePoint& p : points) by_key[p.key] = p.time_us;
  ordered out = ordered::array();
  for (const int64_t key : keys) {
    const auto it = by_key.find(key);
    if (it == by_key.end()) {
      out.push_back(nullptr);
    } else {
      out.push_back(Rounded(it->second));
    }
  }
  return out;
}

template <typename Tables, typename Keys>
std::vector<int64_t> UnionKeys(const Tables& tables, Keys keys_of) {
  std::vector<int64_t> keys;
  for (const auto& t : tables) {
    for (const int64_t key : keys_of(t)) keys.push_back(key);
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

std::vector<int64_t> PointKeys(const std::vector<ProfilePoint>& points) {
  std::vector<int64_t> keys;
  for (const ProfilePoint& p : points) keys.push_back(p.key);
  return keys;
}

ordered HeadsJson(const ShapeHeads& h) {
  return {{"q_heads", h.q_heads}, {"kv_heads", h.kv_heads}, {"head_dim", h.head_dim}};
}

// One line per table: the files are large, and a table a line diffs well.
std::string TablesText(const std::vector<ordered>& tables, const std::string& indent) {
  std::string text = "[";
  for (size_t i = 0; i < tables.size(); ++i) {
    text += (i == 0 ? "\n" : ",\n") + indent + "  " + tables[i].dump();
  }
  return text + (tables.empty() ? "]" : "\n" + indent + "]");
}

// A GEMM object {"m", "tables"} opened at the current position and closed at
// `indent`; `head` ("" or lines ending in ",\n") precedes "m".
std::string GemmText(const std::vector<ShapeGemmTable>& gemm, const std::string& indent,
                     const std::string& head = "") {
  const std::vector<int64_t> m = UnionKeys(gemm, [](const ShapeGemmTable& t) { return PointKeys(t.points); });
  std::vector<ordered> tables;
  for (const ShapeGemmTable& t : gemm) {
    ordered o = {{"n", t.n}, {"k", t.k}};
    o["us"] = TimesJson(m, t.points);
    tables.push_back(std::move(o));
  }
  const std::string inner = indent + "  ";
  return "{\n" + head + inner + "\"m\": " + ordered(m).dump() + ",\n" + inner + "\"tables\": " +
         TablesText(tables, inner) + "\n" + indent + "}";
}

std::string GemmFp8Text(const ShapeProfile& profile) {
  std::string text = "[";
  for (size_t i = 0; i < profile.gemm_fp8.size(); ++i) {
    const ShapeGemmDtype& group = profile.gemm_fp8[i];
    const std::string head = "      \"dtype\": " + ordered(group.dtype).dump() + ",\n      \"kernels\": " +
                             ordered(group.kernels).dump() + ",\n";
    text += (i == 0 ? "\n    " : ",\n    ") + GemmText(group.tables, "    ", head);
  }
  return text + (profile.gemm_fp8.empty() ? "]" : "\n  ]");
}

std::string PrefillText(const std::vector<ShapePrefillTable>& prefill) {
  const std::vector<int64_t> tokens =
      UnionKeys(prefill, [](const ShapePrefillTable& t) { return PointKeys(t.points); });
  std::vector<ordered> tables;
  for (const ShapePrefillTable& t : prefill) {
    ordered o = HeadsJson(t.heads);
    o["us"] = TimesJson(tokens, t.points);
    tables.push_back(std::move(o));
  }
  return "{\n    \"tokens\": " + ordered(tokens).dump() + ",\n    \"tables\": " +
         TablesText(tables, "    ") + "\n  }";
}

std::string DecodeText(const std::vector<ShapeDecodeTable>& decode) {
  const auto rows_of = [](const ShapeDecodeTable& t) {
    std::vector<int64_t> keys;
    for (const AttentionPoint& p : t.points) keys.push_back(p.rows);
    return keys;
  };
  const auto contexts_of = [](const ShapeDecodeTable& t) {
    std::vector<int64_t> keys;
    for (const AttentionPoint& p : t.points) keys.push_back(p.context_tokens);
    return keys;
  };
  const std::vector<int64_t> batch = UnionKeys(decode, rows_of);
  const std::vector<int64_t> context = UnionKeys(decode, contexts_of);
  std::vector<ordered> tables;
  for (const ShapeDecodeTable& t : decode) {
    ordered rows = ordered::array();
    for (const int64_t b : batch) {
      std::vector<ProfilePoint> row;
      for (const AttentionPoint& p : t.points) {
        if (p.rows == b) row.push_back({p.context_tokens, p.time_us});
      }
      rows.push_back(row.empty() ? ordered(nullptr) : TimesJson(context, row));
    }
    ordered o = HeadsJson(t.heads);
    o["us"] = std::move(rows);
    tables.push_back(std::move(o));
  }
  return "{\n    \"batch\": " + ordered(batch).dump() + ",\n    \"context\": " +
         ordered(context).dump() + ",\n    \"tables\": " + TablesText(tables, "    ") + "\n  }";
}

std::string MoeText(const ShapeProfile& profile) {
  const std::vector<int64_t> tokens =
      UnionKeys(profile.moe, [](const ShapeMoeTable& t) { return PointKeys(t.points); });
  std::vector<ordered> tables;
  for (const ShapeMoeTable& t : profile.moe) {
    const ShapeMoeKey& k = t.key;
    ordered o = {{"dtype", k.dtype}, {"hidden", k.hidden}, {"inter", k.inter}, {"topk", k.topk},
                 {"experts", k.experts}, {"tp", k.tp}, {"ep", k.ep}, {"distribution", k.distribution},
                 {"kernel", t.kernel}};
    if (t.includes_router) o["includes_router"] = true;
    o["us"] = TimesJson(tokens, t.points);
    tables.push_back(std::move(o));
  }
  return "{\n    \"tokens\": " + ordered(tokens).dump() + ",\n    \"tables\": " +
         TablesText(tables, "    ") + "\n  }";
}

std::string MlaText(const ShapeProfile& profile) {
  std::string text = "[";
  for (size_t i = 0; i < profile.mla.size(); ++i) {
    const ShapeMlaAttention& m = profile.mla[i];
    ordered head = {{"kv_cache_dtype", m.kv_cache_dtype}, {"kv_lora_rank", m.kv_lora_rank},
                    {"qk_rope_head_dim", m.qk_rope_head_dim}, {"qk_nope_head_dim", m.qk_nope_head_dim},
                    {"v_head_dim", m.v_head_dim}, {"kernel", m.kernel}};
    std::string fields;
    for (const auto& [key, value] : head.items()) fields += "    \"" + key + "\": " + value.dump() + ",\n";
    text += (i == 0 ? "\n  {\n" : ",\n  {\n") + fields + "    \"prefill_attention\": " + PrefillText(m.prefill) +
            ",\n    \"decode_attention\": " + DecodeText(m.decode) + "\n  }";
  }
  return text + (profile.mla.empty() ? "]" : "\n]");
}

std::string AllReduceText(const ShapeProfile& profile) {
  std::vector<ordered> tables;
  for (const ShapeAllReduceTable& t : profile.all_reduce) {
    const std::vector<int64_t> bytes = PointKeys(t.points);
    ordered o = {{"gpus", t.gpus}, {"bytes", bytes}};
    o["us"] = TimesJson(bytes, t.points);
    tables.push_back(std::move(o));
  }
  return TablesText(tables, "  ");
}

}  // namespace

ShapeProfile ParseShapeProfile(const std::string& json_text, const std::string& origin) {
  const json document = ParseJson(json_text, origin);
  StrictObject root(document, origin, "");
  if (root.Int("schema_version", 1) != 1) throw InputError(origin, 0, "schema_version", "expected 1");
  if (root.String("kind") != "efimsim-shape-profile") {
    throw InputError(origin, 0, "kind", "expected \"efimsim-shape-profile\"");
  }
  ShapeProfile profile;
  profile.origin = origin;
  profile.gpu = root.String("gpu");
  profile.engine = root.String("engine");
  profile.command = root.String("command");
  profile.device = root.String("device");
  profile.measured_on = root.String("measured_on");
  StrictObject source(root.Field("source"), origin, "source");
  profile.source = ReadProfileSource(source);
  StrictObject ceilings(root.Field("ceilings"), origin, "ceilings");
  profile.ceilings.bf16_flops_per_second = ceilings.Positive("bf16_flops_per_second");
  profile.ceilings.memory_bytes_per_second = ceilings.Positive("memory_bytes_per_second");
  if (ceilings.Has("fp8_flops_per_second")) {
    profile.ceilings.fp8_flops_per_second = ceilings.Positive("fp8_flops_per_second");
  }
  ceilings.RejectUnknownKeys();
  StrictObject rule(root.Field("elementwise_rule"), origin, "elementwise_rule");
  profile.elementwise.memory_bytes_per_second = rule.Positive("memory_bytes_per_second");
  profile.elementwise.bandwidth_fraction = rule.Positive("bandwidth_fraction");
  if (profile.elementwise.bandwidth_fraction > 1) {
    throw InputError(origin, 0, "elementwise_rule.bandwidth_fraction", "must be <= 1");
  }
  profile.elementwise.constant_us = rule.Number("constant_us", 0.0);
  rule.RejectUnknownKeys();
  ReadGemm(root, profile);
  profile.prefill_attention = ReadPrefill(root, "prefill_attention", origin);
  profile.decode_attention = ReadDecode(root, "decode_attention", origin);
  ReadAllReduce(root, profile);
  // Optional tables (files written before they existed have none).
  ReadGemmFp8(root, profile);
  if (root.Has("prefill_attention_fp8kv")) {
    profile.prefill_attention_fp8kv = ReadPrefill(root, "prefill_attention_fp8kv", origin);
  }
  if (root.Has("decode_attention_fp8kv")) {
    profile.decode_attention_fp8kv = ReadDecode(root, "decode_attention_fp8kv", origin);
  }
  ReadMoe(root, profile);
  ReadMla(root, profile);
  root.RejectUnknownKeys();
  return profile;
}

std::string ShapeProfileJson(const ShapeProfile& profile) {
  ordered head = ordered::object();
  head["schema_version"] = 1;
  head["kind"] = "efimsim-shape-profile";
  head["gpu"] = profile.gpu;
  head["engine"] = profile.engine;
  head["command"] = profile.command;
  head["device"] = profile.device;
  head["measured_on"] = profile.measured_on;
  head["source"] = ProfileSourceJson(profile.source);
  head["ceilings"] = {{"bf16_flops_per_second", profile.ceilings.bf16_flops_per_second},
                      {"memory_bytes_per_second", profile.ceilings.memory_bytes_per_second}};
  if (profile.ceilings.fp8_flops_per_second > 0) {
    head["ceilings"]["fp8_flops_per_second"] = profile.ceilings.fp8_flops_per_second;
  }
  head["elementwise_rule"] = {{"memory_bytes_per_second", profile.elementwise.memory_bytes_per_second},
                              {"bandwidth_fraction", profile.elementwise.bandwidth_fraction},
                              {"constant_us", profile.elementwise.constant_us}};
  std::string text = head.dump(2);
  text.erase(text.size() - 2);  // "\n}": the tables follow
  text += ",\n  \"gemm\": " + GemmText(profile.gemm, "  ");
  text += ",\n  \"prefill_attention\": " + PrefillText(profile.prefill_attention);
  text += ",\n  \"decode_attention\": " + DecodeText(profile.decode_attention);
  text += ",\n  \"all_reduce\": " + AllReduceText(profile);
  // The optional tables only when present: older profiles keep their bytes.
  if (!profile.gemm_fp8.empty()) text += ",\n  \"gemm_fp8\": " + GemmFp8Text(profile);
  if (!profile.prefill_attention_fp8kv.empty()) {
    text += ",\n  \"prefill_attention_fp8kv\": " + PrefillText(profile.prefill_attention_fp8kv);
  }
  if (!profile.decode_attention_fp8kv.empty()) {
    text += ",\n  \"decode_attention_fp8kv\": " + DecodeText(profile.decode_attention_fp8kv);
  }
  if (!profile.moe.empty()) text += ",\n  \"moe\": " + MoeText(profile);
  if (!profile.mla.empty()) text += ",\n  \"mla\": " + MlaText(profile);
  return text + "\n}\n";
}

ShapeProfile LoadShapeProfile(const std::string& path) {
  return ParseShapeProfile(ReadWholeFile(path), path);
}

}  // namespace efimsim
