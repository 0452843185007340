// Reader of Hugging Face config.json files (hf_config.h).
//
// Read (under "text_config" for Llama4ForConditionalGeneration, else at the
// top; torch_dtype/dtype, tie_word_embeddings and bos_token_id also at the
// top): hidden_size, num_hidden_layers, num_attention_heads,
// num_key_value_heads (default: the heads), head_dim (default hidden_size /
// heads), intermediate_size (Llama-4: intermediate_size_mlp for dense
// layers, intermediate_size per expert), vocab_size, tie_word_embeddings
// (default: the transformers config class's, true for StarCoder2 only),
// hidden_act, torch_dtype (or dtype), max_position_embeddings, bos_token_id;
// the MoE fields of Mixtral (num_local_experts, num_experts_per_tok),
// Qwen3-MoE (num_experts, num_experts_per_tok, moe_intermediate_size,
// decoder_sparse_step, mlp_only_layers) and Llama-4 (num_local_experts,
// num_experts_per_tok, interleave_moe_layer_step, moe_layers); the window
// fields below; _name_or_path (the name).
//
// DeepSeek-V2 (DeepseekV2ForCausalLM): multi-head latent attention
// (kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim; head_dim
// becomes nope + rope) and its MoE (n_routed_experts, num_experts_per_tok,
// moe_intermediate_size, n_shared_experts x moe_intermediate_size as one
// shared expert, first_k_dense_replace leading dense layers, moe_layer_freq
// 1); topk_method, n_group, topk_group, routed_scaling_factor and
// scoring_func change no shape and are ignored.
//
// Refused, naming the field (efimsim would price another model): a
// compressed query (q_lora_rank, DeepSeek-V2/V3's full models), MLA fields
// in other architectures, moe_layer_freq other than 1; a sliding window
// shorter than max_position_embeddings (sliding_window unless
// use_sliding_window is false, layer_types with "sliding_attention");
// quantization_config with a quant_method other than fp8; MoE layer patterns
// a spec cannot say (mlp_only_layers not a leading run, moe_layers not every
// interleave_moe_layer_step-th layer); shared-expert and MTP fields of other
// architectures (n_shared_experts, shared_expert_intermediate_size,
// first_k_dense_replace, num_nextn_predict_layers; kv_lora_rank outside
// DeepSeek-V2).
//
// Ignored (no effect on the shapes efimsim prices, or under 0.1% of the
// weights): rope_theta, rope_scaling, rope_parameters, partial_rotary_factor,
// rms_norm_eps, norm_epsilon, attention_bias, mlp_bias, use_bias (biases are
// not counted), attention_dropout, residual_dropout, embedding_dropout,
// initializer_range, use_cache, eos_token_id, pad_token_id, model_type,
// transformers_version, max_window_layers, norm_topk_prob,
// router_aux_loss_coef, router_jitter_noise, output_router_logits,
// use_qk_norm, no_rope_layers, attn_temperature_tuning, floor_scale,
// attn_scale, and every other key. Noted in the spec's source, not refused:
// Llama-4's attention_chunk_size (chunked attention priced as full) and
// vision_config (the vision encoder is neither counted nor priced), an fp8
// quantization_config, a float32 torch_dtype.
#include <filesystem>
#include <optional>

#include <nlohmann/json.hpp>

#include "models/formats/hf_config.h"
#include "models/formats/strict_json_io.h"
#include "sim/base/errors.h"

