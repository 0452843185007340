// Mixture-of-experts specs and FP8 serving: parameter counts, weight and KV
// bytes, KV capacity, the step graph of MoE layers and the roofline prices
// of MoE and FP8 operators.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "models/formats/spec_catalog.h"
#include "models/import/llmservingsim_moe.h"
#include "models/latency/operator_work.h"
#include "models/latency/roofline_latency_model.h"
#include "models/latency/step_graph.h"
#include "sim/base/errors.h"
#include "sim/engine/kv_capacity.h"

namespace efimsim {
namespace {

// A Mixtral-8x7B-shaped model built on a dense spec's tokens.
ModelSpec MixtralLike() {
  ModelSpec model = LoadModelSpec("llama-3.1-8b");
  model.name = "mixtral-like";
  model.vocab_size = 32000;
  model.tokens.text_last = 31000;
  model.tokens.fim_prefix = 31990;
  model.tokens.fim_suffix = 31991;
  model.tokens.fim_middle = 31992;
  model.tokens.bos = 1;
  model.moe.experts = 8;
  model.moe.experts_per_token = 2;
  model.moe.expert_ffn_size = 14336;
  return model;
}

TEST(MoeSpec, MixtralShapesGiveItsPublishedParameterCounts) {
  const ModelSpec model = MixtralLike();
  EXPECT_EQ(model.MoeLayers(), 32);
  EXPECT_EQ(model.DenseLayers(), 0);
  // Mixtral-8x7B: 46.7B parameters, 12.9B active per token.
  EXPECT_NEAR(static_cast<double>(model.TotalParams()) / 1e9, 46.7, 0.1);
  EXPECT_NEAR(static_cast<double>(model.ActiveParams()) / 1e9, 12.9, 0.1);
}

TEST(MoeSpec, DenseModelsHaveEqualTotalAndActiveParameters) {
  const ModelSpec model = LoadModelSpec("llama-3.1-8b");
  EXPECT_EQ(model.MoeLayers(), 0);
  EXPECT_EQ(model.TotalParams(), model.ActiveParams());
}

TEST(MoeSpec, LayerPatternFollowsFirstDenseLayersAndStep) {
  MoeSpec moe;
  moe.experts = 64;
  moe.experts_per_token = 6;
  moe.first_dense_layers = 1;  // DeepSeek-V2-Lite
  EXPECT_FALSE(moe.IsMoeLayer(0));
  EXPECT_TRUE(moe.IsMoeLayer(1));
  moe.first_dense_layers = 0;
  moe.layer_step = 2;  // every second layer, as Llama-4 Maverick interleaves
  EXPECT_FALSE(moe.IsMoeLayer(0));
  EXPECT_TRUE(moe.IsMoeLayer(1));
  EXPECT_FALSE(moe.IsMoeLayer(2));
}

TEST(MoeSpec, ParserReadsTheMoeObjectAndNamesBadFields) {
  const std::string base = R"({"schema_version": 1, "name": "m", "source": "test",
    "layers": 2, "hidden_size": 64, "q_heads": 4, "kv_heads": 2, "head_dim": 16,
    "ffn_size": 128, "vocab_size": 1000, "tied_embeddings": false, "activation": "silu",
    "mlp": "gated", "dtype": "bfloat16", "max_context_tokens": 4096,
    "tokens": {"bos": 1, "fim_prefix": 2, "fim_suffix": 3, "fim_middle": 4,
               "text_first": 10, "text_last": 999},
    "moe": {"experts": 8, "experts_per_token": TOPK, "expert_ffn_size": 32,
            "shared_expert_ffn_size": 64}})";
  auto with_topk = [&](const std::string& k) {
    std::string text = base;
    text.replace(text.find("TOPK"), 4, k);
    return text;
  };
  const ModelSpec model = ParseModelSpec(with_topk("2"), "moe.json");
  EXPECT_EQ(model.moe.experts, 8);
  EXPECT_EQ(model.moe.shared_expert_ffn_size, 64);
  EXPECT_EQ(model.MoeLayers(), 2);
  try {
    ParseModelSpec(with_topk("9"), "moe.json");
    FAIL() << "top-k above the experts was accepted";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("moe.experts_per_token"), std::string::npos)
        << error.what();
  }
}

