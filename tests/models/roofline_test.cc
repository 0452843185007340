#include "models/latency/roofline_latency_model.h"

#include <gtest/gtest.h>

#include "models/formats/spec_catalog.h"
#include "sim/base/errors.h"
#include "sim/core/random.h"

namespace efimsim {
namespace {

RooflineLatencyModel Model(bool graphs = false, double launch_per_layer_us = 60.0) {
  CpuOverheadConfig cpu;
  cpu.cuda_graphs = graphs;
  cpu.eager_launch_per_layer_us = launch_per_layer_us;
  return RooflineLatencyModel(LoadModelSpec("llama-3.1-8b"), LoadGpuSpec("h100-sxm"), cpu);
}

Duration Time(const RooflineLatencyModel& m, std::vector<SequenceWork> batch) {
  return m.Predict(batch).Total();
}

TEST(ModelSpec, DerivedFiguresMatchPublishedOnes) {
  const ModelSpec llama = LoadModelSpec("llama-3.1-8b");
  EXPECT_EQ(llama.KvBytesPerToken(), 128 * 1024);
  EXPECT_NEAR(static_cast<double>(llama.TotalParams()) / 1e9, 8.03, 0.01);
  const ModelSpec deepseek = LoadModelSpec("deepseek-coder-6.7b");
  EXPECT_EQ(deepseek.KvBytesPerToken(), 512 * 1024);
  EXPECT_NEAR(static_cast<double>(deepseek.TotalParams()) / 1e9, 6.74, 0.01);
}

TEST(ModelSpec, UnknownNamesAndBadFilesAreClearErrors) {
  EXPECT_THROW(LoadModelSpec("gpt-9"), UsageError);
  EXPECT_THROW(ParseModelSpec("{\"schema_version\": 1}", "x.json"), InputError);
  EXPECT_THROW(ParseGpuSpec("not json", "g.json"), InputError);
  try {
    ParseModelSpec(R"({"schema_version": 1, "name": "m", "bogus": 1})", "m.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "m.json");
  }
}

TEST(GpuSpec, EveryBuiltinGpuSaysWhetherItsCeilingsWereMeasured) {
  // The issue's GPU list, each with datasheet figures and a stated basis.
  for (const char* name : {"h100-sxm", "h200", "a100-sxm-80g", "a100-pcie-40g", "h100-pcie", "l40s",
                           "l4", "h20", "b200", "rtx-4090", "rtx-pro-6000"}) {
    const GpuSpec gpu = LoadGpuSpec(name);
    EXPECT_GT(gpu.datasheet_bf16_tflops, gpu.achievable_bf16_tflops) << name;
    EXPECT_GT(gpu.datasheet_hbm_tbps, gpu.achievable_hbm_tbps) << name;
    EXPECT_EQ(gpu.achievable_measured, gpu.achievable_source.rfind("measured", 0) == 0) << name;
    EXPECT_GT(gpu.host_link_gbps, 0) << name;
  }
  EXPECT_TRUE(LoadGpuSpec("h100-sxm").achievable_measured);
  EXPECT_TRUE(LoadGpuSpec("l40s").achievable_measured);  // from AIConfigurator's tables
  EXPECT_FALSE(LoadGpuSpec("l4").achievable_measured);
  // PCIe parts have no NVLink: their GPU link is the PCIe rate.
  EXPECT_LE(LoadGpuSpec("l40s").interconnect_gbps, 64.0);
  EXPECT_LE(LoadGpuSpec("h100-pcie").interconnect_gbps, 64.0);
}

// The node network (MoE groups across nodes) is optional as a group: with
// its source it is read; a source without a bandwidth names the field.
TEST(GpuSpec, NetworkFiguresAreOptionalAndComeWithTheirSource) {
  const std::string base = R"({"schema_version": 1, "name": "g", "description": "d",
      "memory_bytes": 1000, "memory_source": "s", "datasheet_bf16_dense_tflops": 1,
      "datasheet_hbm_tbps": 1, "datasheet_source": "s", "achievable_bf16_tflops": 1,
      "achievable_hbm_tbps": 1, "achievable_measured": false, "achievable_source": "s")";
  EXPECT_EQ(ParseGpuSpec(base + "}", "g.json").network_gbps, 0.0);
  const GpuSpec with = ParseGpuSpec(
      base + R"(, "network_gbps": 50, "network_latency_us": 10, "network_source": "one NIC per GPU"})", "g.json");
  EXPECT_EQ(with.network_gbps, 50.0);
  EXPECT_EQ(with.network_latency_us, 10.0);
  EXPECT_EQ(with.network_source, "one NIC per GPU");
  try {
    ParseGpuSpec(base + R"(, "network_source": "s"})", "g.json");
    FAIL() << "a network source needs its bandwidth";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("network_gbps"), std::string::npos) << e.what();
  }
  for (const char* name : {"h100-sxm", "h200", "b200", "a100-sxm-80g"}) {  // DGX nodes: one NIC per GPU
    EXPECT_GT(LoadGpuSpec(name).network_gbps, 0.0) << name;
    EXPECT_FALSE(LoadGpuSpec(name).network_source.empty()) << name;
  }
  EXPECT_EQ(LoadGpuSpec("l40s").network_gbps, 0.0);
}

TEST(GpuSpec, EstimatedCeilingsAreCalledEstimatesInTheRooflineDescription) {
  const RooflineLatencyModel l4(LoadModelSpec("llama-3.1-8b"), LoadGpuSpec("l4"), CpuOverheadConfig{});
  EXPECT_NE(l4.Description().find("estimated from the datasheet, not measured"), std::string::npos);
  EXPECT_NE(Model().Description().find("measured ceilings"), std::string::npos);
}

TEST(GpuSpec, AchievableMeasuredIsRequired) {
  const std::string without = R"({"schema_version": 1, "name": "g", "description": "d",
      "memory_bytes": 1000, "memory_source": "s", "datasheet_bf16_dense_tflops": 1,
      "datasheet_hbm_tbps": 1, "datasheet_source": "s", "achievable_bf16_tflops": 1,
      "achievable_hbm_tbps": 1, "achievable_source": "s"})";
  try {
    ParseGpuSpec(without, "g.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("achievable_measured"), std::string::npos) << e.what();
  }
}

