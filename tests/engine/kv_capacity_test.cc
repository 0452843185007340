// KV cache sizing per GPU under tensor parallelism: each GPU holds 1/TP of
// the weights and of the KV heads (models/latency/operator_work.h), so a replica of
// TP GPUs has room for more tokens than one GPU.
#include "sim/run/workload_options.h"
#include "sim/engine/kv_capacity.h"

#include <gtest/gtest.h>

#include "models/latency/operator_work.h"
#include "models/formats/spec_catalog.h"
#include "sim/base/errors.h"
#include "sim/run/experiment.h"

namespace efimsim {
namespace {

TEST(KvCapacity, ShardAtTp1IsTheWholeModel) {
  for (const char* name : {"llama-3.1-8b", "codellama-7b", "deepseek-coder-6.7b"}) {
    const ModelSpec model = LoadModelSpec(name);
    const ShardShapes shard = ShardModel(model, 1);
    EXPECT_EQ(ShardWeightBytes(model, shard), model.WeightBytes()) << name;
    EXPECT_EQ(ShardKvBytesPerToken(shard), model.KvBytesPerToken()) << name;
  }
}

TEST(KvCapacity, Tp2HalvesPerGpuWeightsAndKvBytesPerToken) {
  const ModelSpec model = LoadModelSpec("llama-3.1-8b");
  const GpuSpec gpu = LoadGpuSpec("h100-sxm");
  const EngineConfig engine;
  const KvCapacity one = ComputeKvCapacity(engine, model, gpu, 1);
  const KvCapacity two = ComputeKvCapacity(engine, model, gpu, 2);
  EXPECT_EQ(two.tensor_parallel, 2);
  // 8 KV heads: 4 per GPU, exactly half the bytes per token.
  EXPECT_EQ(2 * two.kv_bytes_per_token, one.kv_bytes_per_token);
  // Everything is split but the norms (a few hundred KiB, replicated).
  EXPECT_NEAR(two.weights_gib, one.weights_gib / 2, 0.001);
  EXPECT_GT(two.weights_gib, one.weights_gib / 2);
  // Each GPU's free memory grows by the weights it no longer holds, and
  // every token costs half as much: more than twice the tokens.
  EXPECT_GT(two.tokens, 2 * one.tokens);
  const double block_gib = static_cast<double>(engine.block_tokens) *
                           static_cast<double>(two.kv_bytes_per_token) / (1 << 30);
  const double free_gib = two.memory_gib * engine.gpu_memory_utilization - two.weights_gib -
                          engine.non_kv_overhead_gib;
  EXPECT_EQ(two.blocks, static_cast<int64_t>(free_gib / block_gib));
}

// Bytes left for KV as vLLM sizes them: memory x utilization - weights -
// the non-KV overhead.
double FreeKvBytes(const KvCapacity& c, const EngineConfig& engine) {
  return (c.memory_gib * engine.gpu_memory_utilization - c.weights_gib - engine.non_kv_overhead_gib) * 1024.0 *
         1024.0 * 1024.0;
}

TEST(KvCapacity, ADraftModelTakesItsWeightsAndKvFromTheCache) {
  // Qwen2.5-Coder-7B drafted by Qwen2.5-Coder-1.5B on an H100: the 1.5B's
  // shard counts as weights and its 28 layers x 2 KV heads x 128 x 2 x
  // bf16 = 28,672 bytes a token sit in the same blocks as the 7B's 57,344.
  const ModelSpec target = LoadModelSpec("qwen2.5-coder-7b");
  const ModelSpec draft = LoadModelSpec("qwen2.5-coder-1.5b");
  const GpuSpec gpu = LoadGpuSpec("h100-sxm");
  const EngineConfig engine;
  const KvCapacity plain = ComputeKvCapacity(engine, target, gpu, 1);
  const KvCapacity drafted = ComputeKvCapacity(engine, target, gpu, 1, 0, &draft);
  EXPECT_EQ(drafted.draft_model, "qwen2.5-coder-1.5b");
  EXPECT_EQ(drafted.draft_layers, 0);
  EXPECT_EQ(drafted.kv_bytes_per_token, 57344);
  EXPECT_EQ(drafted.draft_kv_bytes_per_token, 28672);
  const double draft_gib = static_cast<double>(draft.WeightBytes()) / (1024.0 * 1024.0 * 1024.0);
  EXPECT_NEAR(drafted.draft_weights_gib, draft_gib, 1e-9);
  EXPECT_NEAR(drafted.weights_gib, plain.weights_gib + draft_gib, 1e-9);
  EXPECT_EQ(drafted.blocks, static_cast<int64_t>(FreeKvBytes(drafted, engine) / (16.0 * (57344 + 28672))));
}

TEST(KvCapacity, DraftHeadLayersTakeWeightsAndKvFromTheCache) {
  // Llama-3.1-8B with a one-layer EAGLE head on an H100: the layer holds
  // 1/32 of the decoder layers' KV per token (4,096 of 131,072 bytes) in the
  // same blocks, and an average decoder layer's weights (218,112,000 bf16
  // parameters: 2 x 4096 x 1024 + 2 x 4096 x 4096 for attention, 3 x 4096 x
  // 14336 for the MLP, 2 x 4096 for the norms).
  const ModelSpec model = LoadModelSpec("llama-3.1-8b");
  const GpuSpec gpu = LoadGpuSpec("h100-sxm");
  const EngineConfig engine;
  const KvCapacity plain = ComputeKvCapacity(engine, model, gpu, 1);
  const KvCapacity eagle = ComputeKvCapacity(engine, model, gpu, 1, 1);
  EXPECT_EQ(plain.draft_layers, 0);
  EXPECT_EQ(eagle.draft_layers, 1);
  EXPECT_EQ(eagle.kv_bytes_per_token, plain.kv_bytes_per_token);
  EXPECT_EQ(eagle.draft_kv_bytes_per_token, 4096);
  const double layer_gib = 218112000.0 * 2 / (1024.0 * 1024.0 * 1024.0);
  EXPECT_NEAR(eagle.draft_weights_gib, layer_gib, 1e-9);
  EXPECT_NEAR(eagle.weights_gib, plain.weights_gib + layer_gib, 1e-9);
  EXPECT_EQ(eagle.blocks, static_cast<int64_t>(FreeKvBytes(eagle, engine) / (16.0 * (131072 + 4096))));
  EXPECT_LT(eagle.blocks, plain.blocks * 32 / 33);
  // --kv-blocks still sets the count as given.
  EngineConfig fixed;
  fixed.kv_blocks = 1000;
  EXPECT_EQ(ComputeKvCapacity(fixed, model, gpu, 1, 1).blocks, 1000);
}

TEST(KvCapacity, KvHeadsReplicatedBeyondTheirCount) {
  const ModelSpec model = LoadModelSpec("llama-3.1-8b");  // 8 KV heads
  const ShardShapes shard = ShardModel(model, 8);
  EXPECT_EQ(shard.kv_heads, 1);
  EXPECT_EQ(8 * ShardKvBytesPerToken(shard), model.KvBytesPerToken());
}

TEST(KvCapacity, BadTensorParallelSizeNamesTheOption) {
  const ModelSpec model = LoadModelSpec("llama-3.1-8b");
  try {
    ComputeKvCapacity(EngineConfig{}, model, LoadGpuSpec("h100-sxm"), 3);
    FAIL();
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("--tp"), std::string::npos);
  }
}

ExperimentConfig SmallRun(int64_t tp) {
  ExperimentConfig config;
  config.documents = "synthetic";
  config.users = 2;
  PaperSettings(config).rounds = 2;
  config.record_wall_time = false;
  config.latency.tensor_parallel = tp;
  return config;
}

TEST(KvCapacity, RunWithTp2SizesPerGpuAndNamesTheTp) {
  const ExperimentResult one = RunExperiment(SmallRun(1));
  const ExperimentResult two = RunExperiment(SmallRun(2));
  const ModelSpec model = LoadModelSpec("llama-3.1-8b");
  const KvCapacity expected =
      ComputeKvCapacity(EngineConfig{}, model, LoadGpuSpec("h100-sxm"), 2);
  EXPECT_EQ(SettingText(two.info, "engine", "kv_tokens_effective", 0),
            std::to_string(expected.tokens));
  EXPECT_EQ(SettingText(two.info, "latency_model", "tp", 0), "2");
  EXPECT_NE(SettingText(two.info, "latency_model", "description", 0).find("TP=2"),
            std::string::npos);
  EXPECT_NE(SettingText(two.info, "model", "weights_gib_per_gpu", 3), "");
  // TP 1 is the default: its run description is what it was before --tp.
  EXPECT_EQ(SettingText(one.info, "latency_model", "tp", 0), "");
  EXPECT_EQ(SettingText(one.info, "model", "weights_gib_per_gpu", 3), "");
  // A TP-2 step prices half the weights plus all-reduces: a different time.
  EXPECT_NE(one.summary.makespan, two.summary.makespan);
}

}  // namespace
}  // namespace efimsim

