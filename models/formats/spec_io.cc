// JSON readers for model and GPU specs (nlohmann/json stays in *_io.cc files).
#include <nlohmann/json.hpp>

#include "models/formats/embedded_files.h"
#include "models/formats/hf_config.h"
#include "models/formats/spec_catalog.h"
#include "models/formats/strict_json_io.h"
#include "sim/base/errors.h"

namespace efimsim {
namespace {

using nlohmann::json;

void CheckSchemaVersion(StrictObject& object) {
  const int64_t version = object.Int("schema_version", 1);
  if (version != 1) {
    throw InputError(object.origin(), 0, "schema_version",
                     "unsupported version " + std::to_string(version) + " (this build reads 1)");
  }
}

bool LooksLikePath(const std::string& name) {
  return name.find('/') != std::string::npos || name.ends_with(".json");
}

template <class Spec, class Parser>
Spec LoadSpec(const std::string& name_or_path, const std::vector<EmbeddedFile>& builtins,
              const std::string& kind, Parser parse) {
  if (LooksLikePath(name_or_path)) return parse(ReadWholeFile(name_or_path), name_or_path);
  std::string names;
  for (const EmbeddedFile& file : builtins) {
    if (file.name == name_or_path) {
      return parse(std::string(file.text), "built-in " + kind + " spec " + name_or_path);
    }
    names += (names.empty() ? "" : ", ") + std::string(file.name);
  }
  throw UsageError("unknown " + kind + " '" + name_or_path + "' (built-in: " + names +
                   "; or give a path to a JSON spec" +
                   (kind == "model" ? std::string(" or a Hugging Face config.json") : std::string()) + ")");
}

// The spec's fields before "tokens", read and checked in file order.
ModelSpec ReadModelShapes(StrictObject& object) {
  const std::string& origin = object.origin();
  ModelSpec spec;
  spec.name = object.String("name");
  spec.source = object.String("source");
  spec.layers = object.Int("layers", 1);
  spec.hidden_size = object.Int("hidden_size", 1);
  spec.q_heads = object.Int("q_heads", 1);
  spec.kv_heads = object.Int("kv_heads", 1);
  spec.head_dim = object.Int("head_dim", 1);
  spec.ffn_size = object.Int("ffn_size", 1);
  spec.vocab_size = object.Int("vocab_size", 2);
  spec.tied_embeddings = object.Bool("tied_embeddings");
  spec.activation = object.String("activation");
  // The activations the step graph prices (SiLU in gated MLPs, GELU in plain
  // ones); another name would be priced as one of them without a word.
  if (spec.activation != "silu" && spec.activation != "gelu" &&
      spec.activation != "gelu_pytorch_tanh" && spec.activation != "gelu_new") {
    throw InputError(origin, 0, "activation",
                     "expected silu, gelu, gelu_pytorch_tanh or gelu_new, got \"" +
                         spec.activation + "\"");
  }
  const std::string mlp = object.String("mlp");
  if (mlp == "gated") {
    spec.mlp = MlpKind::kGated;
  } else if (mlp == "plain") {
    spec.mlp = MlpKind::kPlain;
  } else {
    throw InputError(origin, 0, "mlp", "expected \"gated\" or \"plain\", got \"" + mlp + "\"");
  }
  const std::string dtype = object.String("dtype");
  if (dtype == "bfloat16" || dtype == "float16") {
    spec.dtype_bytes = 2;
  } else if (dtype == "float32") {
    spec.dtype_bytes = 4;
  } else {
    throw InputError(origin, 0, "dtype", "expected bfloat16, float16 or float32");
  }
  spec.max_context_tokens = object.Int("max_context_tokens", 1);
  if (spec.q_heads % spec.kv_heads != 0) {
    throw InputError(origin, 0, "q_heads", "must be a multiple of kv_heads");
  }
  return spec;
}

// The "tokens" object into spec.tokens, checked; needs spec.vocab_size.
void ReadSpecialTokens(StrictObject& object, ModelSpec& spec) {
  const std::string& origin = object.origin();
  StrictObject tokens(object.Field("tokens"), origin, "tokens");
  if (tokens.Has("note")) tokens.String("note");
  const int64_t vocab = spec.vocab_size;
  auto token_id = [&](const std::string& key) {
    const int64_t id = tokens.Int(key, 0);
    if (id >= vocab) throw InputError(origin, 0, tokens.Path(key), "must be < vocab_size");
    return static_cast<TokenId>(id);
  };
  // "bos": -1 means the model prepends no BOS (Qwen2.5-Coder, StarCoder2).
  if (tokens.Has("bos") && tokens.Field("bos").is_number_integer() &&
      tokens.Field("bos").get<int64_t>() == -1) {
    spec.tokens.bos = -1;
  } else {
    spec.tokens.bos = token_id("bos");
  }
  spec.tokens.fim_prefix = token_id("fim_prefix");
  spec.tokens.fim_suffix = token_id("fim_suffix");
  spec.tokens.fim_middle = token_id("fim_middle");
  spec.tokens.text_first = token_id("text_first");
  spec.tokens.text_last = token_id("text_last");
  if (spec.tokens.text_last < spec.tokens.text_first) {
    throw InputError(origin, 0, "tokens.text_last", "must be >= tokens.text_first");
  }
  for (const TokenId sentinel : {spec.tokens.bos, spec.tokens.fim_prefix, spec.tokens.fim_suffix,
                                 spec.tokens.fim_middle}) {
    if (sentinel >= 0 && sentinel >= spec.tokens.text_first && sentinel <= spec.tokens.text_last) {
      throw InputError(origin, 0, "tokens",
                       "special token " + std::to_string(sentinel) + " inside the text range");
    }
  }
  // FIM prompts are told apart only by their sentinels: two equal ones would
  // make PSM and SPM prompts the same tokens.
  const TokenId fim[] = {spec.tokens.fim_prefix, spec.tokens.fim_suffix, spec.tokens.fim_middle};
  if (fim[0] == fim[1] || fim[0] == fim[2] || fim[1] == fim[2] ||
      (spec.tokens.bos >= 0 &&
       (spec.tokens.bos == fim[0] || spec.tokens.bos == fim[1] || spec.tokens.bos == fim[2]))) {
    throw InputError(origin, 0, "tokens",
                     "bos, fim_prefix, fim_suffix and fim_middle must be distinct token ids");
  }
  tokens.RejectUnknownKeys();
}

// The optional "moe" object into spec.moe, checked against the shapes.
void ReadMoe(StrictObject& object, ModelSpec& spec) {
  if (!object.Has("moe")) return;
  const std::string& origin = object.origin();
  StrictObject moe(object.Field("moe"), origin, "moe");
  if (moe.Has("note")) moe.String("note");
  spec.moe.experts = moe.Int("experts", 1);
  spec.moe.experts_per_token = moe.Int("experts_per_token", 1);
  spec.moe.expert_ffn_size = moe.Int("expert_ffn_size", 1);
  spec.moe.shared_expert_ffn_size =
      moe.Has("shared_expert_ffn_size") ? moe.Int("shared_expert_ffn_size", 0) : 0;
  spec.moe.first_dense_layers = moe.Has("first_dense_layers") ? moe.Int("first_dense_layers", 0) : 0;
  spec.moe.layer_step = moe.Has("layer_step") ? moe.Int("layer_step", 1) : 1;
  if (spec.moe.experts_per_token > spec.moe.experts) {
    throw InputError(origin, 0, "moe.experts_per_token", "must be <= moe.experts");
  }
  if (spec.mlp != MlpKind::kGated) {
    throw InputError(origin, 0, "moe", "experts are modelled as gated MLPs; \"mlp\" must be \"gated\"");
  }
  if (spec.MoeLayers() == 0) {
    throw InputError(origin, 0, "moe.first_dense_layers", "leaves no MoE layer");
  }
  moe.RejectUnknownKeys();
}

// The optional "mla" object into spec.mla, checked against the shapes: the
// spec's kv_heads must equal q_heads and head_dim the query-key width.
void ReadMla(StrictObject& object, ModelSpec& spec) {
  if (!object.Has("mla")) return;
  const std::string& origin = object.origin();
  StrictObject mla(object.Field("mla"), origin, "mla");
  if (mla.Has("note")) mla.String("note");
  spec.mla.kv_lora_rank = mla.Int("kv_lora_rank", 1);
  spec.mla.qk_nope_head_dim = mla.Int("qk_nope_head_dim", 1);
  spec.mla.qk_rope_head_dim = mla.Int("qk_rope_head_dim", 1);
  spec.mla.v_head_dim = mla.Int("v_head_dim", 1);
  if (spec.kv_heads != spec.q_heads) {
    throw InputError(origin, 0, "kv_heads", "must equal q_heads under mla (every head reads the shared latent)");
  }
  if (spec.head_dim != spec.mla.QkHeadDim()) {
    throw InputError(origin, 0, "head_dim",
                     "must be mla.qk_nope_head_dim + mla.qk_rope_head_dim (" +
                         std::to_string(spec.mla.QkHeadDim()) + ") under mla");
  }
  mla.RejectUnknownKeys();
}

}  // namespace

ModelSpec ParseModelSpec(const std::string& json_text, const std::string& origin) {
  const json root = ParseJson(json_text, origin);
  StrictObject object(root, origin, "");
  CheckSchemaVersion(object);
  ModelSpec spec = ReadModelShapes(object);
  ReadSpecialTokens(object, spec);
  ReadMoe(object, spec);
  ReadMla(object, spec);
  object.RejectUnknownKeys();
  return spec;
}

GpuSpec ParseGpuSpec(const std::string& json_text, const std::string& origin) {
  const json root = ParseJson(json_text, origin);
  StrictObject object(root, origin, "");
  CheckSchemaVersion(object);
  GpuSpec gpu;
  gpu.name = object.String("name");
  gpu.description = object.String("description");
  gpu.memory_bytes = object.Int("memory_bytes", 1);
  object.String("memory_source");
  gpu.datasheet_bf16_tflops = object.Number("datasheet_bf16_dense_tflops", 1e-9);
  gpu.datasheet_hbm_tbps = object.Number("datasheet_hbm_tbps", 1e-9);
  // Optional: GPUs without FP8 tensor cores (Ampere) have none.
  if (object.Has("datasheet_fp8_dense_tflops")) {
    gpu.datasheet_fp8_tflops = object.Number("datasheet_fp8_dense_tflops", 1e-9);
  }
  object.String("datasheet_source");
  gpu.achievable_bf16_tflops = object.Number("achievable_bf16_tflops", 1e-9);
  gpu.achievable_hbm_tbps = object.Number("achievable_hbm_tbps", 1e-9);
  gpu.achievable_measured = object.Bool("achievable_measured");
  gpu.achievable_source = object.String("achievable_source");
  if (object.Has("host_link_gbps") || object.Has("host_link_source")) {
    gpu.host_link_gbps = object.Number("host_link_gbps", 1e-9);
    gpu.host_link_source = object.String("host_link_source");
  }
  // Optional as a group: a GPU without them cannot run tensor parallel.
  if (object.Has("interconnect_gbps") || object.Has("interconnect_latency_us") ||
      object.Has("interconnect_source")) {
    gpu.interconnect_gbps = object.Number("interconnect_gbps", 1e-9);
    gpu.interconnect_latency_us = object.Number("interconnect_latency_us", 0.0);
    gpu.interconnect_source = object.String("interconnect_source");
  }
  // Optional as a group: a GPU without them cannot serve an MoE group across nodes.
  if (object.Has("network_gbps") || object.Has("network_latency_us") || object.Has("network_source")) {
    gpu.network_gbps = object.Number("network_gbps", 1e-9);
    gpu.network_latency_us = object.Number("network_latency_us", 0.0);
    gpu.network_source = object.String("network_source");
  }
  if (object.Has("l2_cache_bytes") || object.Has("l2_cache_source")) {
    gpu.l2_cache_bytes = object.Int("l2_cache_bytes", 1);
    gpu.l2_cache_source = object.String("l2_cache_source");
  }
  object.RejectUnknownKeys();
  return gpu;
}

namespace {

// A spec file's text: efimsim's format, or a Hugging Face config.json read
// into the very spec `efimsim models import` writes for it (so both are
// checked alike and give the same figures).
ModelSpec ParseModelSpecOrHfConfig(const std::string& json_text, const std::string& origin) {
  if (IsHfConfig(json_text)) return ParseModelSpec(ModelSpecFileJson(ReadHfConfig(json_text, origin)), origin);
  return ParseModelSpec(json_text, origin);
}

}  // namespace

ModelSpec LoadModelSpec(const std::string& name_or_path) {
  return LoadSpec<ModelSpec>(name_or_path, EmbeddedModelSpecs(), "model", ParseModelSpecOrHfConfig);
}

GpuSpec LoadGpuSpec(const std::string& name_or_path) {
  return LoadSpec<GpuSpec>(name_or_path, EmbeddedGpuSpecs(), "gpu", ParseGpuSpec);
}

std::vector<std::string> BuiltinModelNames() { return EmbeddedNames(EmbeddedModelSpecs()); }
std::vector<std::string> BuiltinGpuNames() { return EmbeddedNames(EmbeddedGpuSpecs()); }

}  // namespace efimsim
