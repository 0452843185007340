// JSON reader for kernel profiles (models/PROFILE.md).
#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "models/formats/embedded_files.h"
#include "models/formats/kernel_profile.h"
#include "models/formats/profile_source_io.h"
#include "models/formats/strict_json_io.h"
#include "sim/base/errors.h"

namespace efimsim {
namespace {

using nlohmann::json;

std::string Indexed(const std::string& path, size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

// A measured kernel time: positive and below 1e9 us (1000 s per launch,
// far beyond any real kernel), so every prediction fits in int64 ns.
double KernelTimeUs(StrictObject& point) {
  const double time_us = point.Positive("time_us");
  if (time_us >= 1e9) {
    throw InputError(point.origin(), 0, point.Path("time_us"), "must be < 1e9 (1000 s)");
  }
  return time_us;
}

// Reads a list of {"<key_name>": int, "time_us": number} sorted by key, unique.
std::vector<ProfilePoint> ReadPoints(StrictObject& table, const std::string& key_name,
                                     int64_t min_key) {
  const json& list = table.Array("points");
  const std::string path = table.Path("points");
  if (list.empty()) throw InputError(table.origin(), 0, path, "empty table");
  std::vector<ProfilePoint> points;
  for (size_t i = 0; i < list.size(); ++i) {
    StrictObject point(list[i], table.origin(), Indexed(path, i));
    ProfilePoint p;
    p.key = point.Int(key_name, min_key);
    p.time_us = KernelTimeUs(point);
    point.RejectUnknownKeys();
    if (!points.empty() && p.key <= points.back().key) {
      throw InputError(table.origin(), 0, point.Path(key_name),
                       "points must be sorted by " + key_name + " with unique keys");
    }
    points.push_back(p);
  }
  return points;
}

AttentionTable ReadAttention(StrictObject& root, const std::string& key, const std::string& rows_name) {
  StrictObject table(root.Field(key), root.origin(), key);
  AttentionTable out;
  out.q_heads = table.Int("q_heads", 1);
  out.kv_heads = table.Int("kv_heads", 1);
  out.head_dim = table.Int("head_dim", 1);
  out.block_tokens = table.Int("block_tokens", 1);
  const json& list = table.Array("points");
  const std::string path = table.Path("points");
  if (list.empty()) throw InputError(root.origin(), 0, path, "empty table");
  for (size_t i = 0; i < list.size(); ++i) {
    StrictObject point(list[i], root.origin(), Indexed(path, i));
    AttentionPoint p;
    p.rows = point.Int(rows_name, 1);
    p.context_tokens = point.Int("context_tokens", 0);
    p.time_us = KernelTimeUs(point);
    point.RejectUnknownKeys();
    if (!out.points.empty() && std::tie(p.rows, p.context_tokens) <=
                                   std::tie(out.points.back().rows, out.points.back().context_tokens)) {
      throw InputError(root.origin(), 0, point.Path(rows_name),
                       "points must be sorted by (" + rows_name +
                           ", context_tokens) with unique keys");
    }
    out.points.push_back(p);
  }
  table.RejectUnknownKeys();
  return out;
}

const std::set<std::string>& GemmNames() {
  static const std::set<std::string> names = {"qkv_proj", "o_proj", "gate_up_proj", "down_proj",
                                              "lm_head"};
  return names;
}

const std::set<std::string>& ElementwiseNames() {
  static const std::set<std::string> names = {"rmsnorm", "rope", "silu_and_mul", "gelu",
                                              "residual_add", "kv_cache_write", "sampling"};
  return names;
}

std::string Joined(const std::set<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

// "schema_version" (1) and "kind" checked; then gpu, model and command.
void ReadProfileHeader(StrictObject& root, KernelProfile& profile) {
  const std::string& origin = root.origin();
  const int64_t version = root.Int("schema_version", 1);
  if (version != 1) {
    throw InputError(origin, 0, "schema_version",
                     "unsupported version " + std::to_string(version) + " (this build reads 1)");
  }
  if (root.String("kind") != "efimsim-kernel-profile") {
    throw InputError(origin, 0, "kind", "expected \"efimsim-kernel-profile\"");
  }
  profile.gpu = root.String("gpu");
  profile.model = root.String("model");
  profile.command = root.String("command");
}

void ReadKernelNames(StrictObject& root, KernelProfile& profile) {
  const std::string& origin = root.origin();
  StrictObject kernels(root.Field("kernels"), origin, "kernels");
  profile.gemm_kernel = kernels.String("gemm");
  profile.prefill_attention_kernel = kernels.String("prefill_attention");
  profile.decode_attention_kernel = kernels.String("decode_attention");
  profile.elementwise_kernel = kernels.String("elementwise");
  kernels.RejectUnknownKeys();
}

void ReadSweepRepetitions(StrictObject& provenance, ProfileSweepRepetitions& r) {
  const std::string& origin = provenance.origin();
  StrictObject reps(provenance.Field("sweep_repetitions"), origin, "provenance.sweep_repetitions");
  r.count = reps.Int("count", 1);
  r.combine = reps.String("combine");
  const nlohmann::json& tables = reps.Array("tables");
  for (size_t i = 0; i < tables.size(); ++i) {
    StrictObject t(tables[i], origin, "provenance.sweep_repetitions.tables[" + std::to_string(i) + "]");
    ProfileTableNoise noise;
    noise.table = t.String("table");
    noise.points = t.Int("points", 1);
    noise.max_rel_diff = t.Number("max_rel_diff", 0.0);
    noise.median_rel_diff = t.Number("median_rel_diff", 0.0);
    t.RejectUnknownKeys();
    r.tables.push_back(std::move(noise));
  }
  reps.RejectUnknownKeys();
}

void ReadProvenance(StrictObject& root, ProfileProvenance& p) {
  const std::string& origin = root.origin();
  StrictObject provenance(root.Field("provenance"), origin, "provenance");
  p.gpu_name = provenance.String("gpu_name");
  p.sm_count = provenance.Int("sm_count", 0);
  p.sm_clock_mhz = provenance.Int("sm_clock_mhz", 0);
  p.memory_clock_mhz = provenance.Int("memory_clock_mhz", 0);
  p.driver_version = provenance.String("driver_version");
  p.cuda_runtime_version = provenance.String("cuda_runtime_version");
  p.git_commit = provenance.String("git_commit");
  p.date_utc = provenance.String("date_utc");
  if (provenance.Has("sweep_repetitions")) ReadSweepRepetitions(provenance, p.sweep_repetitions);
  provenance.RejectUnknownKeys();
}

// The optional "source" and "interpolation" (log-log unless it says linear).
void ReadSourceAndInterpolation(StrictObject& root, KernelProfile& profile) {
  const std::string& origin = root.origin();
  if (root.Has("source")) {
    StrictObject source(root.Field("source"), origin, "source");
    profile.source = ReadProfileSource(source);
  }
  if (root.Has("interpolation")) {
    const std::string interpolation = root.String("interpolation");
    if (interpolation == "linear") {
      profile.interpolation = Interpolation::kLinear;
    } else if (interpolation != "log-log") {
      throw InputError(origin, 0, "interpolation", "expected \"linear\" or \"log-log\"");
    }
  }
}

// A table's "name": one of `known`, not in `seen` (then added to it); `noun`
// names the kind of table in the errors ("GEMM", "operator").
std::string ReadTableName(StrictObject& table, const std::set<std::string>& known,
                          const std::string& noun, std::set<std::string>& seen) {
  const std::string name = table.String("name");
  if (!known.count(name)) {
    throw InputError(table.origin(), 0, table.Path("name"),
                     "unknown " + noun + " \"" + name + "\" (known: " + Joined(known) + ")");
  }
  if (!seen.insert(name).second) {
    throw InputError(table.origin(), 0, table.Path("name"), noun + " \"" + name + "\" listed twice");
  }
  return name;
}

void ReadGemmTables(StrictObject& root, std::vector<GemmTable>& out) {
  const std::string& origin = root.origin();
  const json& gemm = root.Array("gemm");
  std::set<std::string> seen;
  for (size_t i = 0; i < gemm.size(); ++i) {
    StrictObject table(gemm[i], origin, Indexed("gemm", i));
    GemmTable t;
    t.name = ReadTableName(table, GemmNames(), "GEMM", seen);
    t.n = table.Int("n", 1);
    t.k = table.Int("k", 1);
    t.points = ReadPoints(table, "m", 1);
    table.RejectUnknownKeys();
    out.push_back(std::move(t));
  }
}

void ReadElementwiseTables(StrictObject& root, std::vector<ElementwiseTable>& out) {
  const std::string& origin = root.origin();
  const json& elementwise = root.Array("elementwise");
  std::set<std::string> seen;
  for (size_t i = 0; i < elementwise.size(); ++i) {
    StrictObject table(elementwise[i], origin, Indexed("elementwise", i));
    ElementwiseTable t;
    t.name = ReadTableName(table, ElementwiseNames(), "operator", seen);
    t.points = ReadPoints(table, "tokens", 1);
    if (table.Has("source")) {
      t.source = table.String("source");
      if (t.source != "measured" && !t.Modelled()) {
        throw InputError(origin, 0, table.Path("source"), "expected \"measured\" or \"modelled: <how>\"");
      }
    }
    table.RejectUnknownKeys();
    out.push_back(std::move(t));
  }
}

// The optional "all_reduce" list, one table per tensor-parallel degree.
void ReadAllReduceTables(StrictObject& root, std::vector<AllReduceTable>& out) {
  const std::string& origin = root.origin();
  if (!root.Has("all_reduce")) return;
  const json& all_reduce = root.Array("all_reduce");
  std::set<int64_t> degrees;
  for (size_t i = 0; i < all_reduce.size(); ++i) {
    StrictObject table(all_reduce[i], origin, Indexed("all_reduce", i));
    AllReduceTable t;
    t.tensor_parallel = table.Int("tensor_parallel", 2);
    if (!degrees.insert(t.tensor_parallel).second) {
      throw InputError(origin, 0, table.Path("tensor_parallel"), "listed twice");
    }
    t.points = ReadPoints(table, "tokens", 1);
    table.RejectUnknownKeys();
    out.push_back(std::move(t));
  }
}

void ReadCpuOverhead(StrictObject& root, ProfileCpuOverhead& c) {
  const std::string& origin = root.origin();
  StrictObject cpu(root.Field("cpu_overhead"), origin, "cpu_overhead");
  c.source = cpu.String("source");
  if (c.source != "default" && !c.Measured()) {
    throw InputError(origin, 0, "cpu_overhead.source", "expected \"default\" or \"measured: <how>\"");
  }
  c.step_us = cpu.Number("step_us", 0.0);
  c.per_sequence_us = cpu.Number("per_sequence_us", 0.0);
  c.per_layer_launch_us = cpu.Number("per_layer_launch_us", 0.0);
  const json& sizes = cpu.Array("graph_capture_batch_sizes");
  if (sizes.empty()) {
    throw InputError(origin, 0, "cpu_overhead.graph_capture_batch_sizes", "empty list");
  }
  for (size_t i = 0; i < sizes.size(); ++i) {
    const std::string path = Indexed("cpu_overhead.graph_capture_batch_sizes", i);
    if (!sizes[i].is_number_integer() || sizes[i].get<int64_t>() < 1) {
      throw InputError(origin, 0, path, "expected an integer >= 1");
    }
    const int64_t size = sizes[i].get<int64_t>();
    if (!c.graph_capture_batch_sizes.empty() && size <= c.graph_capture_batch_sizes.back()) {
      throw InputError(origin, 0, path, "sizes must be ascending and unique");
    }
    c.graph_capture_batch_sizes.push_back(size);
  }
  cpu.RejectUnknownKeys();
}

}  // namespace

KernelProfile ParseKernelProfile(const std::string& json_text, const std::string& origin) {
  const json root_json = ParseJson(json_text, origin);
  StrictObject root(root_json, origin, "");
  KernelProfile profile;
  profile.origin = origin;
  ReadProfileHeader(root, profile);
  ReadKernelNames(root, profile);
  ReadProvenance(root, profile.provenance);
  ReadSourceAndInterpolation(root, profile);
  ReadGemmTables(root, profile.gemm);
  // Optional: a source without attention timings leaves them to the roofline.
  if (root.Has("prefill_attention")) {
    profile.prefill_attention = ReadAttention(root, "prefill_attention", "new_tokens");
  }
  if (root.Has("decode_attention")) {
    profile.decode_attention = ReadAttention(root, "decode_attention", "batch");
  }
  ReadElementwiseTables(root, profile.elementwise);
  ReadAllReduceTables(root, profile.all_reduce);
  ReadCpuOverhead(root, profile.cpu_overhead);
  root.RejectUnknownKeys();
  return profile;
}

namespace {

nlohmann::ordered_json PointsJson(const std::vector<ProfilePoint>& points, const char* key_name) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const ProfilePoint& p : points) {
    nlohmann::ordered_json point = nlohmann::ordered_json::object();
    point[key_name] = p.key;
    point["time_us"] = p.time_us;
    list.push_back(std::move(point));
  }
  return list;
}

nlohmann::ordered_json AttentionJson(const AttentionTable& table, const char* rows_name) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  out["q_heads"] = table.q_heads;
  out["kv_heads"] = table.kv_heads;
  out["head_dim"] = table.head_dim;
  out["block_tokens"] = table.block_tokens;
  nlohmann::ordered_json points = nlohmann::ordered_json::array();
  for (const AttentionPoint& p : table.points) {
    nlohmann::ordered_json point = nlohmann::ordered_json::object();
    point[rows_name] = p.rows;
    point["context_tokens"] = p.context_tokens;
    point["time_us"] = p.time_us;
    points.push_back(std::move(point));
  }
  out["points"] = std::move(points);
  return out;
}

}  // namespace