TEST(ServingFormat, Fp8WeightsHalveTheLinearLayersBytes) {
  const ModelSpec bf16 = LoadModelSpec("llama-3.1-8b");
  const ModelSpec fp8 = ServedAs(bf16, {WeightQuantization::kFp8, KvCacheDtype::kAuto, false});
  const int64_t other = bf16.TotalParams() - bf16.LinearParams();  // embeddings, head, norms
  EXPECT_EQ(bf16.WeightBytes() - 2 * other, 2 * bf16.LinearParams());
  EXPECT_EQ(fp8.WeightBytes() - 2 * other, bf16.LinearParams());
  EXPECT_EQ(fp8.KvBytesPerToken(), bf16.KvBytesPerToken());
  // The per-GPU shard agrees with the whole model at TP 1.
  EXPECT_EQ(ShardWeightBytes(fp8, ShardModel(fp8, 1)), fp8.WeightBytes());
}

TEST(ServingFormat, Fp8KvCacheDoublesTheKvTokens) {
  const ModelSpec bf16 = LoadModelSpec("llama-3.1-8b");
  const ModelSpec fp8_kv = ServedAs(bf16, {WeightQuantization::kNone, KvCacheDtype::kFp8, false});
  EXPECT_EQ(2 * fp8_kv.KvBytesPerToken(), bf16.KvBytesPerToken());
  const GpuSpec gpu = LoadGpuSpec("h100-sxm");
  const KvCapacity one = ComputeKvCapacity(EngineConfig{}, bf16, gpu, 1);
  const KvCapacity two = ComputeKvCapacity(EngineConfig{}, fp8_kv, gpu, 1);
  // Same free memory, half the bytes a token: twice the blocks (to one).
  EXPECT_NEAR(static_cast<double>(two.blocks), 2.0 * static_cast<double>(one.blocks), 1.0);
}

TEST(ServingFormat, RefusesExpertParallelismOfADenseModel) {
  EXPECT_THROW(ServedAs(LoadModelSpec("llama-3.1-8b"),
                        {WeightQuantization::kNone, KvCacheDtype::kAuto, true}),
               UsageError);
}

TEST(MoeShards, ExpertParallelHoldsWholeExpertsAndTheSameBytes) {
  const ModelSpec tp_model = MixtralLike();
  const ModelSpec ep_model =
      ServedAs(tp_model, {WeightQuantization::kNone, KvCacheDtype::kAuto, true});
  const ShardShapes tp = ShardModel(tp_model, 4);
  const ShardShapes ep = ShardModel(ep_model, 4);
  EXPECT_EQ(tp.experts_per_gpu, 8);
  EXPECT_EQ(tp.expert_ffn, 14336 / 4);
  EXPECT_EQ(ep.experts_per_gpu, 2);
  EXPECT_EQ(ep.expert_ffn, 14336);
  EXPECT_EQ(ShardWeightBytes(tp_model, tp), ShardWeightBytes(ep_model, ep));
}

TEST(MoeWork, ActiveExpertsGrowFromTopKToAllExperts) {
  const ShardShapes s = ShardModel(MixtralLike(), 1);
  EXPECT_DOUBLE_EQ(ExpectedActiveExperts(s, 1.0), 2.0);
  EXPECT_NEAR(ExpectedActiveExperts(s, 64.0), 8.0, 1e-6);
  // One token reads two experts' weights; many tokens read all eight.
  const double expert_bytes = 3.0 * 4096 * 14336 * 2;
  EXPECT_GT(MoeExpertsWork(s, 1.0).bytes, 2.0 * expert_bytes);
  EXPECT_LT(MoeExpertsWork(s, 1.0).bytes, 2.01 * expert_bytes);
  EXPECT_GT(MoeExpertsWork(s, 64.0).bytes, 8.0 * expert_bytes * 0.999);
}

TEST(MoeWork, BalancedRoutingTouchesTheMostExperts) {
  ModelSpec model = MixtralLike();
  model.moe_routing = MoeRouting::kBalanced;
  const ShardShapes s = ShardModel(model, 1);
  EXPECT_DOUBLE_EQ(ExpectedActiveExperts(s, 1.0), 2.0);
  EXPECT_DOUBLE_EQ(ExpectedActiveExperts(s, 3.0), 6.0);  // 3 x top-2, all distinct
  EXPECT_DOUBLE_EQ(ExpectedActiveExperts(s, 64.0), 8.0);
  // Uniform random choices collide: fewer experts at the same tokens.
  EXPECT_LT(ExpectedActiveExperts(ShardModel(MixtralLike(), 1), 3.0), 6.0);
}

