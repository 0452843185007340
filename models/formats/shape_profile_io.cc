// JSON reader and writer of shape profiles (models/PROFILE.md, "Shape
// profiles"), and the built-in ones, parsed once per process.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include <nlohmann/json.hpp>

#include "models/formats/embedded_files.h"
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

void ReadGemm(StrictObject& root, ShapeProfile& profile) {
  StrictObject gemm(root.Field("gemm"), profile.origin, "gemm");
  const std::vector<int64_t> m = ReadKeys(gemm, "m", 1);
  const json& tables = gemm.Array("tables");
  for (size_t i = 0; i < tables.size(); ++i) {
    StrictObject t(tables[i], profile.origin, Indexed("gemm.tables", i));
    ShapeGemmTable table;
    table.n = t.Int("n", 1);
    table.k = t.Int("k", 1);
    table.points = ReadTimes(t.Field("us"), m, profile.origin, t.Path("us"));
    t.RejectUnknownKeys();
    profile.gemm.push_back(std::move(table));
  }
  gemm.RejectUnknownKeys();
  RequireSortedUnique(profile.gemm, [](const ShapeGemmTable& g) { return std::pair(g.n, g.k); },
                      profile.origin, "gemm.tables");
}

void ReadPrefill(StrictObject& root, ShapeProfile& profile) {
  StrictObject prefill(root.Field("prefill_attention"), profile.origin, "prefill_attention");
  const std::vector<int64_t> tokens = ReadKeys(prefill, "tokens", 1);
  const json& tables = prefill.Array("tables");
  for (size_t i = 0; i < tables.size(); ++i) {
    StrictObject t(tables[i], profile.origin, Indexed("prefill_attention.tables", i));
    ShapePrefillTable table;
    table.heads = ReadHeads(t);
    table.points = ReadTimes(t.Field("us"), tokens, profile.origin, t.Path("us"));
    t.RejectUnknownKeys();
    profile.prefill_attention.push_back(std::move(table));
  }
  prefill.RejectUnknownKeys();
  RequireSortedUnique(profile.prefill_attention, [](const ShapePrefillTable& p) { return p.heads; },
                      profile.origin, "prefill_attention.tables");
}

void ReadDecode(StrictObject& root, ShapeProfile& profile) {
  StrictObject decode(root.Field("decode_attention"), profile.origin, "decode_attention");
  const std::vector<int64_t> batch = ReadKeys(decode, "batch", 1);
  const std::vector<int64_t> context = ReadKeys(decode, "context", 0);
  const json& tables = decode.Array("tables");
  for (size_t i = 0; i < tables.size(); ++i) {
    StrictObject t(tables[i], profile.origin, Indexed("decode_attention.tables", i));
    ShapeDecodeTable table;
    table.heads = ReadHeads(t);
    const json& rows = t.Array("us");
    if (rows.size() != batch.size()) {
      throw InputError(profile.origin, 0, t.Path("us"),
                       "expected one row per batch size (" + std::to_string(batch.size()) + ")");
    }
    for (size_t r = 0; r < rows.size(); ++r) {
      if (rows[r].is_null()) continue;  // a batch size not measured for these heads
      for (const ProfilePoint& p : ReadTimes(rows[r], context, profile.origin, Indexed(t.Path("us"), r))) {
        table.points.push_back({batch[r], p.key, p.time_us});
      }
    }
    if (table.points.empty()) throw InputError(profile.origin, 0, t.Path("us"), "no measured point");
    t.RejectUnknownKeys();
    profile.decode_attention.push_back(std::move(table));
  }
  decode.RejectUnknownKeys();
  RequireSortedUnique(profile.decode_attention, [](const ShapeDecodeTable& d) { return d.heads; },
                      profile.origin, "decode_attention.tables");
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

std::string GemmText(const ShapeProfile& profile) {
  const std::vector<int64_t> m =
      UnionKeys(profile.gemm, [](const ShapeGemmTable& t) { return PointKeys(t.points); });
  std::vector<ordered> tables;
  for (const ShapeGemmTable& t : profile.gemm) {
    ordered o = {{"n", t.n}, {"k", t.k}};
    o["us"] = TimesJson(m, t.points);
    tables.push_back(std::move(o));
  }
  return "{\n    \"m\": " + ordered(m).dump() + ",\n    \"tables\": " + TablesText(tables, "    ") + "\n  }";
}

std::string PrefillText(const ShapeProfile& profile) {
  const std::vector<int64_t> tokens = UnionKeys(
      profile.prefill_attention, [](const ShapePrefillTable& t) { return PointKeys(t.points); });
  std::vector<ordered> tables;
  for (const ShapePrefillTable& t : profile.prefill_attention) {
    ordered o = HeadsJson(t.heads);
    o["us"] = TimesJson(tokens, t.points);
    tables.push_back(std::move(o));
  }
  return "{\n    \"tokens\": " + ordered(tokens).dump() + ",\n    \"tables\": " +
         TablesText(tables, "    ") + "\n  }";
}

std::string DecodeText(const ShapeProfile& profile) {
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
  const std::vector<int64_t> batch = UnionKeys(profile.decode_attention, rows_of);
  const std::vector<int64_t> context = UnionKeys(profile.decode_attention, contexts_of);
  std::vector<ordered> tables;
  for (const ShapeDecodeTable& t : profile.decode_attention) {
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
  ReadPrefill(root, profile);
  ReadDecode(root, profile);
  ReadAllReduce(root, profile);
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
  head["elementwise_rule"] = {{"memory_bytes_per_second", profile.elementwise.memory_bytes_per_second},
                              {"bandwidth_fraction", profile.elementwise.bandwidth_fraction},
                              {"constant_us", profile.elementwise.constant_us}};
  std::string text = head.dump(2);
  text.erase(text.size() - 2);  // "\n}": the tables follow
  text += ",\n  \"gemm\": " + GemmText(profile);
  text += ",\n  \"prefill_attention\": " + PrefillText(profile);
  text += ",\n  \"decode_attention\": " + DecodeText(profile);
  text += ",\n  \"all_reduce\": " + AllReduceText(profile);
  return text + "\n}\n";
}

ShapeProfile LoadShapeProfile(const std::string& path) {
  return ParseShapeProfile(ReadWholeFile(path), path);
}

const ShapeProfile* FindBuiltinShapeProfile(const std::string& gpu, const std::string& source,
                                            const std::string& engine) {
  // Parsed on first use and kept: a sweep builds thousands of latency
  // models, and a built-in file is parsed in tens of milliseconds.
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<const ShapeProfile>> parsed;
  const std::string name = gpu + "/" + source + "/" + engine;
  const std::lock_guard<std::mutex> lock(mutex);
  const auto cached = parsed.find(name);
  if (cached != parsed.end()) return cached->second.get();
  for (const EmbeddedFile& file : EmbeddedShapeProfiles()) {
    if (file.name != name) continue;
    auto profile = std::make_unique<ShapeProfile>(ParseShapeProfile(
        std::string(file.text), "built-in shape profile models/shape_profiles/" + name + ".json"));
    if (profile->gpu != gpu || profile->engine != engine || profile->source.kind != source) {
      throw InputError(profile->origin, 0, "gpu",
                       "gpu, engine or source.kind does not match the file's place");
    }
    return parsed.emplace(name, std::move(profile)).first->second.get();
  }
  parsed.emplace(name, nullptr);
  return nullptr;
}

std::vector<std::string> BuiltinShapeProfileNames() {
  std::vector<std::string> names;
  for (const EmbeddedFile& file : EmbeddedShapeProfiles()) names.emplace_back(file.name);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace efimsim
