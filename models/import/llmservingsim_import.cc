#include "models/import/llmservingsim_import.h"

#include "models/import/llmservingsim_moe.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "models/latency/operator_work.h"
#include "models/import/llmservingsim_moe.h"
#include "models/import/profile_import_detail.h"
#include "sim/base/errors.h"
#include "sim/base/sha256.h"

namespace efimsim {
namespace {

using namespace profile_import_detail;

std::string ReadFileBytes(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw InputError(path, 0, "", "missing or not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", "cannot be read");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

std::vector<std::string> SplitCsv(const std::string& line) {
  std::vector<std::string> out;
  std::string field;
  for (char c : line) {
    if (c == ',') {
      out.push_back(field);
      field.clear();
    } else if (c != '\r') {
      field += c;
    }
  }
  out.push_back(field);
  return out;
}

std::string Trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  const size_t b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

std::string Unquote(std::string s) {
  s = Trim(s);
  if (s.size() >= 2 && (s.front() == '\'' || s.front() == '"') && s.back() == s.front()) {
    s = s.substr(1, s.size() - 2);
  }
  return s;
}

int64_t MetaInt(const std::string& value, const std::string& origin, int64_t line, const std::string& key) {
  const std::string v = Unquote(value);
  if (v.empty() || v.size() > 12 || !std::all_of(v.begin(), v.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
    throw InputError(origin, line, key, "must be a non-negative integer, got '" + v + "'");
  }
  return std::stoll(v);
}

// The spec's GPU name and the source's device name agree when every part of
// the spec name that has a digit ("rtx-4090": "4090") is in the device name.
void CheckGpu(const LlmServingSimMeta& meta, const GpuSpec& gpu) {
  std::string device;
  for (char c : meta.gpu) device += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::stringstream parts(gpu.name);
  std::string part;
  while (std::getline(parts, part, '-')) {
    if (std::any_of(part.begin(), part.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }) &&
        device.find(part) == std::string::npos) {
      throw InputError(meta.origin, 0, "gpu",
                       "LLMServingSim profiled \"" + meta.gpu + "\", not GPU " + gpu.name);
    }
  }
}

// An MoE model's tp1/moe.csv as the profile's MoE table: the block's time
// (router included) by tokens under uniform routing (llmservingsim_moe.h).
void AddMoeTable(const std::string& dir, const ModelSpec& model, const LlmServingSimMeta& meta,
                 KernelProfile& profile, ProfileSource& source, ImportReport& report) {
  if (!model.moe.IsMoe()) return;
  const std::string path = dir + "/tp1/moe.csv";
  const std::string text = ReadFileBytes(path);
  const LlmServingSimMoeGrid grid = ParseLlmServingSimMoe(text, path);
  MoeTable table;
  table.kernel = "vLLM " + meta.vllm_version + " sparse-MoE block (router and fused experts), as LLMServingSim's profiler hooked it";
  // LLMServingSim's (tokens, distinct experts) grid read at the expected
  // distinct experts of random top-k choices (UniformRoutingMoePoints).
  table.distribution = "uniform";
  table.points = UniformRoutingMoePoints(grid, ShardModel(model, 1));
  table.includes_router = true;
  profile.moe = std::move(table);
  source.files.push_back(ProfileSourceFile{path, Sha256Hex(text)});
  report.notes.push_back("moe.csv: " + std::to_string(grid.us.size()) +
                         " token counts, read at the expected distinct experts of uniform top-" +
                         std::to_string(model.moe.experts_per_token) + " routing over " +
                         std::to_string(model.moe.experts) + " experts; the router is inside it");
}

}  // namespace

LlmServingSimCsv ParseLlmServingSimCsv(const std::string& text, const std::string& origin,
                                       const std::vector<std::string>& expected, bool text_first) {
  LlmServingSimCsv csv;
  csv.origin = origin;
  csv.sha256 = Sha256Hex(text);
  std::stringstream in(text);
  std::string line;
  int64_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (Trim(line).empty()) continue;
    const std::vector<std::string> fields = SplitCsv(line);
    if (csv.header.empty()) {
      csv.header = fields;
      for (std::string& h : csv.header) h = Trim(h);
      if (csv.header != expected) {
        std::string want;
        for (const std::string& e : expected) want += (want.empty() ? "" : ",") + e;
        throw InputError(origin, number, "header", "expected columns " + want);
      }
      continue;
    }
    if (fields.size() != expected.size()) {
      throw InputError(origin, number, "",
                       std::to_string(fields.size()) + " fields, the header has " +
                           std::to_string(expected.size()));
    }
    LlmServingSimCsv::Row row;
    row.line = number;
    for (size_t i = 0; i < fields.size(); ++i) {
      const std::string f = Trim(fields[i]);
      if (i == 0 && text_first) {
        if (f.empty()) throw InputError(origin, number, expected[0], "empty");
        row.layer = f;
        continue;
      }
      const bool is_time = i + 1 == fields.size();
      double value = 0;
      size_t used = 0;
      try {
        value = std::stod(f, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (f.empty() || used != f.size() || !std::isfinite(value)) {
        throw InputError(origin, number, expected[i], "not a number: '" + f + "'");
      }
      if (is_time) {
        if (value <= 0 || value >= kMaxSourceMilliseconds * 1000.0) {
          throw InputError(origin, number, expected[i], "time must be > 0 and below 1e9 us");
        }
      } else if (value < 0 || value != std::floor(value) || value > 1e12) {
        throw InputError(origin, number, expected[i], "must be a non-negative integer");
      }
      row.values.push_back(value);
    }
    csv.rows.push_back(std::move(row));
  }
  if (csv.header.empty()) throw InputError(origin, 0, "header", "empty file");
  if (csv.rows.empty()) throw InputError(origin, 0, "", "no rows");
  return csv;
}

namespace {

// The last degree of a "tp_degrees: [1, 2]" list (>= 1).
int64_t LastTpDegree(const std::string& value, const std::string& origin, int64_t line) {
  if (value.size() < 2 || value.front() != '[' || value.back() != ']') {
    throw InputError(origin, line, "tp_degrees", "expected a list like [1, 2], got '" + value + "'");
  }
  std::stringstream items(value.substr(1, value.size() - 2));
  std::string item;
  int64_t last = 0;
  while (std::getline(items, item, ',')) last = MetaInt(Trim(item), origin, line, "tp_degrees");
  if (last < 1) throw InputError(origin, line, "tp_degrees", "no degree >= 1 in '" + value + "'");
  return last;
}

}  // namespace

LlmServingSimMeta LoadLlmServingSimMeta(const std::string& dir) {
  const std::string path = dir + "/meta.yaml";
  return ParseLlmServingSimMeta(ReadFileBytes(path), path);
}

LlmServingSimMeta ParseLlmServingSimMeta(const std::string& text, const std::string& origin) {
  LlmServingSimMeta meta;
  meta.origin = origin;
  meta.sha256 = Sha256Hex(text);
  std::stringstream in(text);
  std::string line;
  int64_t number = 0;
  std::map<std::string, int64_t> seen;
  while (std::getline(in, line)) {
    ++number;
    const size_t colon = line.find(':');
    if (colon == std::string::npos || Trim(line).empty() || Trim(line)[0] == '#') continue;
    const std::string key = Trim(line.substr(0, colon));
    const std::string value = Trim(line.substr(colon + 1));
    if (value.empty()) continue;  // a section
    const bool top = !line.empty() && line[0] != ' ';
    if (top && key == "vllm_version") meta.vllm_version = Unquote(value);
    else if (top && key == "cuda_version") meta.cuda_version = Unquote(value);
    else if (top && key == "gpu") meta.gpu = Unquote(value);
    else if (top && key == "model") meta.model = Unquote(value);
    else if (top && key == "profiled_at") meta.profiled_at = Unquote(value);
    else if (top && key == "variant") meta.variant = Unquote(value);
    else if (top && key == "measurement_iterations") meta.measurement_iterations = MetaInt(value, origin, number, key);
    else if (key == "enforce_eager") meta.enforce_eager = Unquote(value) == "true";
    else if (key == "intermediate_size") meta.intermediate_size = MetaInt(value, origin, number, key);
    else if (key == "num_attention_heads") meta.num_attention_heads = MetaInt(value, origin, number, key);
    else if (key == "num_key_value_heads") meta.num_key_value_heads = MetaInt(value, origin, number, key);
    else if (key == "vocab_size") meta.vocab_size = MetaInt(value, origin, number, key);
    else if (key == "block_size") meta.block_size = MetaInt(value, origin, number, key);
    else if (top && key == "tp_degrees") meta.tp1_scale = LastTpDegree(value, origin, number);
    else continue;
    seen[key] = number;
  }
  for (const char* required : {"vllm_version", "gpu", "model", "variant"}) {
    if (!seen.count(required)) throw InputError(origin, 0, required, "missing");
  }
  if (meta.tp1_scale > 1) {
    meta.intermediate_size *= meta.tp1_scale;
    meta.num_attention_heads *= meta.tp1_scale;
    meta.num_key_value_heads *= meta.tp1_scale;
    meta.vocab_size *= meta.tp1_scale;
  }
  if (meta.variant != "bf16") {
    throw InputError(origin, seen["variant"], "variant",
                     "'" + meta.variant + "': only bf16 weights and KV are imported");
  }
  return meta;
}

namespace {

// The shapes LLMServingSim profiled (meta.yaml's hf_overrides) must be the
// model's, and must be there.
void CheckProfiledShapes(const LlmServingSimMeta& meta, const ModelSpec& model) {
  const auto require = [&](const char* field, int64_t source, int64_t spec, const char* what) {
    if (source != 0) RequireModelShape(meta.origin, 0, field, "LLMServingSim profiled", what, source, spec, model);
  };
  require("intermediate_size", meta.intermediate_size, model.ffn_size, "FFN size");
  require("num_attention_heads", meta.num_attention_heads, model.q_heads, "q heads");
  require("num_key_value_heads", meta.num_key_value_heads, model.kv_heads, "KV heads");
  require("vocab_size", meta.vocab_size, model.vocab_size, "vocabulary");
  if (meta.num_attention_heads == 0 || meta.num_key_value_heads == 0 || meta.intermediate_size == 0) {
    throw InputError(meta.origin, 0, "hf_overrides", "the profiled shapes (heads, KV heads, FFN size) are missing");
  }
}

// A bundle's tp1 tables, read and parsed in this order.
struct BundleCsvs {
  LlmServingSimCsv dense;    // dense.csv: layer, tokens, time_us
  LlmServingSimCsv per_seq;  // per_sequence.csv: layer, sequences, time_us
  LlmServingSimCsv attention;
};

BundleCsvs ReadBundleCsvs(const std::string& dir) {
  const std::string dense_path = dir + "/tp1/dense.csv";
  const std::string seq_path = dir + "/tp1/per_sequence.csv";
  const std::string attn_path = dir + "/tp1/attention.csv";
  BundleCsvs csvs;
  csvs.dense =
      ParseLlmServingSimCsv(ReadFileBytes(dense_path), dense_path, {"layer", "tokens", "time_us"}, true);
  csvs.per_seq = ParseLlmServingSimCsv(ReadFileBytes(seq_path), seq_path,
                                       {"layer", "sequences", "time_us"}, true);
  csvs.attention = ParseLlmServingSimCsv(
      ReadFileBytes(attn_path), attn_path,
      {"prefill_chunk", "kv_prefill", "n_decode", "kv_decode", "time_us"}, false);
  return csvs;
}

// layer -> key (tokens or sequences) -> time (us).
using LayerTables = std::map<std::string, std::map<int64_t, double>>;

// dense.csv and per_sequence.csv by layer, every layer the profile needs
// present; a repeated key is an error (the source writes each once).
LayerTables ReadLayerTables(const BundleCsvs& csvs, const ModelSpec& model) {
  LayerTables tables;
  for (const LlmServingSimCsv* csv : {&csvs.dense, &csvs.per_seq}) {
    for (const auto& row : csv->rows) {
      const int64_t key = static_cast<int64_t>(row.values[0]);
      if (key < 1) throw InputError(csv->origin, row.line, csv->header[1], "must be >= 1");
      if (!tables[row.layer].emplace(key, row.values[1]).second) {
        throw InputError(csv->origin, row.line, csv->header[1],
                         row.layer + " at " + std::to_string(key) + " appears twice");
      }
    }
  }
  for (const char* layer : {"layernorm", "qkv_proj", "rotary_emb", "o_proj", "gate_up_proj", "act_fn",
                            "down_proj", "lm_head", "sampler"}) {
    // A model whose every layer is MoE has no dense MLP (moe.csv times it).
    const bool dense_mlp = std::string(layer) == "gate_up_proj" || std::string(layer) == "act_fn" ||
                           std::string(layer) == "down_proj";
    if (dense_mlp && model.DenseLayers() == 0) continue;
    if (!tables.count(layer)) {
      const bool per_sequence = std::string(layer) == "lm_head" || std::string(layer) == "sampler";
      throw InputError(per_sequence ? csvs.per_seq.origin : csvs.dense.origin, 0, "layer",
                       std::string("no rows for ") + layer);
    }
  }
  return tables;
}

// Notes the qk_norm table it leaves out; refuses any other layer not of a
// dense Llama-style model.
void CheckLayerNames(const LayerTables& tables, const std::string& dense_path, ImportReport& report) {
  const std::set<std::string> known = {"embedding", "layernorm", "qkv_proj", "rotary_emb", "o_proj",
                                       "gate_up_proj", "act_fn", "down_proj", "final_layernorm",
                                       "lm_head", "sampler"};
  for (const auto& [layer, points] : tables) {
    if (layer == "qk_norm") {
      // Qwen3's per-head q/k RMSNorms: efimsim's step graph has no such
      // operator (models/README.md, Specs), so the table is left out, said.
      report.notes.push_back("qk_norm (" + std::to_string(points.size()) +
                             " points): not imported, the step model does not price Qwen3's q/k norms");
      continue;
    }
    if (!known.count(layer)) {
      throw InputError(dense_path, 0, "layer",
                       "'" + layer + "' is not a dense layer of a Llama-style model (MoE layers are "
                       "not imported)");
    }
  }
}

// The profile's names and provenance, and its attention tables' shapes.
KernelProfile NewLlmServingSimProfile(const LlmServingSimMeta& meta, const ModelSpec& model,
                                      const GpuSpec& gpu, const ImportSettings& settings) {
  KernelProfile profile;
  profile.gpu = gpu.name;
  profile.model = model.name;
  profile.command = settings.command;
  profile.gemm_kernel = "vLLM " + meta.vllm_version + " QKVParallelLinear/RowParallelLinear/MergedColumnParallelLinear (bf16), as LLMServingSim's profiler hooked them";
  profile.prefill_attention_kernel = "vLLM " + meta.vllm_version + " attention layer (its default backend, KV-cache write included), pure-prefill rows of attention.csv";
  profile.decode_attention_kernel = "vLLM " + meta.vllm_version + " attention layer (its default backend, KV-cache write included), pure-decode rows of attention.csv";
  profile.elementwise_kernel = "vLLM " + meta.vllm_version + " RMSNorm, rotary embedding, SiluAndMul custom ops, eager";
  profile.provenance.gpu_name = meta.gpu;
  profile.provenance.driver_version = "not recorded by the source";
  profile.provenance.cuda_runtime_version = meta.cuda_version.empty() ? "not recorded by the source" : meta.cuda_version;
  profile.provenance.git_commit = "n/a: measured by LLMServingSim's profiler (vLLM " + meta.vllm_version + "), not efimsim's harness";
  profile.provenance.date_utc = settings.measured_on.empty() ? meta.profiled_at : settings.measured_on;
  SetAttentionShapes(profile, model);
  if (meta.block_size > 0) {
    for (AttentionTable* t : {&profile.prefill_attention, &profile.decode_attention}) t->block_tokens = meta.block_size;
  }
  return profile;
}

// The GEMM tables (lm_head from per_sequence.csv), their held-out study and
// the interpolation it chooses.
void AddGemmTables(const LayerTables& tables, const ModelSpec& model, const ImportSettings& settings,
                   KernelProfile& profile, ImportReport& report) {
  const ShardShapes full = ShardModel(model, 1);
  const std::vector<std::pair<GemmId, const char*>> gemms = {
      {GemmId::kQkvProj, "qkv_proj"}, {GemmId::kOProj, "o_proj"}, {GemmId::kGateUpProj, "gate_up_proj"},
      {GemmId::kDownProj, "down_proj"}, {GemmId::kLmHead, "lm_head"}};
  std::vector<double> linear, loglog;
  for (const auto& [id, layer] : gemms) {
    if (!HasGemm(full, id)) continue;  // an all-MoE model has no dense MLP GEMMs
    GemmTable table;
    table.name = GemmName(id);
    const GemmShape shape = GemmShapeOf(full, id);
    table.n = shape.n;
    table.k = shape.k;
    std::map<int64_t, std::vector<std::pair<int64_t, double>>> curve;
    for (const auto& [m, us] : tables.at(layer)) {
      table.points.push_back({m, us});
      curve[0].emplace_back(m, us);
    }
    HoldOutCurves(curve, 0.0, linear, loglog);
    profile.gemm.push_back(std::move(table));
  }
  report.interpolation.push_back(Summarize("gemm", linear, loglog, {}));
  report.chosen = Choose(settings, linear, loglog);
  profile.interpolation = report.chosen;
}

void AddElementwiseTables(const LayerTables& tables, const ModelSpec& model, KernelProfile& profile) {
  const bool gated = model.mlp == MlpKind::kGated;
  const std::vector<std::pair<ElementwiseId, const char*>> measured = {
      {ElementwiseId::kRmsnorm, "layernorm"}, {ElementwiseId::kRope, "rotary_emb"},
      {ElementwiseId::kActivation, "act_fn"}, {ElementwiseId::kSampling, "sampler"}};
  for (const auto& [id, layer] : measured) {
    if (!tables.count(layer)) continue;  // act_fn: none in an all-MoE model
    ElementwiseTable table;
    table.name = ElementwiseName(id, gated);
    for (const auto& [tokens, us] : tables.at(layer)) table.points.push_back({tokens, us});
    profile.elementwise.push_back(std::move(table));
  }
  // vLLM fuses the residual add into the next RMSNorm (fused_add_rms_norm)
  // and writes the KV cache inside its attention layer: the source times
  // them as part of `layernorm` and the attention table. Their tables say so
  // and cost nothing more (one tiny value, flagged as modelled).
  const std::vector<std::pair<ElementwiseId, const char*>> inside = {
      {ElementwiseId::kResidualAdd, "modelled: fused into vLLM's RMSNorm (fused_add_rms_norm), timed with layernorm; priced at 0.001 us"},
      {ElementwiseId::kKvCacheWrite, "modelled: inside vLLM's attention layer (reshape_and_cache), timed with attention; priced at 0.001 us"}};
  for (const auto& [id, how] : inside) {
    ElementwiseTable table;
    table.name = ElementwiseName(id, gated);
    table.source = how;
    table.points = {{1, 0.001}, {16384, 0.001}};
    profile.elementwise.push_back(std::move(table));
  }
}

// attention.csv: pure prefill (n_decode 0) and pure decode (prefill_chunk
// 0) rows; mixed rows (one chunk + n decodes in one kernel) have no place
// in the format (efimsim prices a mixed step as its prefill chunks plus
// its decode batch).
void AddAttentionTables(const LlmServingSimCsv& attention, KernelProfile& profile, ImportReport& report) {
  const std::string& attn_path = attention.origin;
  std::map<std::pair<int64_t, int64_t>, double> prefill, decode;
  int64_t mixed = 0;
  for (const auto& row : attention.rows) {
    const auto chunk = static_cast<int64_t>(row.values[0]);
    const auto kv_prefill = static_cast<int64_t>(row.values[1]);
    const auto n_decode = static_cast<int64_t>(row.values[2]);
    const auto kv_decode = static_cast<int64_t>(row.values[3]);
    const double us = row.values[4];
    if (chunk == 0 && n_decode == 0) throw InputError(attn_path, row.line, "n_decode", "a row with no prefill and no decode");
    if (chunk > 0 && n_decode > 0) {
      ++mixed;
      continue;
    }
    auto& map = chunk > 0 ? prefill : decode;
    const std::pair<int64_t, int64_t> key = chunk > 0 ? std::pair{chunk, kv_prefill} : std::pair{n_decode, kv_decode};
    if (!map.emplace(key, us).second) {
      throw InputError(attn_path, row.line, "time_us", "a second row for the same shape");
    }
  }
  if (prefill.empty() || decode.empty()) throw InputError(attn_path, 0, "", "no pure prefill or no pure decode rows");
  std::vector<double> a_linear, a_loglog;
  for (const auto* map : {&prefill, &decode}) {
    std::map<int64_t, std::vector<std::pair<int64_t, double>>> curves;
    for (const auto& [key, us] : *map) curves[key.first].emplace_back(key.second, us);
    HoldOutCurves(curves, 1.0, a_linear, a_loglog);
  }
  report.interpolation.push_back(Summarize("attention", a_linear, a_loglog, {}));
  for (const auto& [key, us] : prefill) profile.prefill_attention.points.push_back({key.first, key.second, us});
  for (const auto& [key, us] : decode) profile.decode_attention.points.push_back({key.first, key.second, us});
  report.notes.push_back("attention: " + std::to_string(prefill.size()) + " prefill and " +
                         std::to_string(decode.size()) + " decode points; " + std::to_string(mixed) +
                         " mixed rows (one chunk + n decodes) not imported");
}

ProfileSource DescribeSource(const LlmServingSimMeta& meta, const BundleCsvs& csvs) {
  ProfileSource source;
  source.kind = "llmservingsim";
  source.stack = "vLLM " + meta.vllm_version + " (CUDA " + meta.cuda_version + ") on " + meta.gpu +
                 ", bf16, TP=1: LLMServingSim's profiler (casys-kaist/LLMServingSim profiler/) drives "
                 "a one-layer vLLM engine (" + std::string(meta.enforce_eager ? "enforce_eager" : "CUDA graphs") +
                 ", dummy weights) with synthetic batches and records each layer's CUDA kernel time "
                 "from vLLM's layerwise profile, averaged over " +
                 std::to_string(meta.measurement_iterations) + " timed forwards";
  source.method =
      "tp1 only; microseconds as given; dense.csv qkv_proj, o_proj, gate_up_proj, down_proj as the GEMMs "
      "(key: tokens), per_sequence.csv lm_head as the lm_head GEMM and sampler as sampling (key: "
      "sequences); layernorm as rmsnorm (also the final norm), rotary_emb as rope, act_fn as "
      "silu_and_mul; residual_add and kv_cache_write modelled as included (fused into RMSNorm; inside "
      "the attention layer); attention.csv pure-prefill rows (prefill_chunk, kv_prefill) and "
      "pure-decode rows (n_decode, kv_decode) as the attention tables, the kv columns as tokens "
      "already cached; mixed rows and skew*.csv not imported; embedding (about 3-10 us a step) not "
      "priced";
  source.files.push_back(ProfileSourceFile{meta.origin, meta.sha256});
  source.files.push_back(ProfileSourceFile{csvs.dense.origin, csvs.dense.sha256});
  source.files.push_back(ProfileSourceFile{csvs.per_seq.origin, csvs.per_seq.sha256});
  source.files.push_back(ProfileSourceFile{csvs.attention.origin, csvs.attention.sha256});
  return source;
}

}  // namespace

KernelProfile ImportLlmServingSimProfile(const std::string& dir, const ModelSpec& model,
                                         const GpuSpec& gpu, const ImportSettings& settings,
                                         ImportReport& report) {
  const LlmServingSimMeta meta = LoadLlmServingSimMeta(dir);
  CheckGpu(meta, gpu);
  CheckProfiledShapes(meta, model);
  const BundleCsvs csvs = ReadBundleCsvs(dir);
  const LayerTables tables = ReadLayerTables(csvs, model);
  CheckLayerNames(tables, csvs.dense.origin, report);
  KernelProfile profile = NewLlmServingSimProfile(meta, model, gpu, settings);
  AddGemmTables(tables, model, settings, profile, report);
  AddElementwiseTables(tables, model, profile);
  AddAttentionTables(csvs.attention, profile, report);
  ProfileSource source = DescribeSource(meta, csvs);
  AddMoeTable(dir, model, meta, profile, source, report);
  report.notes.push_back("dense: " + std::to_string(tables.at("qkv_proj").size()) + " token counts (" +
                         std::to_string(tables.at("qkv_proj").begin()->first) + ".." +
                         std::to_string(tables.at("qkv_proj").rbegin()->first) + "); lm_head and sampler: " +
                         std::to_string(tables.at("lm_head").size()) + " sequence counts");
  Finish(profile, std::move(source), std::nullopt, model, report);
  return profile;
}

}  // namespace efimsim
