// Multi-head latent attention (DeepSeek-V2's MLA; models/formats/
// model_spec.h MlaSpec): the KV cache of the latent, replicated under TP;
// the GEMM shapes; attention work; kv_b_proj in the step over the tokens
// and the prefill chunks' cached context; the shape rule's MLA attention.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "models/formats/shape_profile.h"
#include "models/formats/spec_catalog.h"
#include "models/latency/operator_work.h"
#include "models/latency/roofline_latency_model.h"
#include "models/latency/shape_rule.h"
#include "models/latency/step_graph.h"
#include "sim/base/errors.h"

namespace efimsim {
namespace {

const ModelSpec& Lite() {
  static const ModelSpec spec = LoadModelSpec("deepseek-coder-v2-lite");
  return spec;
}

TEST(MlaSpec, KvCacheHoldsTheLatentAndRopeKeyOnEveryGpu) {
  const ModelSpec& m = Lite();
  ASSERT_TRUE(m.mla.IsMla());
  // 27 layers x (512 + 64) bf16 values: 31,104 bytes, not 2 x 27 x 16 x 192 x 2.
  EXPECT_EQ(m.KvBytesPerToken(), 27 * 576 * 2);
  EXPECT_EQ(ServedAs(m, {WeightQuantization::kNone, KvCacheDtype::kFp8, false}).KvBytesPerToken(), 27 * 576);
  EXPECT_EQ(ShardKvBytesPerToken(ShardModel(m, 1)), m.KvBytesPerToken());
  EXPECT_EQ(ShardKvBytesPerToken(ShardModel(m, 2)), m.KvBytesPerToken());  // replicated, not split
  const ModelSpec dense = LoadModelSpec("llama-3.1-8b");
  EXPECT_EQ(ShardKvBytesPerToken(ShardModel(dense, 2)) * 2, dense.KvBytesPerToken());
}

TEST(MlaSpec, ParserChecksTheHeadsAgainstTheLatent) {
  const std::string good = R"({"schema_version": 1, "name": "m", "source": "s", "layers": 2,
    "hidden_size": 256, "q_heads": 4, "kv_heads": 4, "head_dim": 48, "ffn_size": 512,
    "vocab_size": 1000, "tied_embeddings": false, "activation": "silu", "mlp": "gated",
    "dtype": "bfloat16", "max_context_tokens": 4096,
    "tokens": {"bos": 1, "fim_prefix": 2, "fim_suffix": 3, "fim_middle": 4, "text_first": 10, "text_last": 999},
    "mla": {"kv_lora_rank": 64, "qk_nope_head_dim": 32, "qk_rope_head_dim": 16, "v_head_dim": 32}})";
  const ModelSpec spec = ParseModelSpec(good, "m.json");
  EXPECT_EQ(spec.mla.LatentWidth(), 80);
  EXPECT_EQ(spec.KvBytesPerToken(), 2 * 80 * 2);
  std::string bad = good;
  bad.replace(bad.find("\"head_dim\": 48"), 14, "\"head_dim\": 64");
  try {
    (void)ParseModelSpec(bad, "m.json");
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "head_dim") << e.what();
  }
  bad = good;
  bad.replace(bad.find("\"kv_heads\": 4"), 13, "\"kv_heads\": 2");
  EXPECT_THROW((void)ParseModelSpec(bad, "m.json"), InputError);
  bad = good;
  bad.replace(bad.find("\"v_head_dim\": 32"), 16, "\"v_head_dim\": 0");
  EXPECT_THROW((void)ParseModelSpec(bad, "m.json"), InputError);
}