ProfileSource ReadProfileSource(StrictObject& source) {
  const std::string& origin = source.origin();
  ProfileSource out;
  out.kind = source.String("kind");
  if (out.kind != "pytorch-reference" && out.kind != "vidur" && out.kind != "llmservingsim" &&
      out.kind != "aiconfigurator") {
    throw InputError(origin, 0, source.Path("kind"),
                     "expected \"pytorch-reference\", \"vidur\", \"llmservingsim\" or \"aiconfigurator\"");
  }
  out.stack = source.String("stack");
  out.method = source.String("method");
  const nlohmann::json& files = source.Array("files");
  if (files.empty()) throw InputError(origin, 0, source.Path("files"), "empty list");
  for (size_t i = 0; i < files.size(); ++i) {
    StrictObject file(files[i], origin, source.Path("files") + "[" + std::to_string(i) + "]");
    ProfileSourceFile f;
    f.path = file.String("path");
    f.sha256 = file.String("sha256");
    if (f.sha256.size() != 64 ||
        f.sha256.find_first_not_of("0123456789abcdef") != std::string::npos) {
      throw InputError(origin, 0, file.Path("sha256"), "expected 64 lowercase hex digits");
    }
    file.RejectUnknownKeys();
    out.files.push_back(std::move(f));
  }
  source.RejectUnknownKeys();
  return out;
}

