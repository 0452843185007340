#include "profile.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <tuple>

namespace efimsim::kernels {
namespace {

void check_time(double t, const std::string& where) {
  if (!std::isfinite(t) || t <= 0.0) throw std::invalid_argument("profile: bad time in " + where);
}

template <class Points, class Key>
void sort_unique(Points& points, Key key, const std::string& where) {
  if (points.empty()) throw std::invalid_argument("profile: empty table " + where);
  std::sort(points.begin(), points.end(), [&](const auto& a, const auto& b) { return key(a) < key(b); });
  for (std::size_t i = 1; i < points.size(); ++i) {
    if (key(points[i - 1]) == key(points[i])) throw std::invalid_argument("profile: duplicate point in " + where);
  }
}

json::Value point(const char* key, std::int64_t k, double t) {
  json::Value v = json::Value::object();
  v.set(key, json::Value(k));
  v.set("time_us", json::Value(t));
  return v;
}

}  // namespace

namespace {

// points[i] of every repetition: the minimum goes to out, the spread to noise.
template <class Table, class Points, class Key, class Time>
void combine_points(const std::vector<Profile>& reps, Table table_of, Points& out, Key key, Time time,
                    const std::string& name, std::vector<TableNoise>& noise) {
  std::vector<double> spread;
  for (std::size_t i = 0; i < out.size(); ++i) {
    double lo = time(out[i]), hi = time(out[i]);
    for (const Profile& r : reps) {
      const auto& pts = table_of(r);
      if (pts.size() != out.size() || key(pts[i]) != key(out[i])) {
        throw std::invalid_argument("combine_repetitions: repetitions differ in table " + name);
      }
      lo = std::min(lo, time(pts[i]));
      hi = std::max(hi, time(pts[i]));
    }
    time(out[i]) = lo;
    spread.push_back(lo > 0 ? (hi - lo) / lo : 0.0);
  }
  TableNoise n;
  n.table = name;
  n.points = static_cast<int>(spread.size());
  if (!spread.empty()) {
    std::sort(spread.begin(), spread.end());
    n.max_rel_diff = spread.back();
    const std::size_t mid = spread.size() / 2;
    n.median_rel_diff = spread.size() % 2 ? spread[mid] : 0.5 * (spread[mid - 1] + spread[mid]);
  }
  noise.push_back(n);
}

}  // namespace

Profile combine_repetitions(const std::vector<Profile>& reps) {
  if (reps.empty()) throw std::invalid_argument("combine_repetitions: no repetitions");
  Profile out = reps.front();
  out.run_to_run = {};
  out.run_to_run.repetitions = static_cast<int>(reps.size());
  auto& noise = out.run_to_run.tables;
  for (const Profile& r : reps) {
    if (r.gemm.size() != out.gemm.size() || r.elementwise.size() != out.elementwise.size()) {
      throw std::invalid_argument("combine_repetitions: repetitions have different tables");
    }
  }
  auto first = [](auto& pair) -> auto& { return pair.first; };
  auto second = [](auto& pair) -> auto& { return pair.second; };
  for (std::size_t g = 0; g < out.gemm.size(); ++g) {
    combine_points(reps, [&](const Profile& r) -> const auto& { return r.gemm[g].points; }, out.gemm[g].points,
                   first, second, "gemm/" + out.gemm[g].name, noise);
  }
  auto pkey = [](auto& x) { return std::pair(x.new_tokens, x.context_tokens); };
  auto dkey = [](auto& x) { return std::pair(x.batch, x.context_tokens); };
  auto t = [](auto& x) -> auto& { return x.time_us; };
  combine_points(reps, [](const Profile& r) -> const auto& { return r.prefill.points; }, out.prefill.points, pkey, t,
                 "prefill_attention", noise);
  combine_points(reps, [](const Profile& r) -> const auto& { return r.decode.points; }, out.decode.points, dkey, t,
                 "decode_attention", noise);
  for (std::size_t e = 0; e < out.elementwise.size(); ++e) {
    combine_points(reps, [&](const Profile& r) -> const auto& { return r.elementwise[e].points; },
                   out.elementwise[e].points, first, second, "elementwise/" + out.elementwise[e].name, noise);
  }
  return out;
}

void normalize(Profile& p) {
  for (auto& g : p.gemm) {
    sort_unique(g.points, [](const auto& x) { return x.first; }, "gemm " + g.name);
    for (const auto& [m, t] : g.points) check_time(t, "gemm " + g.name);
  }
  sort_unique(p.prefill.points, [](const auto& x) { return std::tuple(x.new_tokens, x.context_tokens); },
              "prefill_attention");
  for (const auto& x : p.prefill.points) check_time(x.time_us, "prefill_attention");
  sort_unique(p.decode.points, [](const auto& x) { return std::tuple(x.batch, x.context_tokens); },
              "decode_attention");
  for (const auto& x : p.decode.points) check_time(x.time_us, "decode_attention");
  for (auto& e : p.elementwise) {
    sort_unique(e.points, [](const auto& x) { return x.first; }, "elementwise " + e.name);
    for (const auto& [n, t] : e.points) check_time(t, "elementwise " + e.name);
  }
}

json::Value profile_to_json(const Profile& in) {
  Profile p = in;
  normalize(p);
  using json::Value;
  Value doc = Value::object();
  doc.set("schema_version", Value(1));
  doc.set("kind", Value("efimsim-kernel-profile"));
  doc.set("gpu", Value(p.gpu));
  doc.set("model", Value(p.model));
  doc.set("command", Value(p.command));
  Value kernels = Value::object();
  kernels.set("gemm", Value(p.gemm_kernel));
  kernels.set("prefill_attention", Value(p.prefill_kernel));
  kernels.set("decode_attention", Value(p.decode_kernel));
  kernels.set("elementwise", Value(p.elementwise_kernel));
  doc.set("kernels", kernels);
  Value prov = Value::object();
  prov.set("gpu_name", Value(p.provenance.gpu_name));
  prov.set("sm_count", Value(p.provenance.sm_count));
  prov.set("sm_clock_mhz", Value(p.provenance.sm_clock_mhz));
  prov.set("memory_clock_mhz", Value(p.provenance.memory_clock_mhz));
  prov.set("driver_version", Value(p.provenance.driver_version));
  prov.set("cuda_runtime_version", Value(p.provenance.cuda_runtime_version));
  prov.set("git_commit", Value(p.provenance.git_commit));
  prov.set("date_utc", Value(p.provenance.date_utc));
  if (p.run_to_run.repetitions > 0) {
    Value rr = Value::object();
    rr.set("count", Value(p.run_to_run.repetitions));
    rr.set("combine", Value(p.run_to_run.combine));
    Value tables = Value::array();
    for (const auto& n : p.run_to_run.tables) {
      Value t = Value::object();
      t.set("table", Value(n.table));
      t.set("points", Value(n.points));
      t.set("max_rel_diff", Value(n.max_rel_diff));
      t.set("median_rel_diff", Value(n.median_rel_diff));
      tables.push_back(t);
    }
    rr.set("tables", tables);
    prov.set("sweep_repetitions", rr);
  }
  doc.set("provenance", prov);
  Value gemm = Value::array();
  for (const auto& g : p.gemm) {
    Value t = Value::object();
    t.set("name", Value(g.name));
    t.set("n", Value(g.n));
    t.set("k", Value(g.k));
    Value pts = Value::array();
    for (const auto& [m, us] : g.points) pts.push_back(point("m", m, us));
    t.set("points", pts);
    gemm.push_back(t);
  }
  doc.set("gemm", gemm);
  Value prefill = Value::object();
  prefill.set("q_heads", Value(p.prefill.q_heads));
  prefill.set("kv_heads", Value(p.prefill.kv_heads));
  prefill.set("head_dim", Value(p.prefill.head_dim));
  prefill.set("block_tokens", Value(p.prefill.block_tokens));
  Value ppts = Value::array();
  for (const auto& x : p.prefill.points) {
    Value v = Value::object();
    v.set("new_tokens", Value(x.new_tokens));
    v.set("context_tokens", Value(x.context_tokens));
    v.set("time_us", Value(x.time_us));
    ppts.push_back(v);
  }
  prefill.set("points", ppts);
  doc.set("prefill_attention", prefill);
  Value decode = Value::object();
  decode.set("q_heads", Value(p.decode.q_heads));
  decode.set("kv_heads", Value(p.decode.kv_heads));
  decode.set("head_dim", Value(p.decode.head_dim));
  decode.set("block_tokens", Value(p.decode.block_tokens));
  Value dpts = Value::array();
  for (const auto& x : p.decode.points) {
    Value v = Value::object();
    v.set("batch", Value(x.batch));
    v.set("context_tokens", Value(x.context_tokens));
    v.set("time_us", Value(x.time_us));
    dpts.push_back(v);
  }
  decode.set("points", dpts);
  doc.set("decode_attention", decode);
  Value elem = Value::array();
  for (const auto& e : p.elementwise) {
    Value t = Value::object();
    t.set("name", Value(e.name));
    Value pts = Value::array();
    for (const auto& [n, us] : e.points) pts.push_back(point("tokens", n, us));
    t.set("points", pts);
    elem.push_back(t);
  }
  doc.set("elementwise", elem);
  Value cpu = Value::object();
  cpu.set("source", Value(p.cpu_overhead.source));
  cpu.set("step_us", Value(p.cpu_overhead.step_us));
  cpu.set("per_sequence_us", Value(p.cpu_overhead.per_sequence_us));
  cpu.set("per_layer_launch_us", Value(p.cpu_overhead.per_layer_launch_us));
  Value sizes = Value::array();
  for (int b : p.cpu_overhead.graph_capture_batch_sizes) sizes.push_back(Value(b));
  cpu.set("graph_capture_batch_sizes", sizes);
  doc.set("cpu_overhead", cpu);
  return doc;
}

void write_profile(const Profile& p, const std::string& path) {
  const std::string text = json::write(profile_to_json(p));
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write " + tmp);
    out << text;
    out.flush();
    if (!out) throw std::runtime_error("write failed: " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw std::runtime_error("cannot rename " + tmp + " to " + path);
}

std::string join_command_line(int argc, const char* const* argv) {
  std::string out;
  for (int i = 0; i < argc; ++i) {
    if (i) out += ' ';
    const std::string a = argv[i];
    const bool plain = !a.empty() && a.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") ==
                                         std::string::npos;
    if (plain) {
      out += a;
    } else {
      out += '\'';
      for (char c : a) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
      out += '\'';
    }
  }
  return out;
}

}  // namespace efimsim::kernels