namespace efimsim {
namespace {

using nlohmann::json;

enum class Family : uint8_t {
  kLlama, kMistral, kMixtral, kQwen2, kQwen3, kQwen3Moe, kLlama4, kStarcoder2, kDeepseekV2
};

struct Architecture {
  const char* name;  // as in "architectures"
  Family family;
  bool text_config;         // shapes nested under "text_config" (Llama-4's multimodal config)
  bool sliding_by_default;  // sliding_window applies unless use_sliding_window is false
  bool tied_by_default;     // tie_word_embeddings when absent
  const char* activation;   // hidden_act when absent
};

constexpr Architecture kArchitectures[] = {
    {"LlamaForCausalLM", Family::kLlama, false, true, false, "silu"},
    {"MistralForCausalLM", Family::kMistral, false, true, false, "silu"},
    {"MixtralForCausalLM", Family::kMixtral, false, true, false, "silu"},
    {"Qwen2ForCausalLM", Family::kQwen2, false, false, false, "silu"},
    {"Qwen3ForCausalLM", Family::kQwen3, false, false, false, "silu"},
    {"Qwen3MoeForCausalLM", Family::kQwen3Moe, false, false, false, "silu"},
    {"Llama4ForConditionalGeneration", Family::kLlama4, true, true, false, "silu"},
    {"Llama4ForCausalLM", Family::kLlama4, false, true, false, "silu"},
    {"Starcoder2ForCausalLM", Family::kStarcoder2, false, true, true, "gelu_pytorch_tanh"},
    {"DeepseekV2ForCausalLM", Family::kDeepseekV2, false, false, false, "silu"},
};

// Keys of shapes a ModelSpec has no place for, refused wherever they appear.
// `deepseek`: DeepSeek-V2 reads it (the others refuse it).
constexpr struct {
  const char* key;
  const char* why;
  bool deepseek;
} kUnmodelled[] = {
    {"kv_lora_rank", "multi-head latent attention is read only from DeepseekV2ForCausalLM configs", true},
    {"q_lora_rank", "MLA with a compressed query (q_lora_rank, DeepSeek-V2/V3's full models) is not "
                    "modelled: only DeepSeek-V2-Lite's single q_proj (q_lora_rank null) is", false},
    {"n_shared_experts", "shared experts are read only from Llama-4 and DeepSeek-V2 configs", true},
    {"shared_expert_intermediate_size", "shared experts are read only from Llama-4 and DeepSeek-V2 configs", false},
    {"first_k_dense_replace", "leading dense layers are read only from Qwen3-MoE's mlp_only_layers and "
                              "DeepSeek-V2's first_k_dense_replace", true},
    {"num_nextn_predict_layers", "multi-token-prediction layers are not modelled", false},
};

// True when `key` is present and not null (transformers writes unset options as null).
bool Given(StrictObject& object, const std::string& key) {
  return object.Has(key) && !object.Field(key).is_null();
}

void RefuseUnmodelled(StrictObject& object, bool deepseek) {
  for (const auto& field : kUnmodelled) {
    if (deepseek && field.deepseek) continue;
    if (Given(object, field.key)) throw InputError(object.origin(), 0, object.Path(field.key), field.why);
  }
}

std::string SupportedList() {
  std::string text;
  for (const Architecture& arch : kArchitectures) text += (text.empty() ? "" : ", ") + std::string(arch.name);
  return text;
}

const Architecture& FindArchitecture(StrictObject& root) {
  const std::string& origin = root.origin();
  if (!root.Has("architectures")) {
    throw InputError(origin, 0, "architectures", "missing (supported: " + SupportedList() + ")");
  }
  const json& list = root.Array("architectures");
  if (list.size() != 1 || !list[0].is_string()) {
    throw InputError(origin, 0, "architectures", "expected a list of one architecture name");
  }
  const std::string name = list[0].get<std::string>();
  for (const Architecture& arch : kArchitectures) {
    if (name == arch.name) return arch;
  }
  throw InputError(origin, 0, "architectures",
                   "unsupported architecture \"" + name + "\" (supported: " + SupportedList() + ")");
}

// Attention and dense-MLP shapes, context and activation into `spec`.
void ReadShapes(StrictObject& text, const Architecture& arch, ModelSpec& spec) {
  const std::string& origin = text.origin();
  spec.layers = text.Int("num_hidden_layers", 1);
  spec.hidden_size = text.Int("hidden_size", 1);
  spec.q_heads = text.Int("num_attention_heads", 1);
  spec.kv_heads = Given(text, "num_key_value_heads") ? text.Int("num_key_value_heads", 1) : spec.q_heads;
  if (spec.q_heads % spec.kv_heads != 0) {
    throw InputError(origin, 0, text.Path("num_key_value_heads"), "must divide num_attention_heads");
  }
  if (arch.family == Family::kDeepseekV2) {
    spec.head_dim = text.Int("qk_nope_head_dim", 1) + text.Int("qk_rope_head_dim", 1);  // the query-key width
  } else if (Given(text, "head_dim")) {
    spec.head_dim = text.Int("head_dim", 1);
  } else if (spec.hidden_size % spec.q_heads == 0) {
    spec.head_dim = spec.hidden_size / spec.q_heads;
  } else {
    throw InputError(origin, 0, text.Path("head_dim"),
                     "missing, and hidden_size is not a multiple of num_attention_heads");
  }
  // Llama-4's intermediate_size is an expert's; its dense layers' is intermediate_size_mlp.
  spec.ffn_size = text.Int(arch.family == Family::kLlama4 ? "intermediate_size_mlp" : "intermediate_size", 1);
  spec.vocab_size = text.Int("vocab_size", 2);
  spec.max_context_tokens = text.Int("max_position_embeddings", 1);
  spec.mlp = arch.family == Family::kStarcoder2 ? MlpKind::kPlain : MlpKind::kGated;
  spec.activation = Given(text, "hidden_act") ? text.String("hidden_act") : arch.activation;
  // The activations the step graph prices (spec_io.cc accepts the same).
  if (spec.activation != "silu" && spec.activation != "gelu" &&
      spec.activation != "gelu_pytorch_tanh" && spec.activation != "gelu_new") {
    throw InputError(origin, 0, text.Path("hidden_act"),
                     "\"" + spec.activation + "\" is not modelled (silu, gelu, gelu_pytorch_tanh, gelu_new)");
  }
}

// The object holding `key`: `text` (text_config) first, then the top.
StrictObject* Holder(StrictObject& text, StrictObject& root, const std::string& key) {
  if (Given(text, key)) return &text;
  if (Given(root, key)) return &root;
  return nullptr;
}

// torch_dtype (or transformers' newer "dtype"): the spec's dtype name.
std::string ReadDtype(StrictObject& text, StrictObject& root, ModelSpec& spec,
                      std::vector<std::string>& notes) {
  StrictObject* holder = Holder(text, root, "torch_dtype");
  std::string key = "torch_dtype";
  if (holder == nullptr && (holder = Holder(text, root, "dtype")) != nullptr) key = "dtype";
  if (holder == nullptr) {
    throw InputError(root.origin(), 0, text.Path("torch_dtype"),
                     "missing (the checkpoint's dtype: bfloat16, float16 or float32)");
  }
  const std::string dtype = holder->String(key);
  if (dtype == "bfloat16" || dtype == "float16") {
    spec.dtype_bytes = 2;
  } else if (dtype == "float32") {
    spec.dtype_bytes = 4;
    notes.push_back("float32 weights as " + key + " says (vLLM's --dtype auto serves them in 16 bits: "
                    "set \"dtype\" to \"bfloat16\" to price that)");
  } else {
    throw InputError(root.origin(), 0, holder->Path(key), "expected bfloat16, float16 or float32, got \"" + dtype + "\"");
  }
  return dtype;
}

bool ReadTied(StrictObject& text, StrictObject& root, const Architecture& arch) {
  StrictObject* holder = Holder(text, root, "tie_word_embeddings");
  return holder != nullptr ? holder->Bool("tie_word_embeddings") : arch.tied_by_default;
}

// efimsim prices attention over the whole context and a KV cache of every
// token: a window shorter than the context would be priced as another model.
void CheckFullAttention(StrictObject& text, const Architecture& arch, int64_t max_context,
                        std::vector<std::string>& notes) {
  const std::string& origin = text.origin();
  const int64_t window = Given(text, "sliding_window") ? text.Int("sliding_window", 1) : 0;
  const bool short_window = window > 0 && window < max_context;
  const bool enabled = Given(text, "use_sliding_window") ? text.Bool("use_sliding_window") : arch.sliding_by_default;
  if (short_window && enabled) {
    throw InputError(origin, 0, text.Path("sliding_window"),
                     std::to_string(window) + "-token sliding-window attention is not modelled (efimsim "
                     "prices full attention over the whole context); it applies unless it is null, "
                     "use_sliding_window is false, or it is >= max_position_embeddings (" +
                         std::to_string(max_context) + ")");
  }
  if (arch.family == Family::kLlama4 && Given(text, "attention_chunk_size")) {
    notes.push_back("Llama-4's chunked attention (attention_chunk_size " +
                    std::to_string(text.Int("attention_chunk_size", 1)) +
                    " on its RoPE layers, 3 of 4) is not modelled: attention is priced over the whole "
                    "context, pessimistic past the chunk");
  }
  if (!Given(text, "layer_types")) return;
  const json& types = text.Array("layer_types");
  for (size_t i = 0; i < types.size(); ++i) {
    const std::string type = types[i].is_string() ? types[i].get<std::string>() : "";
    if (type == "full_attention" || (type == "sliding_attention" && !short_window)) continue;
    if (type == "chunked_attention" && arch.family == Family::kLlama4) continue;  // noted above
    throw InputError(origin, 0, text.Path("layer_types"),
                     "layer " + std::to_string(i) + " is " + types[i].dump() +
                         ": only full attention is modelled" +
                         (type == "sliding_attention" ? " (sliding_window " + std::to_string(window) + ")" : ""));
  }
}

void CheckQuantization(StrictObject& root, std::vector<std::string>& notes) {
  if (!Given(root, "quantization_config")) return;
  StrictObject quantization(root.Field("quantization_config"), root.origin(), "quantization_config");
  const std::string method = quantization.String("quant_method");
  if (method != "fp8") {
    throw InputError(root.origin(), 0, quantization.Path("quant_method"),
                     "\"" + method + "\" checkpoints are not modelled (their weights are not torch_dtype's "
                     "bytes); fp8 is read, as the 16-bit shapes a run may serve in FP8");
  }
  notes.push_back("an FP8 checkpoint (quantization_config fp8): the spec holds its 16-bit shapes and "
                  "bytes; a run serves FP8 only when told to");
}


// Routed experts (`experts_key`) and their top-k (num_experts_per_tok).
void ReadExperts(StrictObject& text, const char* experts_key, MoeSpec& moe) {
  moe.experts = text.Int(experts_key, 1);
  moe.experts_per_token = text.Int("num_experts_per_tok", 1);
  if (moe.experts_per_token > moe.experts) {
    throw InputError(text.origin(), 0, text.Path("num_experts_per_tok"), std::string("must be <= ") + experts_key);
  }
}

std::string Str(int64_t value) { return std::to_string(value); }

// Mixtral: every layer's MLP is num_local_experts experts of intermediate_size.
void ReadMixtralMoe(StrictObject& text, ModelSpecFile& file) {
  MoeSpec& moe = file.spec.moe;
  ReadExperts(text, "num_local_experts", moe);
  moe.expert_ffn_size = file.spec.ffn_size;
  file.moe_note = "Every layer's MLP: num_local_experts " + Str(moe.experts) + " experts of intermediate_size " +
                  Str(moe.expert_ffn_size) + ", top num_experts_per_tok " + Str(moe.experts_per_token) +
                  "; ffn_size repeats intermediate_size (no dense layer).";
}

// Qwen3-MoE: layer i is MoE unless listed in mlp_only_layers, when
// (i + 1) % decoder_sparse_step == 0; dense layers use intermediate_size.
void ReadQwen3Moe(StrictObject& text, ModelSpecFile& file) {
  MoeSpec& moe = file.spec.moe;
  ReadExperts(text, "num_experts", moe);
  moe.expert_ffn_size = text.Int("moe_intermediate_size", 1);
  moe.layer_step = Given(text, "decoder_sparse_step") ? text.Int("decoder_sparse_step", 1) : 1;
  if (Given(text, "mlp_only_layers")) {
    const json& dense = text.Array("mlp_only_layers");
    for (size_t i = 0; i < dense.size(); ++i) {
      if (!dense[i].is_number_integer() || dense[i].get<int64_t>() != static_cast<int64_t>(i)) {
        throw InputError(text.origin(), 0, text.Path("mlp_only_layers"),
                         "only a leading run of dense layers (0, 1, ..., k-1) is modelled");
      }
    }
    moe.first_dense_layers = static_cast<int64_t>(dense.size());
  }
  file.moe_note = "num_experts " + Str(moe.experts) + " experts of moe_intermediate_size " +
                  Str(moe.expert_ffn_size) + ", top num_experts_per_tok " + Str(moe.experts_per_token) +
                  ", decoder_sparse_step " + Str(moe.layer_step) + ", " + Str(moe.first_dense_layers) +
                  " leading mlp_only_layers; dense layers use intermediate_size (ffn_size).";
}

// Llama-4: every interleave_moe_layer_step-th layer is MoE, its routed
// experts and one shared expert of intermediate_size; dense layers use
// intermediate_size_mlp (ffn_size). An explicit moe_layers must agree.
void ReadLlama4Moe(StrictObject& text, ModelSpecFile& file) {
  MoeSpec& moe = file.spec.moe;
  ReadExperts(text, "num_local_experts", moe);
  moe.expert_ffn_size = text.Int("intermediate_size", 1);
  moe.shared_expert_ffn_size = moe.expert_ffn_size;
  moe.layer_step = Given(text, "interleave_moe_layer_step") ? text.Int("interleave_moe_layer_step", 1) : 1;
  if (Given(text, "moe_layers")) {
    const json& listed = text.Array("moe_layers");
    size_t index = 0;
    bool same = true;
    for (int64_t layer = moe.layer_step - 1; layer < file.spec.layers; layer += moe.layer_step, ++index) {
      same = same && index < listed.size() && listed[index].is_number_integer() &&
             listed[index].get<int64_t>() == layer;
    }
    if (!same || index != listed.size()) {
      throw InputError(text.origin(), 0, text.Path("moe_layers"),
                       "only every interleave_moe_layer_step-th layer (step - 1, 2 step - 1, ...) is modelled as MoE");
    }
  }
  file.moe_note = "num_local_experts " + Str(moe.experts) + " routed experts and one shared expert of "
                  "intermediate_size " + Str(moe.expert_ffn_size) + ", top num_experts_per_tok " +
                  Str(moe.experts_per_token) + ", interleave_moe_layer_step " + Str(moe.layer_step) +
                  "; dense layers use intermediate_size_mlp (ffn_size).";
}

// DeepSeek-V2: layers first_k_dense_replace.. are MoE (moe_layer_freq 1),
// n_routed_experts of moe_intermediate_size and n_shared_experts more of it
// always on (one shared expert of their summed size); dense layers use
// intermediate_size.
void ReadDeepseekMoe(StrictObject& text, ModelSpecFile& file) {
  MoeSpec& moe = file.spec.moe;
  ReadExperts(text, "n_routed_experts", moe);
  moe.expert_ffn_size = text.Int("moe_intermediate_size", 1);
  const int64_t shared = Given(text, "n_shared_experts") ? text.Int("n_shared_experts", 0) : 0;
  moe.shared_expert_ffn_size = shared * moe.expert_ffn_size;
  moe.first_dense_layers = Given(text, "first_k_dense_replace") ? text.Int("first_k_dense_replace", 0) : 0;
  if (Given(text, "moe_layer_freq") && text.Int("moe_layer_freq", 1) != 1) {
    throw InputError(text.origin(), 0, text.Path("moe_layer_freq"),
                     "only 1 (every layer after first_k_dense_replace is MoE) is modelled");
  }
  file.moe_note = "n_routed_experts " + Str(moe.experts) + " experts of moe_intermediate_size " +
                  Str(moe.expert_ffn_size) + ", top num_experts_per_tok " + Str(moe.experts_per_token) + ", " +
                  Str(shared) + " shared experts (n_shared_experts) priced as one of " +
                  Str(moe.shared_expert_ffn_size) + ", " + Str(moe.first_dense_layers) +
                  " leading dense layers (first_k_dense_replace) of intermediate_size (ffn_size).";
}

// DeepSeek-V2's multi-head latent attention (model_spec.h MlaSpec).
void ReadMla(StrictObject& text, ModelSpecFile& file) {
  ModelSpec& spec = file.spec;
  spec.mla.kv_lora_rank = text.Int("kv_lora_rank", 1);
  spec.mla.qk_nope_head_dim = text.Int("qk_nope_head_dim", 1);
  spec.mla.qk_rope_head_dim = text.Int("qk_rope_head_dim", 1);
  spec.mla.v_head_dim = text.Int("v_head_dim", 1);
  if (spec.kv_heads != spec.q_heads) {
    throw InputError(text.origin(), 0, text.Path("num_key_value_heads"),
                     "must equal num_attention_heads under MLA (every head reads the shared latent)");
  }
  file.mla_note = "kv_lora_rank " + Str(spec.mla.kv_lora_rank) + ", qk_nope_head_dim " +
                  Str(spec.mla.qk_nope_head_dim) + ", qk_rope_head_dim " + Str(spec.mla.qk_rope_head_dim) +
                  ", v_head_dim " + Str(spec.mla.v_head_dim) + ", q_lora_rank null (one q_proj); head_dim is "
                  "the query-key width " + Str(spec.head_dim) + "; the KV cache holds " +
                  Str(spec.mla.LatentWidth()) + " values per token and layer.";
}

void ReadMoe(StrictObject& text, const Architecture& arch, ModelSpecFile& file) {
  std::string step_key;
  if (arch.family == Family::kMixtral) {
    ReadMixtralMoe(text, file);
    step_key = "num_local_experts";
  } else if (arch.family == Family::kQwen3Moe) {
    ReadQwen3Moe(text, file);
    step_key = "mlp_only_layers";
  } else if (arch.family == Family::kLlama4) {
    ReadLlama4Moe(text, file);
    step_key = "interleave_moe_layer_step";
  } else if (arch.family == Family::kDeepseekV2) {
    ReadDeepseekMoe(text, file);
    step_key = "first_k_dense_replace";
  } else {
    return;
  }
  if (file.spec.MoeLayers() == 0) throw InputError(text.origin(), 0, text.Path(step_key), "leaves no MoE layer");
}

// Qwen2.5's tokenizer, shared by Qwen3 and Qwen3-MoE (models/specs/qwen3-8b.json).
void SetQwenTokens(ModelSpecFile& file) {
  // bos, fim_prefix, fim_suffix, fim_middle, text_first, text_last
  file.spec.tokens = SpecialTokens{-1, 151659, 151661, 151660, 256, 151642};
  file.tokens_note = "Qwen2.5's tokenizer (Qwen2.5, Qwen3, Qwen3-MoE; Qwen2 proper has no FIM tokens, there "
                     "these are stand-ins): no BOS is prepended (bos -1); <|fim_prefix|> 151659, "
                     "<|fim_middle|> 151660, <|fim_suffix|> 151661; regular tokens end at 151642.";
}

// StarCoder2's tokenizer (models/specs/starcoder2-15b.json; vocabulary 49152).
void SetStarcoder2Tokens(ModelSpecFile& file) {
  file.spec.tokens = SpecialTokens{-1, 1, 3, 2, 256, 49151};
  file.tokens_note = "StarCoder2's tokenizer: no BOS is prepended (bos -1); <fim_prefix> 1, <fim_middle> 2, "
                     "<fim_suffix> 3; special tokens sit below 256.";
}

// No known tokenizer: BOS from bos_token_id (none when absent), three
// stand-in FIM ids at the top of the vocabulary, text ids from 256 below
// them and the BOS. Only their distinctness shapes cache behaviour.
void SetStandInTokens(StrictObject& text, StrictObject& root, ModelSpecFile& file) {
  ModelSpec& spec = file.spec;
  SpecialTokens& tokens = spec.tokens;
  tokens.bos = -1;
  if (StrictObject* holder = Holder(text, root, "bos_token_id")) {
    const int64_t id = holder->Int("bos_token_id", 0);
    if (id >= spec.vocab_size) throw InputError(root.origin(), 0, holder->Path("bos_token_id"), "must be < vocab_size");
    tokens.bos = static_cast<TokenId>(id);
  }
  std::vector<TokenId> top;  // the three highest ids but the BOS, highest first
  for (int64_t id = spec.vocab_size - 1; id >= 0 && top.size() < 3; --id) {
    if (id != tokens.bos) top.push_back(static_cast<TokenId>(id));
  }
  tokens.text_first = 256;
  tokens.text_last = top.size() == 3 ? top[2] - 1 : 0;
  if (tokens.bos >= tokens.text_first && tokens.bos <= tokens.text_last) tokens.text_last = tokens.bos - 1;
  if (tokens.text_last < tokens.text_first) {
    throw InputError(root.origin(), 0, text.Path("vocab_size"),
                     "too small for text ids from 256 below three FIM stand-in ids");
  }
  tokens.fim_middle = top[0];
  tokens.fim_suffix = top[1];
  tokens.fim_prefix = top[2];
  file.tokens_note = "config.json names no FIM sentinels: fim_prefix " + Str(tokens.fim_prefix) + ", fim_suffix " +
                     Str(tokens.fim_suffix) + " and fim_middle " + Str(tokens.fim_middle) +
                     " are stand-ins at the top of the vocabulary, not the tokenizer's ids (the simulated cache "
                     "depends only on their distinctness); " +
                     (tokens.bos < 0 ? std::string("no bos_token_id: no BOS") : "BOS is bos_token_id") + ".";
}

void SetTokens(StrictObject& text, StrictObject& root, const Architecture& arch, ModelSpecFile& file) {
  const bool qwen = arch.family == Family::kQwen2 || arch.family == Family::kQwen3 ||
                    arch.family == Family::kQwen3Moe;
  if (qwen && file.spec.vocab_size > 151661) {
    SetQwenTokens(file);
  } else if (arch.family == Family::kStarcoder2 && file.spec.vocab_size == 49152) {
    SetStarcoder2Tokens(file);
  } else {
    SetStandInTokens(text, root, file);
  }
}

// The last part of _name_or_path, else the folder holding the file.
std::string SpecName(StrictObject& root, const std::string& path) {
  if (Given(root, "_name_or_path")) {
    std::string name = root.String("_name_or_path");
    while (!name.empty() && name.back() == '/') name.pop_back();
    name = name.substr(name.find_last_of('/') + 1);  // npos + 1 == 0: the whole name
    if (!name.empty()) return name;
  }
  const std::string folder = std::filesystem::absolute(path).parent_path().filename().string();
  return folder.empty() ? "model" : folder;
}

// What the family's checkpoints have that the spec does not count.
void AddFamilyNotes(StrictObject& root, const Architecture& arch, std::vector<std::string>& notes) {
  if (arch.family == Family::kQwen2) notes.push_back("q, k and v projection biases are not counted");
  if (arch.family == Family::kQwen3 || arch.family == Family::kQwen3Moe) {
    notes.push_back("per-head q and k RMSNorms are not counted and priced as no extra kernel");
  }
  if (arch.family == Family::kStarcoder2) notes.push_back("linear-layer and LayerNorm biases are not counted");
  if (arch.family == Family::kLlama4 && Given(root, "vision_config")) {
    notes.push_back("the vision encoder (vision_config) is neither counted nor priced: text serving only");
  }
}

}  // namespace

ModelSpecFile ReadHfConfig(const std::string& json_text, const std::string& path) {
  const json config = ParseJson(json_text, path);
  StrictObject root(config, path, "");
  if (root.Has("schema_version")) {
    throw InputError(path, 0, "schema_version", "an efimsim model spec, not a Hugging Face config.json");
  }
  // First: a compressed query or MTP layers are refused by name, not as an
  // unknown architecture (DeepSeek-V3's).
  RefuseUnmodelled(root, /*deepseek=*/true);
  const Architecture& arch = FindArchitecture(root);
  std::optional<StrictObject> nested;
  if (arch.text_config) nested.emplace(root.Field("text_config"), path, "text_config");
  StrictObject& text = nested ? *nested : root;
  RefuseUnmodelled(text, arch.family == Family::kDeepseekV2);

  ModelSpecFile file;
  std::vector<std::string> notes;
  ReadShapes(text, arch, file.spec);
  file.spec.tied_embeddings = ReadTied(text, root, arch);
  file.dtype = ReadDtype(text, root, file.spec, notes);
  CheckFullAttention(text, arch, file.spec.max_context_tokens, notes);
  CheckQuantization(root, notes);
  ReadMoe(text, arch, file);
  if (arch.family == Family::kDeepseekV2) ReadMla(text, file);
  SetTokens(text, root, arch, file);
  AddFamilyNotes(root, arch, notes);
  file.spec.name = SpecName(root, path);
  file.spec.source = path + " (Hugging Face config.json, architecture " + arch.name + ")";
  for (size_t i = 0; i < notes.size(); ++i) file.spec.source += (i == 0 ? ". Notes: " : "; ") + notes[i];
  if (!notes.empty()) file.spec.source += ".";
  return file;
}

ModelSpecFile LoadHfConfig(const std::string& path) { return ReadHfConfig(ReadWholeFile(path), path); }

bool IsHfConfig(const std::string& json_text) {
  const json config = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  return config.is_object() && !config.contains("schema_version") &&
         (config.contains("architectures") || config.contains("model_type"));
}

std::vector<std::string> SupportedHfArchitectures() {
  std::vector<std::string> names;
  for (const Architecture& arch : kArchitectures) names.emplace_back(arch.name);
  return names;
}

}  // namespace efimsim