TEST(Roofline, BreakdownSumsToTotal) {
  const auto m = Model();
  const StepCost cost = m.Predict(std::vector<SequenceWork>{{512, 1024, true}, {1, 3000, true}});
  EXPECT_EQ(cost.Total(), cost.gemm + cost.attention + cost.elementwise + cost.lm_head +
                              cost.communication + cost.cpu_overhead);
  EXPECT_GT(cost.gemm.count(), 0);
  EXPECT_GT(cost.attention.count(), 0);
  EXPECT_GT(cost.lm_head.count(), 0);
}

TEST(Roofline, MonotoneInNewTokensAndContext) {
  const auto m = Model();
  Duration previous{0};
  for (int64_t n : {1, 16, 128, 512, 2048, 8192}) {
    const Duration t = Time(m, {{n, 0, true}});
    EXPECT_GE(t, previous) << n;
    previous = t;
  }
  previous = Duration{0};
  for (int64_t c : {0, 1000, 4000, 16000, 64000}) {
    const Duration t = Time(m, {{256, c, true}});
    EXPECT_GE(t, previous) << c;
    previous = t;
  }
}

TEST(Roofline, MixedStepCostsLessThanItsPartsRunSeparately) {
  const auto m = Model();
  const Duration mixed = Time(m, {{1024, 0, true}, {1, 2000, true}, {1, 3000, true}});
  const Duration apart = Time(m, {{1024, 0, true}}) + Time(m, {{1, 2000, true}, {1, 3000, true}});
  EXPECT_LT(mixed, apart);
}

TEST(Roofline, AttentionIsPricedPerSequenceNotFromTheAverageLength) {
  const auto m = Model();
  // Same totals (new tokens 2, context 8000), different skew.
  const StepCost skewed = m.Predict(std::vector<SequenceWork>{{1, 7999, true}, {1, 1, true}});
  const StepCost even = m.Predict(std::vector<SequenceWork>{{1, 4000, true}, {1, 4000, true}});
  EXPECT_NEAR(static_cast<double>(skewed.attention.count()),
              static_cast<double>(even.attention.count()),
              0.01 * static_cast<double>(even.attention.count()));
  // A long prefill chunk over a cached prefix costs more attention than the
  // same chunk alone.
  EXPECT_GT(m.Predict(std::vector<SequenceWork>{{512, 4096, true}}).attention,
            m.Predict(std::vector<SequenceWork>{{512, 0, true}}).attention);
}