namespace efimsim {
namespace {

// vLLM's spelling of the KV size override is the same override as
// --kv-blocks; giving both with different values is refused.
TEST(KvCapacity, NumGpuBlocksOverrideIsVllmsSpellingOfKvBlocks) {
  const ModelSpec model = LoadModelSpec("llama-3.1-8b");
  const GpuSpec gpu = LoadGpuSpec("rtx-4090");
  EngineConfig vllm_spelling;
  vllm_spelling.num_gpu_blocks_override = 2588;
  EngineConfig ours;
  ours.kv_blocks = 2588;
  EXPECT_EQ(ComputeKvCapacity(vllm_spelling, model, gpu, 1).blocks, 2588);
  EXPECT_EQ(ComputeKvCapacity(vllm_spelling, model, gpu, 1).tokens,
            ComputeKvCapacity(ours, model, gpu, 1).tokens);
  EngineConfig both = vllm_spelling;
  both.kv_blocks = 1000;
  EXPECT_THROW(ComputeKvCapacity(both, model, gpu, 1), UsageError);
  both.kv_blocks = 2588;  // the same value twice is fine
  EXPECT_EQ(ComputeKvCapacity(both, model, gpu, 1).blocks, 2588);
}

// --max-model-len caps the context the engine accepts, as vLLM's does:
// every prompt + 128 output tokens is longer than 100 tokens.
TEST(KvCapacity, MaxModelLenRefusesLongerRequests) {
  ExperimentConfig config;
  config.documents = "synthetic";
  config.users = 4;
  PaperSettings(config).rounds = 1;
  config.record_wall_time = false;
  const RunSummary all = RunExperiment(config).summary;
  EXPECT_EQ(all.engine.rejected_requests, 0);
  config.engine.max_model_len = 100;
  const ExperimentResult capped = RunExperiment(config);
  EXPECT_EQ(capped.summary.engine.rejected_requests, 4);
  bool named = false;
  for (const RunInfoSection& section : capped.info.sections) {
    for (const Setting& s : section.settings) named |= s.key == "max-model-len";
  }
  EXPECT_TRUE(named) << "a non-default --max-model-len is named in the run's description";
}

}  // namespace
}  // namespace efimsim

