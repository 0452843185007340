#include "models/import/llmservingsim_shapes.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "models/import/llmservingsim_import.h"
#include "models/latency/operator_work.h"
#include "models/latency/profile_transfer.h"
#include "models/formats/spec_catalog.h"
#include "sim/base/errors.h"

namespace efimsim {
namespace {

// The catalogue model a Hugging Face id names ("meta-llama/Llama-3.1-8B"
// -> llama-3.1-8b), with the shapes the meta says were profiled.
ModelSpec ProfiledModel(const LlmServingSimMeta& meta) {
  std::string name = meta.model.substr(meta.model.find_last_of('/') + 1);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  // "qwen3-30b-a3b-instruct-2507": the base model's spec (an instruct
  // release has the base's shapes).
  const std::vector<std::string> tries = {name, name.substr(0, name.find("-instruct"))};
  ModelSpec model;
  for (const std::string& candidate : tries) {
    try {
      model = LoadModelSpec(candidate);
      break;
    } catch (const UsageError&) {
    }
  }
  if (model.name.empty()) {
    throw InputError(meta.origin, 0, "model", "\"" + meta.model + "\" is no built-in model (" + name + ")");
  }
  std::string changed;
  const auto apply = [&](int64_t value, int64_t& field, const char* what) {
    if (value == 0 || value == field) return;
    changed += (changed.empty() ? "" : ", ") + std::string(what) + " " + std::to_string(value);
    field = value;
  };
  apply(meta.intermediate_size, model.ffn_size, "FFN");
  apply(meta.num_attention_heads, model.q_heads, "q heads");
  apply(meta.num_key_value_heads, model.kv_heads, "KV heads");
  apply(meta.vocab_size, model.vocab_size, "vocabulary");
  if (!changed.empty()) model.name += " as profiled (" + changed + ")";
  return model;
}

// Adds `from`'s tables whose key `into` lacks (the first bundle's win).
void Merge(ShapeProfile& into, const ShapeProfile& from) {
  for (const ShapeGemmTable& t : from.gemm) {
    if (std::none_of(into.gemm.begin(), into.gemm.end(),
                     [&](const ShapeGemmTable& g) { return g.n == t.n && g.k == t.k; })) {
      into.gemm.push_back(t);
    }
  }
  for (const ShapePrefillTable& t : from.prefill_attention) {
    if (std::none_of(into.prefill_attention.begin(), into.prefill_attention.end(),
                     [&](const ShapePrefillTable& p) { return p.heads == t.heads; })) {
      into.prefill_attention.push_back(t);
    }
  }
  for (const ShapeDecodeTable& t : from.decode_attention) {
    if (std::none_of(into.decode_attention.begin(), into.decode_attention.end(),
                     [&](const ShapeDecodeTable& d) { return d.heads == t.heads; })) {
      into.decode_attention.push_back(t);
    }
  }
  for (const ShapeMoeTable& t : from.moe) {
    if (std::none_of(into.moe.begin(), into.moe.end(), [&](const ShapeMoeTable& m) { return m.key == t.key; })) {
      into.moe.push_back(t);
    }
  }
  for (const ProfileSourceFile& f : from.source.files) into.source.files.push_back(f);
}

// (bytes, us) of the measured fused-kernel tables, at the byte counts the
// shape rule prices them by (shape_rule.cc FusedElementwise).
void AddElementwisePoints(const KernelProfile& profile, const ShardShapes& s,
                          std::vector<std::pair<double, double>>& points) {
  const double d = static_cast<double>(s.dtype_bytes);
  for (const ElementwiseTable& t : profile.elementwise) {
    if (t.Modelled()) continue;
    double per_token = 0;
    if (t.name == "rmsnorm") per_token = 4.0 * static_cast<double>(s.hidden) * d;
    if (t.name == "silu_and_mul") per_token = 3.0 * static_cast<double>(s.ffn) * d;
    if (per_token == 0) continue;
    for (const ProfilePoint& p : t.points) points.push_back({per_token * static_cast<double>(p.key), p.time_us});
  }
}

// Least squares us = a x bytes + c over `points`, each weighted by
// 1 / us^2 (relative errors: small kernels, whose floor is c, count as much
// as large ones); the rule's fraction is 1 / (a x datasheet bandwidth), at
// most 1, and c >= 0.
ElementwiseRule FitRule(const std::vector<std::pair<double, double>>& points, const GpuSpec& gpu,
                        const std::string& origin) {
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& [x, y] : points) {
    const double w = 1.0 / (y * y);
    n += w;
    sx += w * x;
    sy += w * y;
    sxx += w * x * x;
    sxy += w * x * y;
  }
  const double denominator = n * sxx - sx * sx;
  if (points.size() < 2 || !(denominator > 0)) {
    throw InputError(origin, 0, "elementwise", "needs measured RMSNorm or SiLU-and-mul points to fit the rule");
  }
  const double a = (n * sxy - sx * sy) / denominator;  // us per byte
  const double c = (sy - a * sx) / n;
  const double bandwidth = gpu.datasheet_hbm_tbps * 1e12;
  ElementwiseRule rule{bandwidth, 1.0, std::max(0.0, c)};
  if (a > 0) rule.bandwidth_fraction = std::min(1.0, 1.0 / (a * 1e-6 * bandwidth));
  return rule;
}

}  // namespace

