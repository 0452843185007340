// Hugging Face config.json as model specs (models/formats/hf_config.h): the
// reader on fixture configs (testdata/hf/), its refusals, the written spec
// read back, and the built-in MoE specs' parameter counts.
#include <cmath>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "models/formats/hf_config.h"
#include "models/formats/spec_catalog.h"
#include "sim/base/errors.h"

namespace efimsim {
namespace {

std::string Fixture(const std::string& name) {
  return (std::filesystem::path(__FILE__).parent_path() / "testdata" / "hf" / name).string();
}

// The figures a run uses, token ids aside.
void ExpectSameShapes(const ModelSpec& a, const ModelSpec& b) {
  EXPECT_EQ(a.layers, b.layers);
  EXPECT_EQ(a.hidden_size, b.hidden_size);
  EXPECT_EQ(a.q_heads, b.q_heads);
  EXPECT_EQ(a.kv_heads, b.kv_heads);
  EXPECT_EQ(a.head_dim, b.head_dim);
  EXPECT_EQ(a.ffn_size, b.ffn_size);
  EXPECT_EQ(a.vocab_size, b.vocab_size);
  EXPECT_EQ(a.tied_embeddings, b.tied_embeddings);
  EXPECT_EQ(a.activation, b.activation);
  EXPECT_EQ(a.mlp, b.mlp);
  EXPECT_EQ(a.dtype_bytes, b.dtype_bytes);
  EXPECT_EQ(a.max_context_tokens, b.max_context_tokens);
  EXPECT_EQ(a.moe.experts, b.moe.experts);
  EXPECT_EQ(a.moe.experts_per_token, b.moe.experts_per_token);
  EXPECT_EQ(a.moe.expert_ffn_size, b.moe.expert_ffn_size);
  EXPECT_EQ(a.moe.shared_expert_ffn_size, b.moe.shared_expert_ffn_size);
  EXPECT_EQ(a.moe.first_dense_layers, b.moe.first_dense_layers);
  EXPECT_EQ(a.moe.layer_step, b.moe.layer_step);
  EXPECT_EQ(a.mla.kv_lora_rank, b.mla.kv_lora_rank);
  EXPECT_EQ(a.mla.qk_nope_head_dim, b.mla.qk_nope_head_dim);
  EXPECT_EQ(a.mla.qk_rope_head_dim, b.mla.qk_rope_head_dim);
  EXPECT_EQ(a.mla.v_head_dim, b.mla.v_head_dim);
  EXPECT_EQ(a.TotalParams(), b.TotalParams());
  EXPECT_EQ(a.ActiveParams(), b.ActiveParams());
  EXPECT_EQ(a.WeightBytes(), b.WeightBytes());
  EXPECT_EQ(a.KvBytesPerToken(), b.KvBytesPerToken());
}

void ExpectSameTokens(const SpecialTokens& a, const SpecialTokens& b) {
  EXPECT_EQ(a.bos, b.bos);
  EXPECT_EQ(a.fim_prefix, b.fim_prefix);
  EXPECT_EQ(a.fim_suffix, b.fim_suffix);
  EXPECT_EQ(a.fim_middle, b.fim_middle);
  EXPECT_EQ(a.text_first, b.text_first);
  EXPECT_EQ(a.text_last, b.text_last);
}

// The published configs (fixtures) give the built-in specs' figures through
// --model's path (LoadModelSpec); where the built-in uses the reader's token
// rule, its token ids too.
TEST(HfConfigTest, PublishedConfigsGiveTheBuiltinSpecs) {
  const struct {
    const char* builtin;
    bool same_tokens;  // false: the built-in maps FIM onto the tokenizer's own spare ids
  } cases[] = {
      {"qwen3-8b", true},         {"qwen3-30b-a3b", true},     {"qwen3-coder-480b-a35b", true},
      {"qwen2.5-coder-32b", true}, {"mixtral-8x7b", false},    {"codestral-22b", true},
      {"mistral-nemo-12b", false}, {"yi-34b", true},           {"llama-4-scout-17b-16e", true},
      {"deepseek-coder-v2-lite", false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.builtin);
    const std::string path = Fixture(std::string(c.builtin) + "/config.json");
    const ModelSpec imported = LoadModelSpec(path);
    const ModelSpec builtin = LoadModelSpec(c.builtin);
    ExpectSameShapes(imported, builtin);
    if (c.same_tokens) ExpectSameTokens(imported.tokens, builtin.tokens);
    EXPECT_EQ(imported.source.rfind(path + " (Hugging Face config.json, architecture ", 0), 0u) << imported.source;
  }
}

TEST(HfConfigTest, NameIsTheFolderOrTheLastPartOfNameOrPath) {
  EXPECT_EQ(LoadHfConfig(Fixture("qwen3-30b-a3b/config.json")).spec.name, "qwen3-30b-a3b");
  EXPECT_EQ(LoadHfConfig(Fixture("mistral-nemo-12b/config.json")).spec.name, "Mistral-Nemo-Base-2407");
  EXPECT_EQ(LoadHfConfig(Fixture("tiny-qwen3-moe/config.json")).spec.name, "tiny-qwen3-moe");  // trailing '/'
}

// Two leading dense layers (mlp_only_layers [0, 1]), then MoE on every second
// layer (decoder_sparse_step 2): layers 3, 5, 7. torch_dtype wins over dtype;
// a disabled sliding window and an fp8 quantization_config are accepted.
TEST(HfConfigTest, Qwen3MoeLayerPatternDtypeAndStandInTokens) {
  const ModelSpecFile file = LoadHfConfig(Fixture("tiny-qwen3-moe/config.json"));
  const ModelSpec& spec = file.spec;
  EXPECT_EQ(spec.moe.experts, 8);
  EXPECT_EQ(spec.moe.experts_per_token, 2);
  EXPECT_EQ(spec.moe.expert_ffn_size, 128);
  EXPECT_EQ(spec.moe.first_dense_layers, 2);
  EXPECT_EQ(spec.moe.layer_step, 2);
  EXPECT_EQ(spec.MoeLayers(), 3);
  EXPECT_EQ(spec.ffn_size, 1024);
  EXPECT_EQ(file.dtype, "float16");
  EXPECT_EQ(spec.dtype_bytes, 2);
  EXPECT_NE(spec.source.find("FP8 checkpoint"), std::string::npos) << spec.source;
  // vocab 1000 is no Qwen tokenizer: stand-ins at the top, no BOS.
  EXPECT_EQ(spec.tokens.bos, -1);
  EXPECT_EQ(spec.tokens.fim_prefix, 997);
  EXPECT_EQ(spec.tokens.fim_suffix, 998);
  EXPECT_EQ(spec.tokens.fim_middle, 999);
  EXPECT_EQ(spec.tokens.text_first, 256);
  EXPECT_EQ(spec.tokens.text_last, 996);
  EXPECT_NE(file.tokens_note.find("stand-ins"), std::string::npos);
}

// Defaults: kv heads = heads, head_dim = hidden / heads; "dtype" read when
// torch_dtype is absent; a BOS at the top of the vocabulary is skipped by the
// stand-ins; layer_types of full attention only are accepted.
TEST(HfConfigTest, LlamaDefaultsAndBosAtTheTop) {
  const ModelSpecFile file = LoadHfConfig(Fixture("tiny-llama/config.json"));
  const ModelSpec& spec = file.spec;
  EXPECT_EQ(spec.kv_heads, 8);
  EXPECT_EQ(spec.head_dim, 64);
  EXPECT_TRUE(spec.tied_embeddings);
  EXPECT_EQ(file.dtype, "bfloat16");
  EXPECT_FALSE(spec.moe.IsMoe());
  EXPECT_EQ(spec.tokens.bos, 1999);
  EXPECT_EQ(spec.tokens.fim_middle, 1998);
  EXPECT_EQ(spec.tokens.fim_suffix, 1997);
  EXPECT_EQ(spec.tokens.fim_prefix, 1996);
  EXPECT_EQ(spec.tokens.text_last, 1995);
}

// StarCoder2: plain GELU MLP, embeddings tied when the config says nothing
// (transformers' default), the tokenizer's own FIM ids, float32 noted.
TEST(HfConfigTest, Starcoder2PlainMlpAndKnownTokens) {
  const ModelSpecFile file = LoadHfConfig(Fixture("tiny-starcoder2/config.json"));
  const ModelSpec& spec = file.spec;
  EXPECT_EQ(spec.mlp, MlpKind::kPlain);
  EXPECT_EQ(spec.activation, "gelu_pytorch_tanh");
  EXPECT_TRUE(spec.tied_embeddings);
  EXPECT_EQ(spec.dtype_bytes, 4);
  EXPECT_NE(spec.source.find("float32"), std::string::npos);
  EXPECT_EQ(spec.tokens.bos, -1);
  EXPECT_EQ(spec.tokens.fim_prefix, 1);
  EXPECT_EQ(spec.tokens.fim_middle, 2);
  EXPECT_EQ(spec.tokens.fim_suffix, 3);
  EXPECT_EQ(spec.tokens.text_last, 49151);
}

// Every refusal names the file and the config's field.
TEST(HfConfigTest, RefusalsNameTheFileAndField) {
  const struct {
    const char* file;
    const char* field;
    const char* says;
  } cases[] = {
      {"unknown-architecture.json", "architectures", "Qwen3MoeForCausalLM"},
      {"q-lora-rank.json", "q_lora_rank", "compressed query"},
      {"mla-in-llama.json", "kv_lora_rank", "only from DeepseekV2ForCausalLM"},
      {"moe-layer-freq.json", "moe_layer_freq", "only 1"},
      {"sliding-window.json", "sliding_window", "sliding-window attention is not modelled"},
      {"sliding-layer-types.json", "layer_types", "only full attention"},
      {"missing-hidden-size.json", "hidden_size", "missing"},
      {"awq.json", "quantization_config.quant_method", "\"awq\""},
      {"mlp-only-layers.json", "mlp_only_layers", "leading run"},
      {"moe-layers.json", "text_config.moe_layers", "interleave_moe_layer_step"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file);
    const std::string path = Fixture(std::string("refused/") + c.file);
    try {
      (void)LoadModelSpec(path);
      ADD_FAILURE() << "accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), path);
      EXPECT_EQ(e.field(), c.field) << e.what();
      EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
  }
}

TEST(HfConfigTest, TellsConfigsFromSpecs) {
  EXPECT_TRUE(IsHfConfig(R"({"architectures": ["LlamaForCausalLM"]})"));
  EXPECT_TRUE(IsHfConfig(R"({"model_type": "llama"})"));
  EXPECT_FALSE(IsHfConfig(R"({"schema_version": 1, "model_type": "llama"})"));
  EXPECT_FALSE(IsHfConfig("not json"));
  EXPECT_FALSE(IsHfConfig("[1, 2]"));
  try {
    (void)ReadHfConfig(R"({"schema_version": 1, "architectures": ["LlamaForCausalLM"]})", "spec.json");
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "schema_version");
  }
}

// `models import`'s output read back (ParseModelSpec) gives the spec the
// reader made; "moe" comes last, and only for MoE models.
TEST(HfConfigTest, WrittenSpecReadsBackEqual) {
  for (const char* name : {"qwen3-8b", "qwen3-30b-a3b", "mixtral-8x7b", "llama-4-scout-17b-16e", "yi-34b",
                           "tiny-qwen3-moe", "tiny-llama", "tiny-starcoder2", "deepseek-coder-v2-lite"}) {
    SCOPED_TRACE(name);
    const std::string path = Fixture(std::string(name) + "/config.json");
    const ModelSpecFile file = LoadHfConfig(path);
    const std::string json = ModelSpecFileJson(file);
    const ModelSpec back = ParseModelSpec(json, "written.json");
    ExpectSameShapes(back, file.spec);
    ExpectSameTokens(back.tokens, file.spec.tokens);
    EXPECT_EQ(back.name, file.spec.name);
    EXPECT_EQ(back.source, file.spec.source);
    EXPECT_EQ(json.rfind("{\n  \"schema_version\": 1,\n  \"name\": ", 0), 0u) << json;
    const size_t moe = json.find("\n  \"moe\": {");
    EXPECT_EQ(moe != std::string::npos, file.spec.moe.IsMoe());
    EXPECT_EQ(json.find("\n  \"mla\": {") != std::string::npos, file.spec.mla.IsMla());
    if (moe != std::string::npos && !file.spec.mla.IsMla()) {
      EXPECT_GT(moe, json.find("\n  \"tokens\": {"));
      EXPECT_EQ(json.find("\n  }\n}\n", moe), json.size() - 7);  // the last key
    }
  }
}

// Published totals and active parameters of the built-in MoE models, +-2%.
TEST(HfConfigTest, BuiltinMoeParameterCounts) {
  const struct {
    const char* name;
    double total_b;
    double active_b;
  } cases[] = {
      {"qwen3-30b-a3b", 30.5, 3.3},
      {"qwen3-coder-30b-a3b", 30.5, 3.3},
      {"mixtral-8x7b", 46.7, 12.9},
      {"qwen3-coder-480b-a35b", 480.0, 35.0},
      {"llama-4-scout-17b-16e", 109.0, 17.0},
      // DeepSeek: 15.7B total (16B), 2.4B active without the 0.21B input
      // embedding, which efimsim counts (2.66B).
      {"deepseek-coder-v2-lite", 15.7, 2.66},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const ModelSpec spec = LoadModelSpec(c.name);
    EXPECT_NEAR(static_cast<double>(spec.TotalParams()) / 1e9, c.total_b, 0.02 * c.total_b);
    EXPECT_NEAR(static_cast<double>(spec.ActiveParams()) / 1e9, c.active_b, 0.02 * c.active_b);
  }
}

}  // namespace
}  // namespace efimsim
