#include "models/latency/calibrated_fallback.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "models/latency/roofline_latency_model.h"
#include "models/formats/spec_catalog.h"
#include "sim/base/errors.h"

namespace efimsim {
namespace {

CalibratedFallbackOperatorTimer Timer(const std::string& gpu = "h100-sxm", int64_t tp = 1,
                                      const std::string& model = "llama-3.1-8b") {
  return CalibratedFallbackOperatorTimer(ShardModel(LoadModelSpec(model), tp), LoadGpuSpec(gpu),
                                         BuiltinFallbackCalibration());
}

RooflineOperatorTimer Roofline(const std::string& gpu = "h100-sxm",
                               const std::string& model = "llama-3.1-8b") {
  return RooflineOperatorTimer(ShardModel(LoadModelSpec(model), 1), LoadGpuSpec(gpu));
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(CalibratedFallback, BuiltinCalibrationParsesAndNamesItsSources) {
  const FallbackCalibration& c = BuiltinFallbackCalibration();
  EXPECT_EQ(c.fitted_on, (std::vector<std::string>{"a100-sxm-80g", "b200", "h100-sxm", "h200",
                                                   "l40s"}));
  for (const std::string& gpu : c.fitted_on) EXPECT_NO_THROW(LoadGpuSpec(gpu)) << gpu;
  EXPECT_TRUE(Contains(c.source, "AIConfigurator")) << c.source;
  EXPECT_TRUE(Contains(c.command, "notebooks/fit_fallback.py")) << c.command;
  EXPECT_FALSE(c.elementwise.fitted);
  // The point of the fallback: at real models' shapes on a GPU left out of
  // the fit it is closer than the bare roofline.
  for (const EfficiencyCurve* curve : {&c.gemm, &c.prefill_attention, &c.decode_attention}) {
    EXPECT_TRUE(curve->fitted);
    EXPECT_GT(curve->fallback_error.points, 100);
    EXPECT_LT(curve->fallback_error.median, curve->roofline_error.median);
    EXPECT_LT(curve->fallback_error.p90, curve->roofline_error.p90);
  }
  EXPECT_GT(c.all_reduce.fallback_error.points, 0);
}

TEST(CalibratedFallback, ReproducesTheFittingScriptsValues) {
  // The script stores the seconds it predicts at a few works: the C++ form
  // must be the script's form.
  const FallbackCalibration& c = BuiltinFallbackCalibration();
  ASSERT_GE(c.checks.size(), 15u);
  for (const FallbackCheck& check : c.checks) {
    const EfficiencyCurve* curve = c.Curve(check.operator_class);
    ASSERT_NE(curve, nullptr) << check.operator_class;
    const GpuSpec gpu = LoadGpuSpec(check.gpu);
    const double bandwidth = check.operator_class == "all_reduce" ? gpu.interconnect_gbps * 1e9
                                                                  : gpu.datasheet_hbm_tbps * 1e12;
    const double seconds =
        curve->Seconds(check.flops, check.bytes, gpu.datasheet_bf16_tflops * 1e12, bandwidth);
    EXPECT_NEAR(seconds / check.seconds, 1.0, 1e-9) << check.operator_class << " " << check.flops;
  }
}

TEST(CalibratedFallback, SlowerThanTheRooflineOnSmallGemms) {
  // H100 measured 5.0 us for a 1 x 1536 x 1536 product (AIConfigurator),
  // the roofline says 1.6 us: launch-bound work is where it is too fast.
  const auto fallback = Timer("h100-sxm", 1, "qwen2.5-coder-1.5b");
  const auto roofline = Roofline("h100-sxm", "qwen2.5-coder-1.5b");
  for (GemmId id : {GemmId::kQkvProj, GemmId::kOProj}) {
    for (int64_t m : {1, 16}) {
      EXPECT_GT(fallback.Gemm(id, m).seconds, 2.0 * roofline.Gemm(id, m).seconds);
    }
  }
  // Memory-bound but larger (1 x 6144 x 4096: 19.9 us measured): still not faster.
  EXPECT_GT(Timer().Gemm(GemmId::kQkvProj, 1).seconds,
            Roofline().Gemm(GemmId::kQkvProj, 1).seconds);
}

TEST(CalibratedFallback, LargeGemmsApproachTheMeasuredCeiling) {
  // H100's measured 8192^3 product is ~790 of 989 TFLOP/s: a large GEMM's
  // efficiency should land near 0.8 of the datasheet, where the roofline
  // (at the measured ceiling) already is.
  const ShardShapes shapes = ShardModel(LoadModelSpec("llama-3.1-8b"), 1);
  const GpuSpec gpu = LoadGpuSpec("h100-sxm");
  const OperatorWork work = GemmWork(shapes, GemmId::kGateUpProj, 16384.0);
  const double efficiency = BuiltinFallbackCalibration().gemm.Efficiency(
      work.flops, work.bytes, gpu.datasheet_bf16_tflops * 1e12, gpu.datasheet_hbm_tbps * 1e12);
  EXPECT_GT(efficiency, 0.65);
  EXPECT_LT(efficiency, 0.9);
  const double ratio = Timer().Gemm(GemmId::kGateUpProj, 16384).seconds /
                       Roofline().Gemm(GemmId::kGateUpProj, 16384).seconds;
  EXPECT_GT(ratio, 0.9);
  EXPECT_LT(ratio, 1.2);
}

TEST(CalibratedFallback, MonotoneInWork) {
  const auto timer = Timer();
  double gemm = 0, prefill = 0, decode_context = 0, decode_batch = 0, norm = 0;
  for (int64_t x = 1; x <= 32768; x = x * 3 / 2 + 1) {
    const double g = timer.Gemm(GemmId::kGateUpProj, x).seconds;
    const double p = timer.PrefillAttention(x, 0).seconds;
    const double dc = timer.DecodeAttention(8, x).seconds;
    const double db = timer.DecodeAttention(x, 1024).seconds;
    const double n = timer.Elementwise(ElementwiseId::kRmsnorm, x).seconds;
    EXPECT_GE(g, gemm) << x;
    EXPECT_GE(p, prefill) << x;
    EXPECT_GE(dc, decode_context) << x;
    EXPECT_GE(db, decode_batch) << x;
    EXPECT_GE(n, norm) << x;
    gemm = g, prefill = p, decode_context = dc, decode_batch = db, norm = n;
  }
}

TEST(CalibratedFallback, EveryOperatorIsFlaggedAsFallback) {
  const auto timer = Timer("rtx-pro-6000", 2);
  const SequenceWork step[] = {{1, 100, true}, {512, 0, true}, {1, 4000, true}};
  for (const OperatorTime& t :
       {timer.Gemm(GemmId::kLmHead, 3), timer.PrefillAttention(512, 0),
        timer.DecodeAttention(2, 100), timer.DecodeAttentionShares(step, 2),
        timer.Elementwise(ElementwiseId::kSampling, 3), timer.AllReduce(514)}) {
    EXPECT_TRUE(t.extrapolated);
    EXPECT_EQ(t.source, "fallback (fitted efficiency)");
    EXPECT_GT(t.seconds, 0);
  }
  const auto model = MakeCalibratedFallbackLatencyModel(
      LoadModelSpec("llama-3.1-8b"), LoadGpuSpec("rtx-pro-6000"), CpuOverheadConfig{}, 2);
  const StepBreakdown breakdown = model->Explain(step);
  EXPECT_TRUE(breakdown.cost.extrapolated);
  for (const OperatorCost& op : breakdown.operators) {
    if (op.part != StepPart::kCpuOverhead) {
      EXPECT_EQ(op.source, "fallback (fitted efficiency)");
    }
  }
}

TEST(CalibratedFallback, DecodeSharesMatchTheDefaultBitForBit) {
  const auto timer = Timer("l40s");
  const SequenceWork step[] = {{1, 7, true}, {300, 50, true}, {1, 9000, true}, {1, 0, true}};
  const OperatorTime fast = timer.DecodeAttentionShares(step, 3);
  const OperatorTime slow = timer.OperatorTimer::DecodeAttentionShares(step, 3);
  EXPECT_EQ(fast.seconds, slow.seconds);
  EXPECT_EQ(fast.extrapolated, slow.extrapolated);
  EXPECT_EQ(fast.source, slow.source);
}

TEST(CalibratedFallback, AllReduceGrowsWithTokensAndNeedsALink) {
  const auto timer = Timer("h100-sxm", 4);
  EXPECT_GT(timer.AllReduce(1).seconds, 0);
  EXPECT_GT(timer.AllReduce(8192).seconds, timer.AllReduce(1).seconds);
  EXPECT_EQ(Timer("h100-sxm", 1).AllReduce(64).seconds, 0);
  GpuSpec no_link = LoadGpuSpec("h100-sxm");
  no_link.interconnect_gbps = 0;
  EXPECT_THROW(CalibratedFallbackOperatorTimer(ShardModel(LoadModelSpec("llama-3.1-8b"), 2),
                                               no_link, BuiltinFallbackCalibration()),
               UsageError);
}

TEST(CalibratedFallback, NameAndDescriptionSayWhatItRestsOn) {
  const ModelSpec model = LoadModelSpec("qwen3-32b");
  const auto unseen = MakeCalibratedFallbackLatencyModel(model, LoadGpuSpec("rtx-pro-6000"),
                                                         CpuOverheadConfig{}, 1);
  EXPECT_EQ(unseen->Name(), "fallback");
  const std::string text = unseen->Description();
  for (const char* part : {"approximate", "rtx-pro-6000", "qwen3-32b", "datasheet", "504 TFLOP/s",
                           "1.79 TB/s", "AIConfigurator", "a100-sxm-80g, b200, h100-sxm, h200, l40s",
                           "leave-one-GPU-out", "GEMM ", "decode attention ", "not fitted"}) {
    EXPECT_TRUE(Contains(text, part)) << part << " in: " << text;
  }
  EXPECT_FALSE(Contains(text, "own tables are in the fit"));
  const auto seen = MakeCalibratedFallbackLatencyModel(model, LoadGpuSpec("h100-sxm"),
                                                       CpuOverheadConfig{}, 2);
  EXPECT_TRUE(Contains(seen->Description(), "own tables are in the fit"));
  EXPECT_TRUE(Contains(seen->Description(), "interconnect_gbps"));
}

TEST(CalibratedFallback, StepsAreSlowerThanTheBareRoofline) {
  // The bare roofline is optimistic everywhere the tables were measured; the
  // fallback must not be faster on a whole decode or prefill step.
  const ModelSpec model = LoadModelSpec("llama-3.1-8b");
  for (const char* gpu : {"rtx-pro-6000", "h100-sxm", "l4"}) {
    const auto fallback =
        MakeCalibratedFallbackLatencyModel(model, LoadGpuSpec(gpu), CpuOverheadConfig{}, 1);
    const RooflineLatencyModel roofline(model, LoadGpuSpec(gpu), CpuOverheadConfig{});
    for (const std::vector<SequenceWork>& step :
         {std::vector<SequenceWork>{{1, 2000, true}}, std::vector<SequenceWork>{{2048, 0, true}},
          std::vector<SequenceWork>(64, SequenceWork{1, 1000, true})}) {
      EXPECT_GT(fallback->Predict(step).Total(), roofline.Predict(step).Total()) << gpu;
    }
  }
}

TEST(CalibratedFallback, RtxPro6000IsABuiltinPcieGpuWithEstimatedCeilings) {
  const std::vector<std::string> names = BuiltinGpuNames();
  EXPECT_NE(std::find(names.begin(), names.end(), "rtx-pro-6000"), names.end());
  const GpuSpec gpu = LoadGpuSpec("rtx-pro-6000");
  EXPECT_DOUBLE_EQ(gpu.datasheet_bf16_tflops, 503.8);
  EXPECT_DOUBLE_EQ(gpu.datasheet_hbm_tbps, 1.792);
  EXPECT_FALSE(gpu.achievable_measured);
  EXPECT_TRUE(Contains(gpu.achievable_source, "estimate, not measured"));
  EXPECT_NEAR(gpu.achievable_bf16_tflops / gpu.datasheet_bf16_tflops, 0.80, 0.005);
  EXPECT_NEAR(gpu.achievable_hbm_tbps / gpu.datasheet_hbm_tbps, 0.90, 0.005);
  EXPECT_DOUBLE_EQ(gpu.interconnect_gbps, 64.0);  // PCIe 5 x16, one direction
  EXPECT_GT(static_cast<double>(gpu.memory_bytes), 96e9);
}

// A valid file with one edit, for the error tests.
std::string Edited(const std::string& from, const std::string& to) {
  std::string text(EmbeddedFallbackCalibrations().at(0).text);
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

void ExpectFieldError(const std::string& text, const std::string& field) {
  try {
    ParseFallbackCalibration(text, "e.json");
    ADD_FAILURE() << "no error for " << field;
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "e.json");
    EXPECT_EQ(e.field(), field) << e.what();
  }
}

TEST(CalibratedFallback, BadFilesAreInputErrorsNamingTheField) {
  EXPECT_NO_THROW(ParseFallbackCalibration(Edited("", ""), "e.json"));
  ExpectFieldError(Edited("\"eta_bytes\":", "\"eta_bytez\":"), "classes.gemm.eta_bytes");
  ExpectFieldError(Edited("\"p\": 1.", "\"p\": 0."), "classes.gemm.p");
  ExpectFieldError(Edited("\"schema_version\": 1", "\"schema_version\": 2"), "schema_version");
  ExpectFieldError(Edited("\"fitted_on\": [", "\"fitted_on\": [3, "), "fitted_on[0]");
  ExpectFieldError(Edited("\"command\":", "\"bogus\": 1, \"command\":"), "bogus");
  ExpectFieldError(Edited("\"eta_flops\": ", "\"eta_flops\": -"), "classes.gemm.eta_flops");
  ExpectFieldError("{", "");
}

}  // namespace
}  // namespace efimsim