nlohmann::ordered_json ProfileSourceJson(const ProfileSource& source) {
  using ordered = nlohmann::ordered_json;
  ordered files = ordered::array();
  for (const ProfileSourceFile& f : source.files) files.push_back({{"path", f.path}, {"sha256", f.sha256}});
  return {{"kind", source.kind}, {"stack", source.stack}, {"method", source.method}, {"files", std::move(files)}};
}

std::string KernelProfileJson(const KernelProfile& profile) {
  // nlohmann's ordered_json keeps insertion order: PROFILE.md's order.
  using ordered = nlohmann::ordered_json;
  ordered root = ordered::object();
  root["schema_version"] = 1;
  root["kind"] = "efimsim-kernel-profile";
  root["gpu"] = profile.gpu;
  root["model"] = profile.model;
  root["command"] = profile.command;
  root["kernels"] = {{"gemm", profile.gemm_kernel},
                     {"prefill_attention", profile.prefill_attention_kernel},
                     {"decode_attention", profile.decode_attention_kernel},
                     {"elementwise", profile.elementwise_kernel}};
  const ProfileProvenance& p = profile.provenance;
  root["provenance"] = {{"gpu_name", p.gpu_name},
                        {"sm_count", p.sm_count},
                        {"sm_clock_mhz", p.sm_clock_mhz},
                        {"memory_clock_mhz", p.memory_clock_mhz},
                        {"driver_version", p.driver_version},
                        {"cuda_runtime_version", p.cuda_runtime_version},
                        {"git_commit", p.git_commit},
                        {"date_utc", p.date_utc}};
  if (p.sweep_repetitions.count > 0) {
    ordered tables = ordered::array();
    for (const ProfileTableNoise& t : p.sweep_repetitions.tables) {
      tables.push_back({{"table", t.table},
                        {"points", t.points},
                        {"max_rel_diff", t.max_rel_diff},
                        {"median_rel_diff", t.median_rel_diff}});
    }
    root["provenance"]["sweep_repetitions"] = {{"count", p.sweep_repetitions.count},
                                               {"combine", p.sweep_repetitions.combine},
                                               {"tables", std::move(tables)}};
  }
  if (profile.source) root["source"] = ProfileSourceJson(*profile.source);
  root["interpolation"] = InterpolationName(profile.interpolation);
  ordered gemm = ordered::array();
  for (const GemmTable& t : profile.gemm) {
    gemm.push_back({{"name", t.name}, {"n", t.n}, {"k", t.k}, {"points", PointsJson(t.points, "m")}});
  }
  root["gemm"] = std::move(gemm);
  if (!profile.prefill_attention.points.empty()) {
    root["prefill_attention"] = AttentionJson(profile.prefill_attention, "new_tokens");
  }
  if (!profile.decode_attention.points.empty()) {
    root["decode_attention"] = AttentionJson(profile.decode_attention, "batch");
  }
  ordered elementwise = ordered::array();
  for (const ElementwiseTable& t : profile.elementwise) {
    elementwise.push_back(
        {{"name", t.name}, {"source", t.source}, {"points", PointsJson(t.points, "tokens")}});
  }
  root["elementwise"] = std::move(elementwise);
  if (!profile.all_reduce.empty()) {
    ordered all_reduce = ordered::array();
    for (const AllReduceTable& t : profile.all_reduce) {
      all_reduce.push_back(
          {{"tensor_parallel", t.tensor_parallel}, {"points", PointsJson(t.points, "tokens")}});
    }
    root["all_reduce"] = std::move(all_reduce);
  }
  const ProfileCpuOverhead& c = profile.cpu_overhead;
  root["cpu_overhead"] = {{"source", c.source},
                          {"step_us", c.step_us},
                          {"per_sequence_us", c.per_sequence_us},
                          {"per_layer_launch_us", c.per_layer_launch_us},
                          {"graph_capture_batch_sizes", c.graph_capture_batch_sizes}};
  return root.dump(2) + "\n";
}