namespace efimsim {
namespace {

// --client-overhead-ms adds the same time to every request's TTFT and E2E
// and nothing else: TPOT, queueing and the engine's steps are unchanged.
TEST(ClientOverhead, AddsToTtftAndE2eOnly) {
  ExperimentConfig config;
  config.documents = "synthetic";
  config.users = 4;
  PaperSettings(config).rounds = 2;
  config.record_wall_time = false;
  const ExperimentResult plain = RunExperiment(config);
  config.client_overhead_ms = 25;
  const ExperimentResult seen = RunExperiment(config);
  ASSERT_EQ(plain.records.size(), seen.records.size());
  for (size_t i = 0; i < plain.records.size(); ++i) {
    EXPECT_EQ(seen.records[i].ttft() - plain.records[i].ttft(), FromSeconds(0.025));
    EXPECT_EQ(seen.records[i].e2e() - plain.records[i].e2e(), FromSeconds(0.025));
    EXPECT_EQ(seen.records[i].queueing_delay(), plain.records[i].queueing_delay());
  }
  EXPECT_NEAR(seen.summary.ttft_ms.mean - plain.summary.ttft_ms.mean, 25.0, 1e-9);
  EXPECT_DOUBLE_EQ(seen.summary.tpot_ms.mean, plain.summary.tpot_ms.mean);
  EXPECT_EQ(seen.summary.engine.steps, plain.summary.engine.steps);
}

}  // namespace
}  // namespace efimsim
