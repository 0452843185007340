// Profiles used for another model (the shape rule) or another GPU (the
// calibrated fallback's ratios): models/latency/profile_transfer.h.
#include "models/latency/profile_transfer.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "models/latency/latency_model_registry.h"
#include "models/latency/latency_validation.h"
#include "models/latency/profile_latency_model.h"
#include "models/latency/roofline_latency_model.h"
#include "models/formats/spec_catalog.h"
#include "sim/base/errors.h"

namespace efimsim {
namespace {

KernelProfile Reference(const std::string& model) {
  std::optional<KernelProfile> p = FindBuiltinKernelProfile("h100-sxm", "pytorch-reference", model);
  if (!p) throw std::runtime_error("no built-in reference profile of " + model);
  return *p;
}

std::string BuiltinFile(const std::string& model) {
  return (std::filesystem::path(__FILE__).parent_path().parent_path().parent_path() / "models" / "profiles" /
          "h100-sxm" / "pytorch-reference" / (model + ".json"))
      .string();
}

// GPU time of a step, seconds (host overhead left out).
double Gpu(const StepCost& c) {
  return ToSeconds(c.gemm + c.attention + c.elementwise + c.lm_head + c.communication);
}

CpuOverheadConfig GraphCpu() {
  CpuOverheadConfig cpu;
  cpu.cuda_graphs = true;
  return cpu;
}

const std::vector<std::vector<SequenceWork>>& Steps() {
  static const std::vector<std::vector<SequenceWork>> steps = {
      {{16, 0, true}},    {{512, 1024, true}}, {{4096, 4096, true}}, {{1, 511, true}},
      {{1, 4095, true}, {1, 100, true}, {1, 2047, true}},         {{2048, 0, true}, {1, 3000, true}}};
  return steps;
}

// The field of the InputError `f` throws; "" when it throws none.
template <typename F>
std::string ErrorField(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.field();
  }
  return "";
}

const OperatorCost& Row(const StepBreakdown& b, const std::string& name) {
  for (const OperatorCost& op : b.operators) {
    if (op.name == name) return op;
  }
  throw std::runtime_error("no operator " + name);
}

TEST(ProfileTransfer, CarryingToTheSameGpuReproducesEveryTimeButFlagsIt) {
  const ShardShapes shapes = ShardModel(LoadModelSpec("llama-3.1-8b"), 1);
  const GpuSpec h100 = LoadGpuSpec("h100-sxm");
  const RooflineOperatorTimer measured(shapes, h100);
  const auto carried = CarryTimerToGpu(std::make_unique<RooflineOperatorTimer>(shapes, h100), shapes, h100,
                                       h100, BuiltinFallbackCalibration());
  for (int64_t m : {1, 7, 512, 8192}) {
    const OperatorTime t = carried->Gemm(GemmId::kGateUpProj, m);
    EXPECT_EQ(t.seconds, measured.Gemm(GemmId::kGateUpProj, m).seconds);
    EXPECT_TRUE(t.extrapolated);
    EXPECT_EQ(t.source, "profile carried to h100-sxm");
    EXPECT_EQ(carried->Elementwise(ElementwiseId::kRmsnorm, m).seconds,
              measured.Elementwise(ElementwiseId::kRmsnorm, m).seconds);
  }
  EXPECT_EQ(carried->PrefillAttention(300, 1000).seconds, measured.PrefillAttention(300, 1000).seconds);
  EXPECT_EQ(carried->DecodeAttention(8, 2047).seconds, measured.DecodeAttention(8, 2047).seconds);
}

TEST(ProfileTransfer, CarryingToAFasterMemoryScalesMemoryBoundWorkOnly) {
  const ShardShapes shapes = ShardModel(LoadModelSpec("deepseek-coder-6.7b"), 1);
  const GpuSpec h100 = LoadGpuSpec("h100-sxm"), h200 = LoadGpuSpec("h200");
  const RooflineOperatorTimer measured(shapes, h100);
  const auto carried = CarryTimerToGpu(std::make_unique<RooflineOperatorTimer>(shapes, h100), shapes, h100,
                                       h200, BuiltinFallbackCalibration());
  // One token reads the weights (H200: 4.8 vs 3.35 TB/s); 8192 tokens are
  // compute-bound on equal datasheet compute.
  const double small = carried->Gemm(GemmId::kGateUpProj, 1).seconds / measured.Gemm(GemmId::kGateUpProj, 1).seconds;
  const double large = carried->Gemm(GemmId::kGateUpProj, 8192).seconds /
                       measured.Gemm(GemmId::kGateUpProj, 8192).seconds;
  EXPECT_GT(small, 0.65);
  EXPECT_LT(small, 0.8);
  EXPECT_NEAR(large, 1.0, 0.05);
}

TEST(ProfileTransfer, AutoCarriesAnH100ProfileToTheH200AndProfileRefusesIt) {
  LatencyModelOptions options;
  options.profile_path = BuiltinFile("deepseek-coder-6.7b");
  const ModelSpec model = LoadModelSpec("deepseek-coder-6.7b");
  const auto m = MakeLatencyModel(LatencyConfig{"auto", options, GraphCpu()}, model, LoadGpuSpec("h200"));
  EXPECT_NE(m->Description().find("carried from h100-sxm to h200 by the calibrated fallback's ratios"),
            std::string::npos)
      << m->Description();
  const auto same = MakeLatencyModel(LatencyConfig{"auto", options, GraphCpu()}, model, LoadGpuSpec("h100-sxm"));
  EXPECT_EQ(same->Description().find("carried"), std::string::npos);
  for (const auto& step : Steps()) {
    const StepBreakdown b = m->Explain(step);
    EXPECT_TRUE(b.cost.extrapolated);
    EXPECT_EQ(Row(b, "qkv_proj").source, "profile carried to h200");
    EXPECT_TRUE(Row(b, "qkv_proj").extrapolated);
    // Never slower than on the H100: the H200 has the same compute, more bandwidth.
    EXPECT_LE(Gpu(m->Predict(step)), Gpu(same->Predict(step)) * 1.0001);
  }
  // profile: the profile's own GPU only.
  EXPECT_EQ(ErrorField([&] { MakeLatencyModel(LatencyConfig{"profile", options, GraphCpu()}, model, LoadGpuSpec("h200")); }),
            "gpu");
}

TEST(ProfileTransfer, TransferringAModelsTablesToItselfReproducesItsPredictions) {
  const ModelSpec llama = LoadModelSpec("llama-3.1-8b");
  const GpuSpec h100 = LoadGpuSpec("h100-sxm");
  const KernelProfile original = Reference("llama-3.1-8b");
  ShapeResolution r;
  const KernelProfile self = TransferKernelProfile(original, llama, llama, h100, 1, &r);
  EXPECT_EQ(r.gemm_measured, 5);
  EXPECT_TRUE(r.prefill_heads_measured && r.decode_heads_measured);
  EXPECT_EQ(self.prefill_attention.points.size(), original.prefill_attention.points.size());
  ASSERT_EQ(self.elementwise.size(), original.elementwise.size());
  for (size_t i = 0; i < self.elementwise.size(); ++i) EXPECT_EQ(self.elementwise[i].source, original.elementwise[i].source);
  const ProfileLatencyModel a(llama, h100, GraphCpu(), original);
  const ProfileLatencyModel b(llama, h100, GraphCpu(), self);
  for (const auto& step : Steps()) {
    EXPECT_EQ(Gpu(a.Predict(step)), Gpu(b.Predict(step)));
    EXPECT_EQ(a.Predict(step).extrapolated, b.Predict(step).extrapolated);
  }
}

TEST(ProfileTransfer, AnotherModelsTablesAreTransferredByTheShapeRuleAndFlagged) {
  LatencyModelOptions options;
  options.profile_path = BuiltinFile("llama-3.1-8b");
  const ModelSpec deepseek = LoadModelSpec("deepseek-coder-6.7b");
  const auto m = MakeLatencyModel(LatencyConfig{"auto", options, GraphCpu()}, deepseek, LoadGpuSpec("h100-sxm"));
  EXPECT_NE(m->Description().find("llama-3.1-8b tables transferred to deepseek-coder-6.7b by the shape rule"),
            std::string::npos)
      << m->Description();
  const StepBreakdown b = m->Explain(std::vector<SequenceWork>{{256, 0, true}});
  EXPECT_FALSE(Row(b, "o_proj").extrapolated);  // 4096 x 4096 in both models: measured
  EXPECT_TRUE(Row(b, "qkv_proj").extrapolated);
  EXPECT_EQ(Row(b, "qkv_proj").source, "profile (shape rule)");
  EXPECT_TRUE(Row(b, "prefill_attention").extrapolated);
  EXPECT_TRUE(Row(b, "rope").extrapolated);
  // Decode attention of 32 KV heads reads 4x the KV of 8: the memory-bound
  // transfer keeps the measured utilisation, so about 4x the time.
  const KernelProfile llama = Reference("llama-3.1-8b");
  const KernelProfile moved =
      TransferKernelProfile(llama, LoadModelSpec("llama-3.1-8b"), deepseek, LoadGpuSpec("h100-sxm"), 1);
  const AttentionPoint& widest = llama.decode_attention.points.back();
  for (const AttentionPoint& p : moved.decode_attention.points) {
    if (p.rows != widest.rows || p.context_tokens != widest.context_tokens) continue;
    EXPECT_GT(p.time_us / widest.time_us, 3.0);
    EXPECT_LT(p.time_us / widest.time_us, 4.5);
  }
  // profile: the profile's own model only.
  EXPECT_EQ(ErrorField([&] { MakeLatencyModel(LatencyConfig{"profile", options, GraphCpu()}, deepseek, LoadGpuSpec("h100-sxm")); }),
            "model");
}

TEST(ProfileTransfer, AProfileOfAnUnknownModelCannotBeTransferred) {
  KernelProfile p = Reference("llama-3.1-8b");
  p.model = "no-such-model";
  EXPECT_EQ(ErrorField([&] {
              MakeTransferredProfileModel(LoadModelSpec("deepseek-coder-6.7b"), LoadGpuSpec("h100-sxm"),
                                          GraphCpu(), p, 1);
            }),
            "model");
}

// The prefill+decode summary of `profile_model` (built-in pytorch-reference
// profile) priced for deepseek-coder-6.7b on `gpu` under auto, against the
// PyTorch reference's steps measured on `steps_gpu` (docs/accuracy.md,
// "Leave-one-out"); nullopt when the shared data is absent.
std::optional<ErrorSummary> LeaveOneOut(const std::string& profile_model, const std::string& gpu,
                                        const std::string& steps_gpu) {
  const std::string path = std::string(EFIMSIM_SHARED_DATA_DIR) + "/gpu/" + steps_gpu +
                           "-pytorch-reference/deepseek-coder-6.7b.steps.json";
  if (!std::filesystem::exists(path)) return std::nullopt;
  LatencyModelOptions options;
  options.profile_path = BuiltinFile(profile_model);
  const ModelSpec model = LoadModelSpec("deepseek-coder-6.7b");
  const auto eager = MakeLatencyModel(LatencyConfig{"auto", options, CpuOverheadConfig()}, model, LoadGpuSpec(gpu));
  const auto graph = MakeLatencyModel(LatencyConfig{"auto", options, GraphCpu()}, model, LoadGpuSpec(gpu));
  const ValidationReport report = ValidateLatency(LoadMeasuredSteps(path), *eager, *graph, true, 0, StepTiming::kGpu);
  for (const ErrorSummary& s : report.summaries) {
    if (s.kind == "prefill+decode") return s;
  }
  return ErrorSummary{};
}

TEST(LeaveOneOut, DeepseekFromLlamasTablesMeetsItsGoal) {
  const std::optional<ErrorSummary> s = LeaveOneOut("llama-3.1-8b", "h100-sxm", "h100");
  if (!s) GTEST_SKIP() << "no shared H100 steps";
  EXPECT_GE(s->rows, 60);
  EXPECT_LE(s->median, 0.08);  // measured 2.8% (p90 22.1%)
}

TEST(LeaveOneOut, DeepseekOnTheH200FromH100TablesMeetsItsGoal) {
  const std::optional<ErrorSummary> s = LeaveOneOut("deepseek-coder-6.7b", "h200", "h200");
  if (!s) GTEST_SKIP() << "no shared H200 steps";
  EXPECT_GE(s->rows, 60);
  EXPECT_LE(s->median, 0.15);  // measured 6.1% (p90 13.8%)
}

}  // namespace
}  // namespace efimsim
