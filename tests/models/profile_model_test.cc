#include "models/latency/profile_latency_model.h"

#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>

#include "models/latency/latency_model_registry.h"
#include "models/latency/roofline_latency_model.h"
#include "models/formats/spec_catalog.h"
#include "models/latency/step_graph.h"
#include "sim/base/errors.h"
#include "tests/models/synthetic_profile.h"

namespace efimsim {
namespace {

std::string TestData(const std::string& name) {
  return (std::filesystem::path(__FILE__).parent_path() / "testdata" / name).string();
}

CpuOverheadConfig Cpu(bool graphs = false, double launch_per_layer_us = 60.0) {
  CpuOverheadConfig cpu;
  cpu.cuda_graphs = graphs;
  cpu.eager_launch_per_layer_us = launch_per_layer_us;
  return cpu;
}

ProfileLatencyModel Profiled(int64_t tp = 1, CpuOverheadConfig cpu = Cpu()) {
  const ModelSpec model = LoadModelSpec("llama-3.1-8b");
  return ProfileLatencyModel(model, LoadGpuSpec("h100-sxm"), cpu,
                             testing::SyntheticProfile(model, "h100-sxm"), tp);
}

Duration Time(const LatencyModel& m, std::vector<SequenceWork> batch) {
  return m.Predict(batch).Total();
}

const OperatorCost& Row(const StepBreakdown& b, const std::string& name) {
  for (const OperatorCost& op : b.operators) {
    if (op.name == name) return op;
  }
  throw std::runtime_error("no operator " + name);
}

TEST(ProfileModel, ReproducesMeasuredGemmTimesAtGridPoints) {
  const auto m = Profiled();
  const ModelSpec spec = LoadModelSpec("llama-3.1-8b");
  const ShardShapes s = ShardModel(spec, 1);
  for (int64_t tokens : {16, 256, 4096}) {
    const StepBreakdown b = m.Explain(std::vector<SequenceWork>{{tokens, 0, false}});
    const OperatorCost& qkv = Row(b, "qkv_proj");
    EXPECT_FALSE(qkv.extrapolated);
    EXPECT_EQ(qkv.source, "profile");
    EXPECT_EQ(qkv.instances, spec.layers);
    const double expected_us =
        testing::SyntheticUs(GemmWork(s, GemmId::kQkvProj, static_cast<double>(tokens))) *
        static_cast<double>(spec.layers);
    EXPECT_NEAR(ToSeconds(qkv.time) * 1e6, expected_us, 1e-3);
  }
}

TEST(ProfileModel, BreakdownSumsToTotalAndMatchesPredict) {
  for (int64_t tp : {1, 2}) {
    const auto m = Profiled(tp);
    const std::vector<SequenceWork> batch = {{512, 1024, true}, {1, 3000, true}, {1, 40000, true}};
    const StepBreakdown b = m.Explain(batch);
    Duration sum{0};
    Duration gemm{0};
    for (const OperatorCost& op : b.operators) {
      sum += op.time;
      if (op.part == StepPart::kGemm) gemm += op.time;
    }
    EXPECT_EQ(sum, b.cost.Total());
    EXPECT_EQ(gemm, b.cost.gemm);
    EXPECT_EQ(m.Predict(batch).Total(), b.cost.Total());
    EXPECT_EQ(m.Predict(batch).extrapolated, b.cost.extrapolated);
    EXPECT_TRUE(b.cost.extrapolated);  // context 40000 is beyond the decode grid
  }
}

TEST(ProfileModel, MonotoneInNewTokensAndContext) {
  const auto m = Profiled();
  Duration previous{0};
  for (int64_t n = 1; n <= 20000; n = n * 3 / 2 + 1) {
    const Duration t = Time(m, {{n, 0, true}});
    EXPECT_GE(t, previous) << n;
    previous = t;
  }
  previous = Duration{0};
  for (int64_t c = 0; c <= 100000; c = c * 3 / 2 + 100) {
    const Duration prefill = Time(m, {{300, c, true}});
    EXPECT_GE(prefill, previous) << c;
    previous = prefill;
  }
  previous = Duration{0};
  for (int64_t c = 0; c <= 100000; c = c * 3 / 2 + 100) {
    const Duration decode = Time(m, {{1, c, true}, {1, c, true}, {1, 7, true}});
    EXPECT_GE(decode, previous) << c;
    previous = decode;
  }
}

TEST(ProfileModel, MixedStepCostsLessThanItsPartsRunSeparately) {
  const auto m = Profiled();
  const Duration mixed = Time(m, {{1024, 2048, true}, {1, 2000, true}, {1, 3000, true}});
  const Duration apart =
      Time(m, {{1024, 2048, true}}) + Time(m, {{1, 2000, true}, {1, 3000, true}});
  EXPECT_LT(mixed, apart);
}

TEST(ProfileModel, DecodeAttentionOfAUniformBatchIsTheMeasuredKernel) {
  const auto m = Profiled();
  const ModelSpec spec = LoadModelSpec("llama-3.1-8b");
  const StepBreakdown b = m.Explain(std::vector<SequenceWork>(64, SequenceWork{1, 4096, true}));
  const double expected_us =
      testing::SyntheticUs(DecodeAttentionWork(ShardModel(spec, 1), 64, 4096)) *
      static_cast<double>(spec.layers);
  EXPECT_NEAR(ToSeconds(Row(b, "decode_attention").time) * 1e6, expected_us, 1e-3);
  EXPECT_FALSE(Row(b, "decode_attention").extrapolated);
}

TEST(ProfileModel, TensorParallelHalvesGemmTimeAndAddsCommunication) {
  const std::vector<SequenceWork> prefill = {{4096, 0, true}};
  const StepCost tp1 = Profiled(1).Predict(prefill);
  const StepCost tp2 = Profiled(2).Predict(prefill);
  const double ratio = ToSeconds(tp2.gemm) / ToSeconds(tp1.gemm);
  EXPECT_NEAR(ratio, 0.5, 0.03);
  EXPECT_EQ(tp1.communication.count(), 0);
  EXPECT_GT(tp2.communication.count(), 0);
  EXPECT_TRUE(tp2.extrapolated);  // rescaled from the measured full shapes
  // The roofline model does the same.
  const ModelSpec spec = LoadModelSpec("llama-3.1-8b");
  const GpuSpec gpu = LoadGpuSpec("h100-sxm");
  const StepCost r1 = RooflineLatencyModel(spec, gpu, Cpu(), 1).Predict(prefill);
  const StepCost r2 = RooflineLatencyModel(spec, gpu, Cpu(), 2).Predict(prefill);
  EXPECT_NEAR(ToSeconds(r2.gemm) / ToSeconds(r1.gemm), 0.5, 0.02);
  EXPECT_GT(r2.communication.count(), 0);
  // Two all-reduces per layer.
  const StepBreakdown b = RooflineLatencyModel(spec, gpu, Cpu(), 2).Explain(prefill);
  EXPECT_EQ(Row(b, "attn_all_reduce").instances, spec.layers);
  EXPECT_EQ(Row(b, "mlp_all_reduce").instances, spec.layers);
}

TEST(ProfileModel, TensorParallelSizeMustDivideTheModel) {
  const ModelSpec spec = LoadModelSpec("llama-3.1-8b");
  EXPECT_THROW(RooflineLatencyModel(spec, LoadGpuSpec("h100-sxm"), Cpu(), 3), UsageError);
  GpuSpec no_link = LoadGpuSpec("h100-sxm");
  no_link.interconnect_gbps = 0;
  EXPECT_THROW(RooflineLatencyModel(spec, no_link, Cpu(), 2), UsageError);
}

TEST(ProfileModel, GraphModeSkipsLaunchTermForDecodeOnlyStepsAndPads) {
  const std::vector<SequenceWork> decode = {{1, 100, true}, {1, 200, true}, {1, 300, true}};
  const auto eager = Profiled(1, Cpu(false, 500.0));
  const auto graph = Profiled(1, Cpu(true, 500.0));
  EXPECT_LT(Time(graph, decode), Time(eager, decode));
  const StepBreakdown b = graph.Explain(decode);
  EXPECT_TRUE(b.cuda_graph_step);
  EXPECT_EQ(b.gemm_tokens, 4);  // 3 decodes padded to the capture size 4
  EXPECT_EQ(Row(b, "cpu_graph_launch_exposed").time.count(), 0);
  EXPECT_GT(Row(eager.Explain(decode), "cpu_eager_launch_exposed").time.count(), 0);
  // A prefill step runs eagerly in both modes.
  const std::vector<SequenceWork> prefill = {{2048, 0, true}};
  EXPECT_EQ(Time(graph, prefill), Time(eager, prefill));
  EXPECT_EQ(PadToCaptureSize(9), 16);
  EXPECT_EQ(PadToCaptureSize(65, {1, 2, 4, 8, 16, 32, 64, 128}), 128);
  EXPECT_EQ(PadToCaptureSize(600, {1, 2, 4, 512}), 600);
}

TEST(ProfileModel, MeasuredCpuOverheadsReplaceTheConfiguredOnes) {
  const ModelSpec spec = LoadModelSpec("llama-3.1-8b");
  KernelProfile profile = testing::SyntheticProfile(spec, "h100-sxm");
  profile.cpu_overhead.source = "measured: synthetic";
  profile.cpu_overhead.step_us = 3000;
  const ProfileLatencyModel m(spec, LoadGpuSpec("h100-sxm"), Cpu(), profile);
  EXPECT_EQ(m.Overhead().step_us, 3000);
  EXPECT_EQ(Profiled().Overhead().step_us, CpuOverheadConfig{}.step_us);
}

TEST(ProfileModel, MissingKernelsFallBackToTheCalibratedFallbackAndSaySo) {
  GpuSpec gpu = LoadGpuSpec("h100-sxm");
  gpu.name = "gpu-with-no-profile";
  const auto m = MakeLatencyModel(LatencyConfig{"profile", LatencyModelOptions{}, Cpu()}, LoadModelSpec("llama-3.1-8b"), gpu);
  EXPECT_EQ(m->Name(), "fallback");
  EXPECT_NE(m->Description().find("profile: no measured kernels for GPU gpu-with-no-profile"),
            std::string::npos);
  EXPECT_NE(m->Description().find("approximate"), std::string::npos);
  const auto roofline = MakeLatencyModel(LatencyConfig{"roofline", LatencyModelOptions{}, Cpu()}, LoadModelSpec("llama-3.1-8b"), gpu);
  // Real kernels fall short of the ceilings: the fallback is slower than the roofline.
  EXPECT_GT(Time(*m, {{1, 10, true}}).count(), Time(*roofline, {{1, 10, true}}).count());
}

TEST(ProfileModel, ProfileFileIsReadAndNamedInTheDescription) {
  LatencyModelOptions options;
  options.profile_path = TestData("synthetic_profile_llama-3.1-8b_h100-sxm.json");
  const auto m = MakeLatencyModel(LatencyConfig{"profile", options, Cpu()}, LoadModelSpec("llama-3.1-8b"), LoadGpuSpec("h100-sxm"));
  EXPECT_EQ(m->Name(), "profile");
  EXPECT_NE(m->Description().find("synthetic test fixture"), std::string::npos);
  EXPECT_NE(m->Description().find("roofline for untabled sampling"), std::string::npos);
  // For another model the profile is an error naming the field.
  try {
    MakeLatencyModel(LatencyConfig{"profile", options, Cpu()}, LoadModelSpec("qwen2.5-coder-7b"), LoadGpuSpec("h100-sxm"));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "model");
  }
}

TEST(ProfileModel, ShapeMismatchIsAnInputErrorNamingTheField) {
  const ModelSpec spec = LoadModelSpec("llama-3.1-8b");
  KernelProfile profile = testing::SyntheticProfile(spec, "h100-sxm");
  profile.gemm[1].n += 1;
  try {
    ProfileLatencyModel(spec, LoadGpuSpec("h100-sxm"), Cpu(), profile);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "gemm[1].n");
  }
}

