// Writer of model spec JSON files (model_spec_file.h).
#include <nlohmann/json.hpp>

#include "models/formats/model_spec_file.h"

namespace efimsim {
namespace {

using ordered = nlohmann::ordered_json;

ordered TokensJson(const ModelSpecFile& file) {
  const SpecialTokens& tokens = file.spec.tokens;
  ordered out = ordered::object();
  if (!file.tokens_note.empty()) out["note"] = file.tokens_note;
  out["bos"] = tokens.bos;
  out["fim_prefix"] = tokens.fim_prefix;
  out["fim_suffix"] = tokens.fim_suffix;
  out["fim_middle"] = tokens.fim_middle;
  out["text_first"] = tokens.text_first;
  out["text_last"] = tokens.text_last;
  return out;
}

ordered MoeJson(const ModelSpecFile& file) {
  const MoeSpec& moe = file.spec.moe;
  ordered out = ordered::object();
  if (!file.moe_note.empty()) out["note"] = file.moe_note;
  out["experts"] = moe.experts;
  out["experts_per_token"] = moe.experts_per_token;
  out["expert_ffn_size"] = moe.expert_ffn_size;
  if (moe.shared_expert_ffn_size != 0) out["shared_expert_ffn_size"] = moe.shared_expert_ffn_size;
  if (moe.first_dense_layers != 0) out["first_dense_layers"] = moe.first_dense_layers;
  if (moe.layer_step != 1) out["layer_step"] = moe.layer_step;
  return out;
}

ordered MlaJson(const ModelSpecFile& file) {
  const MlaSpec& mla = file.spec.mla;
  ordered out = ordered::object();
  if (!file.mla_note.empty()) out["note"] = file.mla_note;
  out["kv_lora_rank"] = mla.kv_lora_rank;
  out["qk_nope_head_dim"] = mla.qk_nope_head_dim;
  out["qk_rope_head_dim"] = mla.qk_rope_head_dim;
  out["v_head_dim"] = mla.v_head_dim;
  return out;
}

}  // namespace

std::string ModelSpecFileJson(const ModelSpecFile& file) {
  const ModelSpec& spec = file.spec;
  ordered out = ordered::object();
  out["schema_version"] = 1;
  out["name"] = spec.name;
  out["source"] = spec.source;
  out["layers"] = spec.layers;
  out["hidden_size"] = spec.hidden_size;
  out["q_heads"] = spec.q_heads;
  out["kv_heads"] = spec.kv_heads;
  out["head_dim"] = spec.head_dim;
  out["ffn_size"] = spec.ffn_size;
  out["vocab_size"] = spec.vocab_size;
  out["tied_embeddings"] = spec.tied_embeddings;
  out["activation"] = spec.activation;
  out["mlp"] = spec.mlp == MlpKind::kGated ? "gated" : "plain";
  out["dtype"] = file.dtype;
  out["max_context_tokens"] = spec.max_context_tokens;
  out["tokens"] = TokensJson(file);
  if (spec.moe.IsMoe()) out["moe"] = MoeJson(file);
  if (spec.mla.IsMla()) out["mla"] = MlaJson(file);
  return out.dump(2) + "\n";
}

}  // namespace efimsim