TEST(MlaShards, GemmShapesSplitTheHeadsAndReplicateTheLatentProjection) {
  const ShardShapes one = ShardModel(Lite(), 1);
  const ShardShapes two = ShardModel(Lite(), 2);
  // q_proj (16 x 192) with kv_a_proj_with_mqa (512 + 64) beside it.
  EXPECT_EQ(GemmShapeOf(one, GemmId::kQkvProj).n, 16 * 192 + 576);
  EXPECT_EQ(GemmShapeOf(two, GemmId::kQkvProj).n, 8 * 192 + 576);
  EXPECT_EQ(GemmShapeOf(one, GemmId::kKvBProj).n, 16 * 256);
  EXPECT_EQ(GemmShapeOf(one, GemmId::kKvBProj).k, 512);
  EXPECT_EQ(GemmShapeOf(two, GemmId::kKvBProj).n, 8 * 256);
  EXPECT_EQ(GemmShapeOf(one, GemmId::kOProj).k, 16 * 128);
  EXPECT_TRUE(HasGemm(one, GemmId::kKvBProj));
  EXPECT_FALSE(HasGemm(ShardModel(LoadModelSpec("llama-3.1-8b"), 1), GemmId::kKvBProj));
  // Weights at TP 1 are the spec's; at TP 2 more than half (the latent
  // projection, embedding-free parts and norms are whole on each GPU).
  EXPECT_EQ(ShardWeightBytes(Lite(), one), Lite().WeightBytes());
  EXPECT_GT(ShardWeightBytes(Lite(), two) * 2, Lite().WeightBytes());
}

TEST(MlaWork, DecodeReadsTheLatentOnceForAllHeads) {
  const ShardShapes one = ShardModel(Lite(), 1);
  const ShardShapes two = ShardModel(Lite(), 2);
  // 1,000 cached tokens: (c + 1) x 576 bf16 values read, whatever the heads.
  const OperatorWork w1 = DecodeAttentionWork(one, 1.0, 1000.0);
  const OperatorWork w2 = DecodeAttentionWork(two, 1.0, 1000.0);
  EXPECT_NEAR(w1.bytes, 1001.0 * 576 * 2 + 16 * (576 + 512) * 2, 1e-6);
  EXPECT_NEAR(w2.bytes, 1001.0 * 576 * 2 + 8 * (576 + 512) * 2, 1e-6);
  EXPECT_NEAR(w1.flops, 2.0 * 16 * 1001 * (576 + 512), 1e-6);
  EXPECT_NEAR(w2.flops * 2, w1.flops, 1e-6);
  // Prefill: every head's q.k over 192 and p.v over 128, causal.
  const OperatorWork p = PrefillAttentionWork(one, 100.0, 0.0);
  EXPECT_NEAR(p.flops, 2.0 * 16 * (192 + 128) * 100 * (101.0 / 2.0), 1e-6);
}

TEST(MlaStep, KvBProjRunsOverTheTokensAndThePrefillChunksContext) {
  const StepGraph graph(LayerMlps(Lite()), false, /*mla=*/true);
  const auto& ops = graph.Operators();
  EXPECT_NE(std::find(ops.begin(), ops.end(), StepOp::kKvBProj), ops.end());
  const StepGraph dense(LayerMlps(LoadModelSpec("llama-3.1-8b")), false);
  EXPECT_EQ(std::find(dense.Operators().begin(), dense.Operators().end(), StepOp::kKvBProj),
            dense.Operators().end());

  const GpuSpec gpu = LoadGpuSpec("h100-sxm");
  const RooflineLatencyModel model(Lite(), gpu, CpuOverheadConfig{}, 1);
  const RooflineOperatorTimer timer(ShardModel(Lite(), 1), gpu);
  const auto kv_b = [&](std::vector<SequenceWork> batch) {
    for (const OperatorCost& op : model.Explain(batch).operators) {
      if (op.name == "kv_b_proj") return op;
    }
    ADD_FAILURE() << "no kv_b_proj";
    return OperatorCost{};
  };
  // A 100-token chunk over 1,000 cached tokens and two decodes: 102 rows of
  // new tokens plus the chunk's 1,000 cached ones (decodes are absorbed).
  const OperatorCost op = kv_b({{100, 1000, true}, {1, 500, true}, {1, 700, true}});
  EXPECT_EQ(op.instances, 27);
  const double one_layer = timer.Gemm(GemmId::kKvBProj, 1102).seconds;
  EXPECT_NEAR(ToSeconds(op.time), 27 * one_layer, 27e-9);  // whole nanoseconds
}