TEST(StepGraph, CriticalPathOfAChainIsTheSumOfItsOperators) {
  const StepGraph graph(3, false);
  std::vector<double> seconds(kStepOpCount, 1.0);
  const CriticalPath path = graph.Evaluate(seconds);
  const double per_layer = static_cast<double>(graph.Operators().size() - 3);
  EXPECT_DOUBLE_EQ(path.seconds, 3 * per_layer + 3);
  EXPECT_EQ(path.count_by_op[static_cast<size_t>(StepOp::kQkvProj)], 3);
  EXPECT_EQ(path.count_by_op[static_cast<size_t>(StepOp::kLmHead)], 1);
  EXPECT_EQ(path.count_by_op[static_cast<size_t>(StepOp::kMlpAllReduce)], 0);
  EXPECT_EQ(StepGraph(2, true).Operators().size(), graph.Operators().size() + 2);
}

// One duration per operator kind, with awkward binary fractions, so that a
// different order of additions would show in the last bits.
std::vector<double> AwkwardDurations() {
  std::vector<double> seconds(kStepOpCount);
  for (size_t i = 0; i < seconds.size(); ++i) seconds[i] = 1e-6 * (0.1 + 0.37 * static_cast<double>(i * i % 7));
  return seconds;
}

TEST(StepGraph, ChainShortcutEqualsTheGeneralPassBitForBit) {
  for (const bool tensor_parallel : {false, true}) {
    const StepGraph graph(32, tensor_parallel);
    const std::vector<double> seconds = AwkwardDurations();
    const CriticalPath fast = graph.Evaluate(seconds);
    const CriticalPath general = graph.EvaluateDag(seconds);
    EXPECT_EQ(fast.seconds, general.seconds);
    EXPECT_EQ(fast.seconds_by_op, general.seconds_by_op);
    EXPECT_EQ(fast.count_by_op, general.count_by_op);
  }
}