TEST(MoeGraph, MoeLayersReplaceTheDenseMlpOperators) {
  ModelSpec model = MixtralLike();
  model.moe.first_dense_layers = 1;
  model.moe.shared_expert_ffn_size = 2048;
  const StepGraph graph(LayerMlps(model), /*tensor_parallel=*/false);
  const auto& ops = graph.Operators();
  auto has = [&](StepOp op) { return std::find(ops.begin(), ops.end(), op) != ops.end(); };
  EXPECT_TRUE(has(StepOp::kGateUpProj));  // the first layer is dense
  EXPECT_TRUE(has(StepOp::kMoeExperts));
  EXPECT_TRUE(has(StepOp::kSharedExpertDown));
  std::vector<double> one(kStepOpCount, 1.0);
  const CriticalPath path = graph.Evaluate(one);
  EXPECT_EQ(path.count_by_op[static_cast<size_t>(StepOp::kGateUpProj)], 1);
  EXPECT_EQ(path.count_by_op[static_cast<size_t>(StepOp::kMoeExperts)], 31);
  EXPECT_EQ(path.count_by_op[static_cast<size_t>(StepOp::kMoeRouter)], 31);
}

TEST(MoeRoofline, OneTokenReadsOnlyItsExperts) {
  const GpuSpec gpu = LoadGpuSpec("h100-sxm");
  const RooflineOperatorTimer timer(ShardModel(MixtralLike(), 1), gpu);
  const double one = timer.MoeExperts(1).seconds;
  const double many = timer.MoeExperts(64).seconds;
  // Weight-read bound: about 2 of 8 experts at 1 token, all 8 at 64.
  EXPECT_NEAR(many / one, 4.0, 0.2);
}

TEST(Fp8Roofline, LargeGemmsRunAtTheFp8CeilingAndSmallOnesReadHalfTheBytes) {
  const GpuSpec gpu = LoadGpuSpec("h100-sxm");
  const ModelSpec bf16 = LoadModelSpec("llama-3.1-8b");
  const ModelSpec fp8 = ServedAs(bf16, {WeightQuantization::kFp8, KvCacheDtype::kAuto, false});
  const RooflineOperatorTimer a(ShardModel(bf16, 1), gpu);
  const RooflineOperatorTimer b(ShardModel(fp8, 1), gpu);
  const double ratio = gpu.datasheet_fp8_tflops / gpu.datasheet_bf16_tflops;
  EXPECT_GT(ratio, 1.9);
  EXPECT_NEAR(a.Gemm(GemmId::kGateUpProj, 8192).seconds / b.Gemm(GemmId::kGateUpProj, 8192).seconds,
              ratio, 0.01);
  EXPECT_NEAR(a.Gemm(GemmId::kGateUpProj, 1).seconds / b.Gemm(GemmId::kGateUpProj, 1).seconds, 2.0,
              0.01);
  // lm_head stays in the checkpoint's dtype.
  EXPECT_DOUBLE_EQ(a.Gemm(GemmId::kLmHead, 1).seconds, b.Gemm(GemmId::kLmHead, 1).seconds);
}

TEST(LlmServingSimMoe, UniformRoutingReadsTheExpectedActiveExperts) {
  const LlmServingSimMoeGrid grid = ParseLlmServingSimMoe(
      "tokens,activated_experts,time_us\n1,2,10\n2,2,11\n2,4,19\n64,4,30\n64,8,50\n",
      "moe.csv");
  const ShardShapes s = ShardModel(MixtralLike(), 1);  // top-2 of 8
  const std::vector<ProfilePoint> points = UniformRoutingMoePoints(grid, s);
  ASSERT_EQ(points.size(), 3u);
  EXPECT_DOUBLE_EQ(points[0].time_us, 10.0);  // one token: exactly its 2 experts
  // Two tokens: 8 (1 - (3/4)^2) = 3.5 experts, between the 2- and 4-expert rows.
  EXPECT_DOUBLE_EQ(points[1].time_us, 11.0 + (3.5 - 2.0) / 2.0 * 8.0);
  EXPECT_NEAR(points[2].time_us, 50.0, 1e-6);  // 64 tokens touch all 8
}

TEST(LlmServingSimMoe, RepeatedKeyNamesLineAndColumn) {
  try {
    ParseLlmServingSimMoe("tokens,activated_experts,time_us\n1,2,10\n1,2,11\n", "moe.csv");
    FAIL();
  } catch (const InputError& error) {
    const std::string text = error.what();
    EXPECT_NE(text.find("moe.csv"), std::string::npos) << text;
    EXPECT_NE(text.find("activated_experts"), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace efimsim