ShapeProfile ImportLlmServingSimShapes(const std::vector<std::string>& bundles, const GpuSpec& gpu,
                                       const ImportSettings& settings, ImportReport& report) {
  if (bundles.empty()) throw UsageError("--bundle: give at least one LLMServingSim bundle folder");
  ShapeProfile out;
  std::vector<std::pair<double, double>> elementwise;
  for (size_t i = 0; i < bundles.size(); ++i) {
    const LlmServingSimMeta meta = LoadLlmServingSimMeta(bundles[i]);
    if (meta.tp1_scale > 1) {
      report.notes.push_back("bundle " + bundles[i] + ": meta.yaml's hf_overrides are its last pass's (TP " +
                             std::to_string(meta.tp1_scale) + ") per-GPU shard shapes; its tp1 tables are keyed at " +
                             std::to_string(meta.tp1_scale) + " x them");
    }
    const ModelSpec profiled = ProfiledModel(meta);
    const KernelProfile profile = ImportLlmServingSimProfile(bundles[i], profiled, gpu, settings, report);
    const ShapeProfile shapes = ShapeProfileFromKernelProfile(profile, profiled, gpu);
    AddElementwisePoints(profile, ShardModel(profiled, 1), elementwise);
    report.notes.push_back("bundle " + bundles[i] + ": " + profiled.name + ", " +
                           std::to_string(shapes.gemm.size()) + " GEMM shapes");
    if (i == 0) {
      out = shapes;
      out.source.files.clear();
    }
    Merge(out, shapes);
  }
  std::sort(out.gemm.begin(), out.gemm.end(),
            [](const ShapeGemmTable& a, const ShapeGemmTable& b) { return std::pair(a.n, a.k) < std::pair(b.n, b.k); });
  std::sort(out.prefill_attention.begin(), out.prefill_attention.end(),
            [](const ShapePrefillTable& a, const ShapePrefillTable& b) { return a.heads < b.heads; });
  std::sort(out.decode_attention.begin(), out.decode_attention.end(),
            [](const ShapeDecodeTable& a, const ShapeDecodeTable& b) { return a.heads < b.heads; });
  std::sort(out.moe.begin(), out.moe.end(),
            [](const ShapeMoeTable& a, const ShapeMoeTable& b) { return a.key < b.key; });
  out.all_reduce.clear();  // TP1 bundles only
  out.engine = "vllm_v1";
  out.command = settings.command;
  out.elementwise = FitRule(elementwise, gpu, bundles.front());
  out.source.method += "; keyed by the shapes the bundles profiled in their tp1 pass (hf_overrides, which "
                       "describe a bundle's last pass, multiplied by its last TP degree), merged (the first "
                       "bundle's table of a repeated shape kept); elementwise rule fitted on their measured "
                       "RMSNorm and SiLU-and-mul tables";
  char rule[160];
  std::snprintf(rule, sizeof rule, "elementwise rule fitted: bytes / (%.3f TB/s x %.3f) + %.2f us",
                out.elementwise.memory_bytes_per_second / 1e12, out.elementwise.bandwidth_fraction,
                out.elementwise.constant_us);
  report.notes.push_back(rule);
  if (out.elementwise.bandwidth_fraction >= 1.0) {
    report.notes.push_back("(the fitted bandwidth exceeds the datasheet's, so it is held at it: the measured "
                           "small tensors are served from the GPU's L2 cache)");
    out.source.method += " (bandwidth held at the datasheet's: the fit exceeded it, L2-resident tensors)";
  }
  return out;
}

}  // namespace efimsim