TEST(MlaShapeRule, AttentionIsCarriedByItsSpeedOfLightAndSaidSo) {
  const ShapeProfile* found = FindBuiltinShapeProfile("h100-sxm", "aiconfigurator", "vllm_v1");
  ASSERT_NE(found, nullptr);
  const ShapeProfile& p = *found;
  ShapeResolution r;
  const KernelProfile k = ResolveShapeProfile(p, Lite(), 1, &r);
  EXPECT_TRUE(k.prefill_attention.transferred);
  EXPECT_TRUE(k.decode_attention.transferred);
  const std::string summary = r.Summary();
  EXPECT_NE(summary.find("(MLA 16 heads, latent 512 + rope 64, absorbed) by speed of light"), std::string::npos)
      << summary;
  // Decode over a long context: the MLA kernel reads 576 values a token, a
  // 16/2/512 GQA kernel 2 x 2 x 512: MLA is priced below the table it
  // came from at every batch over 1,000 or more cached tokens.
  int compared = 0;
  for (const ShapeDecodeTable& t : p.decode_attention) {
    if (t.heads.q_heads != 16 || t.heads.kv_heads != 2 || t.heads.head_dim != 512) continue;
    for (const AttentionPoint& gqa : t.points) {
      if (gqa.context_tokens < 1000) continue;
      for (const AttentionPoint& mla : k.decode_attention.points) {
        if (mla.rows != gqa.rows || mla.context_tokens != gqa.context_tokens) continue;
        EXPECT_LT(mla.time_us, gqa.time_us) << gqa.rows << " x " << gqa.context_tokens;
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 10);
}

TEST(MlaShapeRule, SglangsOwnMlaTablesPriceItAsMeasured) {
  const ShapeProfile* found = FindBuiltinShapeProfile("h100-sxm", "aiconfigurator", "sglang");
  ASSERT_NE(found, nullptr);
  const ShapeProfile& p = *found;
  ASSERT_FALSE(p.mla.empty());
  for (const int64_t tp : {1, 2}) {
    ShapeResolution r;
    const KernelProfile k = ResolveShapeProfile(p, Lite(), tp, &r);
    EXPECT_FALSE(k.prefill_attention.transferred) << tp;
    EXPECT_FALSE(k.decode_attention.transferred) << tp;
    EXPECT_NE(r.Summary().find("MLA attention measured at " + std::to_string(16 / tp) + " heads"), std::string::npos)
        << r.Summary();
    // Decode points are the measured table's, as measured.
    const ShapeDecodeTable* table = nullptr;
    for (const ShapeDecodeTable& t : p.mla[0].decode) {
      if (t.heads.q_heads == 16 / tp) table = &t;
    }
    ASSERT_NE(table, nullptr);
    ASSERT_EQ(k.decode_attention.points.size(), table->points.size());
    EXPECT_DOUBLE_EQ(k.decode_attention.points[3].time_us, table->points[3].time_us);
  }
  // An FP8 KV cache takes the FP8-KV MLA tables.
  ServingFormat fp8;
  fp8.kv_cache_dtype = KvCacheDtype::kFp8;
  ShapeResolution r;
  const KernelProfile k = ResolveShapeProfile(p, ServedAs(Lite(), fp8), 1, &r);
  EXPECT_EQ(k.decode_attention.kv_cache_dtype, "fp8");
  EXPECT_NE(r.Summary().find("from the FP8-KV MLA tables"), std::string::npos) << r.Summary();
  // Another latent geometry has no table: carried from GQA, as on vLLM.
  ModelSpec other = Lite();
  other.mla.kv_lora_rank = 256;
  ShapeResolution carried;
  ResolveShapeProfile(p, other, 1, &carried);
  EXPECT_TRUE(carried.mla.empty());
  EXPECT_NE(carried.Summary().find("by speed of light"), std::string::npos) << carried.Summary();
}

}  // namespace
}  // namespace efimsim