TEST(StepGraph, ThresholdedEvaluateGivesTheSameShortfallAsTheExactPath) {
  for (const bool tensor_parallel : {false, true}) {
    const StepGraph graph(32, tensor_parallel);
    const std::vector<double> seconds = AwkwardDurations();
    const CriticalPath exact = graph.Evaluate(seconds);
    // Thresholds well below, near (a few ulps either side) and above the
    // path: max(0, t - path) must come out bit-identical, and the per-kind
    // sums always exact.
    std::vector<double> thresholds = {0.0, exact.seconds * 0.5, exact.seconds * (1 - 1e-9),
                                      exact.seconds, exact.seconds * 2.0};
    double t = exact.seconds;
    for (int i = 0; i < 4; ++i) t = std::nextafter(t, 0.0);
    for (int i = 0; i < 8; ++i, t = std::nextafter(t, 1.0)) thresholds.push_back(t);
    for (const double threshold : thresholds) {
      const CriticalPath path = graph.Evaluate(seconds, threshold);
      EXPECT_EQ(std::max(0.0, threshold - path.seconds), std::max(0.0, threshold - exact.seconds))
          << "threshold " << threshold;
      EXPECT_EQ(path.seconds_by_op, exact.seconds_by_op);
      EXPECT_EQ(path.count_by_op, exact.count_by_op);
      if (threshold > exact.seconds) {
        EXPECT_EQ(path.seconds, exact.seconds);
      }
    }
    // Far below the path, the estimate is what comes back: close, not exact.
    EXPECT_NEAR(graph.Evaluate(seconds, 0.0).seconds, exact.seconds, 1e-12 * exact.seconds);
  }
}

}  // namespace
}  // namespace efimsim
