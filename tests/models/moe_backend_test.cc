// MoE backends: kernel names to backends, the shape rule restricted to one
// backend's tables (--moe-backend), its leave-one-out on the committed
// SGLang tables (which mix backends by shape), and the run's refusals.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "models/formats/shape_profile.h"
#include "models/formats/spec_catalog.h"
#include "models/import/aiconfigurator_import.h"
#include "models/latency/latency_model_registry.h"
#include "models/latency/moe_backend.h"
#include "models/latency/shape_rule.h"
#include "sim/base/errors.h"

namespace efimsim {
namespace {

TEST(MoeBackend, KernelNamesOfBothEnginesMapToTheirBackend) {
  EXPECT_EQ(MoeBackendOf("sglang_fused_moe_triton"), "triton");
  EXPECT_EQ(MoeBackendOf("vllm_fused_moe"), "triton");
  EXPECT_EQ(MoeBackendOf("vllm_unquantizedfusedmoe_triton_tritonexperts"), "triton");
  EXPECT_EQ(MoeBackendOf("sglang_flashinfer_cutlass_moe"), "flashinfer_cutlass");
  EXPECT_EQ(MoeBackendOf("vllm_fp8moe_flashinfer_trtllm_trtllmfp8expertsmodular"), "flashinfer_trtllm");
  EXPECT_EQ(MoeBackendOf("vllm_fp8moe_flashinfer_trtllm_trtllmfp8expertsmonolithic"), "flashinfer_trtllm");
  EXPECT_EQ(MoeBackendOf("sglang_marlin_moe"), "marlin");
  EXPECT_EQ(MoeBackendOf("a profiler's MoE block"), "a profiler's MoE block");
}

// A table at `utilisation` of its speed of light at every token count.
ShapeMoeTable Table(const ShapeCeilings& c, const ShapeMoeKey& key, const std::string& kernel,
                    double utilisation) {
  ShapeMoeTable t{key, kernel, false, {}};
  for (int64_t tokens = 1; tokens <= 4096; tokens *= 4) {
    t.points.push_back({tokens, MoeSolSeconds(c, key, static_cast<double>(tokens)) * 1e6 / utilisation});
  }
  return t;
}

// The target shape was measured with the CUTLASS kernel (25% of its speed of
// light); its neighbours with Triton (50%). Any backend: the measurement.
// Triton named: the Triton neighbours' utilisation at the target's shape.
TEST(MoeBackend, ANamedBackendTransfersFromItsOwnTablesOnly) {
  const ShapeCeilings c{1e15, 3e12, 0};
  const ShapeMoeKey target{"bfloat16", 2048, 768, 8, 128, 1, 1, "balanced"};
  const std::vector<ShapeMoeTable> tables = {
      Table(c, target, "sglang_flashinfer_cutlass_moe", 0.25),
      Table(c, {"bfloat16", 2048, 1536, 8, 128, 1, 1, "balanced"}, "sglang_fused_moe_triton", 0.5),
      Table(c, {"bfloat16", 4096, 768, 8, 128, 1, 1, "balanced"}, "sglang_fused_moe_triton", 0.5)};
  const auto expected = [&](int64_t tokens, double utilisation) {
    return MoeSolSeconds(c, target, static_cast<double>(tokens)) * 1e6 / utilisation;
  };
  std::string note, kernel;
  std::vector<ProfilePoint> any = TransferMoe(tables, c, target, &note, &kernel);
  EXPECT_TRUE(note.empty()) << note;
  EXPECT_EQ(kernel, "sglang_flashinfer_cutlass_moe");
  ASSERT_FALSE(any.empty());
  for (const ProfilePoint& p : any) EXPECT_NEAR(p.time_us, expected(p.key, 0.25), 1e-9 * p.time_us);

  std::vector<ProfilePoint> triton = TransferMoe(tables, c, target, &note, &kernel, "triton");
  EXPECT_NE(note.find("from 2048x1536"), std::string::npos) << note;
  EXPECT_EQ(kernel, "sglang_fused_moe_triton");
  ASSERT_EQ(triton.size(), any.size());
  for (const ProfilePoint& p : triton) EXPECT_NEAR(p.time_us, expected(p.key, 0.5), 1e-9 * p.time_us);

  EXPECT_TRUE(TransferMoe(tables, c, target, nullptr, nullptr, "flashinfer_trtllm").empty());
}

// The committed H100 SGLang tables time three bf16 shapes with FlashInfer's
// CUTLASS kernel and the rest with Triton: predicted from its own backend's
// tables each shape is nearer (measured when written: 6.9% median against
// 11.1% from any backend's).
TEST(MoeBackend, LeaveOneOutPerBackendOnTheH100SglangBf16TablesBeatsAnyBackend) {
  const ShapeProfile* p = FindBuiltinShapeProfile("h100-sxm", "aiconfigurator", "sglang");
  ASSERT_NE(p, nullptr);
  const ShapeRuleStudy any = StudyMoeShapeRule(*p, "bfloat16", false);
  const ShapeRuleStudy own = StudyMoeShapeRule(*p, "bfloat16", true);
  EXPECT_EQ(own.table, "moe bfloat16 per backend");
  EXPECT_EQ(own.shapes, any.shapes);
  EXPECT_LE(own.median, 0.10);
  EXPECT_LT(own.median, any.median);
  EXPECT_LT(own.p90, any.p90);
}

TEST(MoeBackend, TheRunSaysWhichBackendPricedTheExpertsAndRefusesWhatItCannotPrice) {
  const GpuSpec h100 = LoadGpuSpec("h100-sxm");
  const ModelSpec moe = LoadModelSpec("deepseek-coder-v2-lite");
  LatencyConfig config;
  config.options.engine = "sglang";
  config.options.moe_backend = "flashinfer_cutlass";
  const std::string described = MakeLatencyModel(config, moe, h100)->Description();
  EXPECT_NE(described.find("from flashinfer_cutlass kernels (--moe-backend)"), std::string::npos) << described;

  const auto refusal = [&](LatencyConfig c, const ModelSpec& model, const GpuSpec& gpu) {
    try {
      MakeLatencyModel(c, model, gpu);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  config.options.moe_backend = "flashinfer_trtllm";  // H100 SGLang: Triton and CUTLASS tables only
  EXPECT_NE(refusal(config, moe, h100).find("has no MoE tables of it (it has: flashinfer_cutlass, triton)"),
            std::string::npos);
  config.options.moe_backend = "triton";
  EXPECT_NE(refusal(config, LoadModelSpec("llama-3.1-8b"), h100).find("has no MoE layers"), std::string::npos);
  LatencyConfig roofline = config;
  roofline.name = "roofline";
  EXPECT_NE(refusal(roofline, moe, h100).find("only with --latency-model auto or profile"), std::string::npos);
  config.options.moe_backend = "cutlass";
  EXPECT_NE(refusal(config, moe, h100).find("unknown backend 'cutlass'"), std::string::npos);
}

}  // namespace
}  // namespace efimsim