TEST(Roofline, LmHeadOnlyForSequencesThatEmit) {
  const auto m = Model();
  EXPECT_EQ(m.Predict(std::vector<SequenceWork>{{512, 0, false}}).lm_head.count(), 0);
  EXPECT_GT(m.Predict(std::vector<SequenceWork>{{512, 0, true}}).lm_head.count(), 0);
}

TEST(Roofline, EagerLaunchTimeHidesBehindGpuTimeUnlessItIsLonger) {
  const std::vector<SequenceWork> decode = {{1, 100, true}};
  // 32 layers x 60 us = 1.9 ms of launches hide behind ~5.4 ms of weight reads.
  EXPECT_EQ(Model(false, 60.0).Predict(decode).cpu_overhead,
            Model(false, 0.0).Predict(decode).cpu_overhead);
  // 32 x 500 us = 16 ms of launches do not: eager pays the difference.
  EXPECT_GT(Time(Model(false, 500.0), decode), Time(Model(false, 60.0), decode));
}

TEST(Roofline, CudaGraphsRemoveLaunchCostOfDecodeOnlyStepsOnly) {
  const std::vector<SequenceWork> decode = {{1, 100, true}};
  EXPECT_LT(Time(Model(true, 500.0), decode), Time(Model(false, 500.0), decode));
  const std::vector<SequenceWork> prefill = {{2048, 0, true}};
  EXPECT_EQ(Time(Model(true, 500.0), prefill), Time(Model(false, 500.0), prefill));
}

TEST(Roofline, PadsGraphBatchesToCaptureSizes) {
  EXPECT_EQ(PadToCaptureSize(1), 1);
  EXPECT_EQ(PadToCaptureSize(3), 4);
  EXPECT_EQ(PadToCaptureSize(9), 16);
  EXPECT_EQ(PadToCaptureSize(512), 512);
  EXPECT_EQ(PadToCaptureSize(600), 600);
}

TEST(Roofline, LargePrefillApproachesTheComputeCeiling) {
  const auto m = Model();
  const ModelSpec spec = LoadModelSpec("llama-3.1-8b");
  const StepCost cost = m.Predict(std::vector<SequenceWork>{{8192, 0, true}});
  const double flops = 2.0 * 8192 * static_cast<double>(spec.LinearParams());
  EXPECT_NEAR(ToSeconds(cost.gemm), flops / 790e12, 0.02 * flops / 790e12);
}

}  // namespace
}  // namespace efimsim

namespace efimsim {
namespace {

// The roofline timer prices a step's decode sequences in one loop; the
// base class's per-sequence loop is the reference, to the bit.
TEST(RooflineOperatorTimer, DecodeSharesEqualThePerSequenceLoopExactly) {
  const ModelSpec model = LoadModelSpec("llama-3.1-8b");
  for (const int64_t tp : {1, 2}) {
    const RooflineOperatorTimer timer(ShardModel(model, tp), LoadGpuSpec("h100-sxm"));
    RandomStream rng = RandomStream::Derive(3, static_cast<uint64_t>(tp), "test.decode_shares");
    for (int trial = 0; trial < 200; ++trial) {
      std::vector<SequenceWork> step(static_cast<size_t>(rng.UniformInt(1, 300)));
      int64_t decodes = 0;
      for (SequenceWork& seq : step) {
        seq.new_tokens = rng.UniformInt(0, 3) == 0 ? rng.UniformInt(2, 2048) : 1;
        seq.context_tokens = rng.UniformInt(0, 130000);
        decodes += seq.new_tokens == 1 ? 1 : 0;
      }
      if (decodes == 0) continue;
      const OperatorTime fast = timer.DecodeAttentionShares(step, decodes);
      const OperatorTime reference = timer.OperatorTimer::DecodeAttentionShares(step, decodes);
      ASSERT_EQ(fast.seconds, reference.seconds) << "trial " << trial;  // bitwise, not near
      EXPECT_EQ(fast.extrapolated, reference.extrapolated);
      EXPECT_EQ(fast.source, reference.source);
    }
  }
}

}  // namespace
}  // namespace efimsim