KernelProfile LoadKernelProfile(const std::string& path) {
  return ParseKernelProfile(ReadWholeFile(path), path);
}

std::string ProfileSourceName(const KernelProfile& profile) {
  return profile.source ? profile.source->kind : "efimsim-kernels";
}

std::optional<KernelProfile> FindBuiltinKernelProfile(const std::string& gpu,
                                                      const std::string& source,
                                                      const std::string& model) {
  // Parsed on first use and kept (sweeps build thousands of latency models);
  // each call returns its own copy.
  static std::mutex mutex;
  static std::map<std::string, std::optional<KernelProfile>> parsed;
  const std::string name = gpu + "/" + source + "/" + model;
  const std::lock_guard<std::mutex> lock(mutex);
  const auto cached = parsed.find(name);
  if (cached != parsed.end()) return cached->second;
  std::optional<KernelProfile> found;
  for (const EmbeddedFile& file : EmbeddedKernelProfiles()) {
    if (file.name != name) continue;
    KernelProfile profile =
        ParseKernelProfile(std::string(file.text), "built-in profile models/profiles/" + name + ".json");
    if (profile.gpu != gpu || profile.model != model || ProfileSourceName(profile) != source) {
      throw InputError(profile.origin, 0, profile.gpu != gpu ? "gpu" : (profile.model != model ? "model" : "source"),
                       "does not match the file's place models/profiles/" + name + ".json");
    }
    found = std::move(profile);
  }
  return parsed.emplace(name, std::move(found)).first->second;
}

std::vector<std::string> BuiltinKernelProfileNames() {
  return EmbeddedNames(EmbeddedKernelProfiles());
}

}  // namespace efimsim
