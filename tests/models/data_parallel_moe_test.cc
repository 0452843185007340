// Data-parallel MoE groups (--data-parallel-size): how the experts shard
// over the group's GPUs, the weight and KV figures that follow, and how a
// rank's step is priced (padded to the group's largest batch, experts over
// every rank's rows, the dispatch and combine at the interconnect's bound,
// or the network's for a group across nodes).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <string>

#include "models/formats/spec_catalog.h"
#include "models/latency/operator_work.h"
#include "models/latency/roofline_latency_model.h"
#include "sim/base/errors.h"
#include "sim/engine/kv_capacity.h"

namespace efimsim {
namespace {

// Qwen3-Coder-30B-A3B: 128 experts of FFN 768, top-8, hidden 2048.
ModelSpec Qwen3Moe(int64_t data_parallel, bool expert_parallel) {
  ServingFormat format;
  format.expert_parallel = expert_parallel;
  format.data_parallel = data_parallel;
  return ServedAs(LoadModelSpec("qwen3-coder-30b-a3b"), format);
}

TEST(DataParallelShards, ExpertsSpreadOverEveryRanksGpus) {
  const ShardShapes ep = ShardModel(Qwen3Moe(2, true), 1);
  EXPECT_EQ(ep.data_parallel, 2);
  EXPECT_EQ(ep.expert_parallel, 2);
  EXPECT_EQ(ep.experts_per_gpu, 64);
  EXPECT_EQ(ep.expert_ffn, 768);
  EXPECT_EQ(ep.MoeTensorParallel(), 1);
  // Without expert parallelism vLLM splits every expert over the group.
  const ShardShapes tp = ShardModel(Qwen3Moe(4, false), 2);
  EXPECT_EQ(tp.experts_per_gpu, 128);
  EXPECT_EQ(tp.expert_ffn, 768 / 8);
  EXPECT_EQ(tp.MoeTensorParallel(), 8);
  // Attention stays the rank's own: its TP's heads.
  EXPECT_EQ(tp.q_heads, ShardModel(Qwen3Moe(1, false), 2).q_heads);
}

TEST(DataParallelShards, EachGpuHoldsItsShareOfTheExpertsAndAllOfTheRest) {
  const ModelSpec alone = Qwen3Moe(1, false);
  const ModelSpec group = Qwen3Moe(2, true);
  const int64_t one_gpu = ShardWeightBytes(alone, ShardModel(alone, 1));
  const int64_t rank_gpu = ShardWeightBytes(group, ShardModel(group, 1));
  const int64_t experts = alone.MoeLayers() * alone.moe.experts * alone.MoeExpertParams() * alone.dtype_bytes;
  EXPECT_EQ(one_gpu - rank_gpu, experts / 2);
  // So a rank's GPU has more room for KV than the model alone on one GPU.
  const GpuSpec gpu = LoadGpuSpec("h100-sxm");
  EXPECT_GT(ComputeKvCapacity(EngineConfig{}, group, gpu, 1).blocks,
            ComputeKvCapacity(EngineConfig{}, alone, gpu, 1).blocks);
}

TEST(DataParallelShards, GroupsAcrossNodesFillWholeNodesAndUndividedExpertsAreRefused) {
  // 16 GPUs: two whole nodes of 8.
  const ShardShapes two_nodes = ShardModel(Qwen3Moe(4, true), 4);
  EXPECT_TRUE(two_nodes.MoeGroupSpansNodes());
  EXPECT_EQ(two_nodes.expert_parallel, 16);
  EXPECT_EQ(two_nodes.experts_per_gpu, 128 / 16);
  EXPECT_FALSE(ShardModel(Qwen3Moe(4, true), 2).MoeGroupSpansNodes());  // 8 GPUs: one node
  try {
    ShardModel(Qwen3Moe(3, true), 4);  // 12 GPUs: a node and a half
    FAIL() << "12 GPUs do not fill whole nodes";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("whole nodes of 8"), std::string::npos) << e.what();
  }
  try {
    ShardModel(Qwen3Moe(3, true), 1);
    FAIL() << "3 ranks do not divide 128 experts";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--data-parallel-size 3"), std::string::npos) << e.what();
  }
  ServingFormat none;
  none.data_parallel = 0;
  EXPECT_THROW(ServedAs(LoadModelSpec("qwen3-coder-30b-a3b"), none), UsageError);
  // A dense model's ranks share nothing: its shapes do not change.
  ServingFormat dense;
  dense.data_parallel = 4;
  const ModelSpec llama = ServedAs(LoadModelSpec("llama-3.1-8b"), dense);
  EXPECT_EQ(ShardWeightBytes(llama, ShardModel(llama, 1)), LoadModelSpec("llama-3.1-8b").WeightBytes());
}

TEST(DataParallelRoofline, AGpuWithoutAnInterconnectFigureIsRefusedWhereGpusTalk) {
  GpuSpec gpu = LoadGpuSpec("h100-sxm");
  gpu.interconnect_gbps = 0;
  auto message = [&](const ShardShapes& shapes) {
    try {
      RooflineOperatorTimer timer(shapes, gpu);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message(ShardModel(Qwen3Moe(2, true), 1)).find("--data-parallel-size 2"), std::string::npos);
  EXPECT_NE(message(ShardModel(Qwen3Moe(1, false), 2)).find("--tp 2"), std::string::npos);
  EXPECT_EQ(message(ShardModel(Qwen3Moe(1, false), 1)), "");  // one GPU: nothing to price
  ServingFormat dense;
  dense.data_parallel = 2;
  EXPECT_EQ(message(ShardModel(ServedAs(LoadModelSpec("llama-3.1-8b"), dense), 1)), "");  // independent ranks
}

TEST(DataParallelRoofline, AGroupAcrossNodesIsPricedAtTheNetworkAndRefusedWithoutIt) {
  const GpuSpec gpu = LoadGpuSpec("h100-sxm");
  ASSERT_GT(gpu.network_gbps, 0.0);
  ASSERT_GT(gpu.interconnect_gbps, gpu.network_gbps);
  // 8 ranks of TP 1 (one node) against 16 of TP 1 (two nodes), at the same
  // rows: the second moves 15/7 of the bytes over a link 9 times slower.
  const ShardShapes one_node = ShardModel(Qwen3Moe(8, true), 1);
  const ShardShapes two_nodes = ShardModel(Qwen3Moe(16, true), 1);
  const OperatorTime near = RooflineOperatorTimer(one_node, gpu).MoeDispatchCombine(64);
  const OperatorTime far = RooflineOperatorTimer(two_nodes, gpu).MoeDispatchCombine(64);
  EXPECT_NEAR(near.seconds, MoeDispatchCombineBytes(one_node, 64) / (gpu.interconnect_gbps * 1e9) +
                                2e-6 * gpu.interconnect_latency_us, 1e-12);
  EXPECT_NEAR(far.seconds, MoeDispatchCombineBytes(two_nodes, 64) / (gpu.network_gbps * 1e9) +
                               2e-6 * gpu.network_latency_us, 1e-12);
  EXPECT_NE(far.source.find("network_gbps"), std::string::npos) << far.source;
  EXPECT_GT(far.seconds, 2.0 * near.seconds);
  GpuSpec no_network = gpu;
  no_network.network_gbps = 0;
  try {
    RooflineOperatorTimer timer(two_nodes, no_network);
    FAIL() << "a group across nodes needs the GPU spec's network figure";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("network_gbps"), std::string::npos) << e.what();
  }
  RooflineOperatorTimer within_a_node(one_node, no_network);  // NVLink only: accepted
}

TEST(DataParallelWork, DispatchAndCombineMoveEveryOtherRanksRowsTwice) {
  const ShardShapes s = ShardModel(Qwen3Moe(4, true), 2);
  // 3 other ranks x 10 rows x 2048 x 2 bytes, gathered and scattered.
  EXPECT_DOUBLE_EQ(MoeDispatchCombineBytes(s, 10.0), 2.0 * 3 * 10 * 2048 * 2);
  EXPECT_DOUBLE_EQ(MoeDispatchCombineBytes(ShardModel(Qwen3Moe(1, true), 2), 10.0), 0.0);
}

TEST(DataParallelRoofline, ARankIsPricedAtTheGroupsLargestBatch) {
  const GpuSpec gpu = LoadGpuSpec("h100-sxm");
  const RooflineLatencyModel group(Qwen3Moe(2, true), gpu, CpuOverheadConfig{}, 1);
  const std::array<SequenceWork, 1> decode = {SequenceWork{1, 1000, true, 1}};
  const StepCost own = group.Predict(decode);
  const StepCost padded = group.PredictInGroup(decode, 2048);
  EXPECT_GT(padded.gemm, own.gemm);                    // GEMMs over 2048 padded rows
  EXPECT_GT(padded.communication, own.communication);  // and their dispatch
  EXPECT_EQ(padded.attention, own.attention);          // attention is the rank's own
  EXPECT_EQ(group.PredictInGroup(decode, 1).Total(), own.Total());
  // The step has the dispatch/combine operator, and a model alone has none.
  auto has_exchange = [&](const LatencyModel& model) {
    const StepBreakdown b = model.Explain(decode);
    return std::any_of(b.operators.begin(), b.operators.end(),
                       [](const OperatorCost& op) { return op.name == "moe_dispatch_combine" && op.time > Duration{0}; });
  };
  EXPECT_TRUE(has_exchange(group));
  EXPECT_FALSE(has_exchange(RooflineLatencyModel(Qwen3Moe(1, true), gpu, CpuOverheadConfig{}, 2)));
  EXPECT_NE(group.Description().find("2 data-parallel ranks"), std::string::npos) << group.Description();
}

TEST(DataParallelRoofline, ExpertsRunOverEveryRanksRows) {
  // Two ranks of 64 rows run the experts over 128 rows: as one GPU holding
  // all experts over 128 rows would, per expert-row, on half the experts.
  const GpuSpec gpu = LoadGpuSpec("h100-sxm");
  const RooflineOperatorTimer group(ShardModel(Qwen3Moe(2, true), 1), gpu);
  const ShardShapes s = ShardModel(Qwen3Moe(2, true), 1);
  EXPECT_DOUBLE_EQ(MoeExpertsWork(s, 128.0).flops, 128.0 * 8 / 2 * 6 * 2048 * 768);
  EXPECT_GT(group.MoeDispatchCombine(64).seconds, 0.0);
}

}  // namespace
}  // namespace efimsim
