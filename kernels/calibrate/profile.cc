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
