#include <filesystem>

#include <gtest/gtest.h>

#include "models/formats/kernel_profile.h"
#include "models/latency/latency_validation.h"
#include "models/formats/spec_catalog.h"
#include "models/formats/strict_json_io.h"
#include "sim/base/errors.h"

namespace efimsim {
namespace {

std::string TestData(const std::string& name) {
  return (std::filesystem::path(__FILE__).parent_path() / "testdata" / name).string();
}

// The synthetic fixture with one edit applied to its JSON.
std::string EditedProfile(const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json doc =
      nlohmann::json::parse(ReadWholeFile(TestData("synthetic_profile_llama-3.1-8b_h100-sxm.json")));
  edit(doc);
  return doc.dump();
}

std::string FieldOfError(const std::string& text) {
  try {
    ParseKernelProfile(text, "p.json");
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "p.json");
    return e.field();
  }
  return "(no error)";
}

TEST(ProfileIo, ReadsTheSyntheticFixture) {
  const KernelProfile p = LoadKernelProfile(TestData("synthetic_profile_llama-3.1-8b_h100-sxm.json"));
  EXPECT_EQ(p.gpu, "h100-sxm");
  EXPECT_EQ(p.model, "llama-3.1-8b");
  EXPECT_EQ(p.gemm.size(), 5u);
  EXPECT_EQ(p.prefill_attention.points.size(), 12u);
  EXPECT_FALSE(p.cpu_overhead.Measured());
}

TEST(ProfileIo, BadProfilesAreInputErrorsNamingTheField) {
  EXPECT_EQ(FieldOfError("not json"), "");
  EXPECT_EQ(FieldOfError(EditedProfile([](auto& d) { d["bogus"] = 1; })), "bogus");
  EXPECT_EQ(FieldOfError(EditedProfile([](auto& d) { d["gemm"][0]["bogus"] = 1; })), "gemm[0].bogus");
  EXPECT_EQ(FieldOfError(EditedProfile([](auto& d) { d["gemm"][2]["points"][3]["time_us"] = -1; })),
            "gemm[2].points[3].time_us");
  EXPECT_EQ(FieldOfError(EditedProfile([](auto& d) { d["gemm"][0]["points"][1]["m"] = 1; })),
            "gemm[0].points[1].m");
  EXPECT_EQ(FieldOfError(EditedProfile([](auto& d) { d["gemm"][0]["name"] = "qkv"; })),
            "gemm[0].name");
  EXPECT_EQ(FieldOfError(EditedProfile([](auto& d) { d["provenance"].erase("git_commit"); })),
            "provenance.git_commit");
  EXPECT_EQ(FieldOfError(EditedProfile([](auto& d) { d["kind"] = "x"; })), "kind");
  EXPECT_EQ(FieldOfError(EditedProfile([](auto& d) {
              d["decode_attention"]["points"][1]["context_tokens"] = 128;
            })),
            "decode_attention.points[1].batch");
  EXPECT_EQ(FieldOfError(EditedProfile([](auto& d) { d["cpu_overhead"]["source"] = "guess"; })),
            "cpu_overhead.source");
  EXPECT_EQ(FieldOfError(EditedProfile([](auto& d) {
              d["all_reduce"] = nlohmann::json::parse(R"([{"tensor_parallel": 2, "points": []}])");
            })),
            "all_reduce[0].points");
}

TEST(ProfileIo, NoBuiltinProfileForAnUnknownPair) {
  EXPECT_FALSE(FindBuiltinKernelProfile("no-such-gpu", "pytorch-reference", "llama-3.1-8b").has_value());
}

TEST(MeasuredSteps, ReadsTheSyntheticFile) {
  const auto steps = LoadMeasuredSteps(TestData("synthetic_measured_steps.json"));
  ASSERT_EQ(steps.size(), 5u);
  EXPECT_EQ(steps[0].kind, MeasuredStepKind::kPrefill);
  EXPECT_EQ(steps[0].cuda_graphs, std::optional<bool>(true));
  EXPECT_FALSE(steps[1].cuda_graphs.has_value());
  EXPECT_EQ(steps[4].kind, MeasuredStepKind::kMixed);
  EXPECT_EQ(steps[4].sequences[0].new_tokens, 256);
  EXPECT_TRUE(steps[4].sequences[0].emits_token);
}

TEST(MeasuredSteps, BadRowsNameIndexAndField) {
  auto field_of = [](const std::string& text) -> std::string {
    try {
      ParseMeasuredSteps(text, "m.json");
    } catch (const InputError& e) {
      return e.field();
    }
    return "(no error)";
  };
  const std::string ok = R"({"kind": "decode", "sequences": [{"new_tokens": 1, "context_tokens": 5}], "measured_ms": 7})";
  EXPECT_EQ(field_of("[" + ok + "]"), "(no error)");
  EXPECT_EQ(field_of("{}"), "");
  EXPECT_EQ(field_of("[" + ok + R"(, {"kind": "prefill", "sequences": [{"new_tokens": 1, "context_tokens": 5}], "measured_ms": 7}])"),
            "[1].kind");
  EXPECT_EQ(field_of(R"([{"kind": "decode", "sequences": [{"new_tokens": 0, "context_tokens": 5}], "measured_ms": 7}])"),
            "[0].sequences[0].new_tokens");
  EXPECT_EQ(field_of(R"([{"kind": "decode", "sequences": [{"new_tokens": 1, "context_tokens": 5}], "measured_ms": 0}])"),
            "[0].measured_ms");
  EXPECT_EQ(field_of(R"([{"kind": "decode", "sequences": [{"new_tokens": 1, "context_tokens": 5}], "measured_ms": 7, "mode": "fast"}])"),
            "[0].mode");
  EXPECT_EQ(field_of(R"([{"kind": "decode", "sequences": [{"new_tokens": 1, "context_tokens": 5, "x": 1}], "measured_ms": 7}])"),
            "[0].sequences[0].x");
}

TEST(ModelSpecs, NewModelsLoadWithTheirPublishedFigures) {
  const ModelSpec qwen7 = LoadModelSpec("qwen2.5-coder-7b");
  EXPECT_EQ(qwen7.tokens.bos, -1);
  EXPECT_NEAR(static_cast<double>(qwen7.TotalParams()) / 1e9, 7.61, 0.02);
  EXPECT_EQ(qwen7.KvBytesPerToken(), 2 * 28 * 4 * 128 * 2);
  const ModelSpec qwen15 = LoadModelSpec("qwen2.5-coder-1.5b");
  EXPECT_TRUE(qwen15.tied_embeddings);
  EXPECT_NEAR(static_cast<double>(qwen15.TotalParams()) / 1e9, 1.54, 0.01);
  const ModelSpec codellama = LoadModelSpec("codellama-7b");
  EXPECT_EQ(codellama.tokens.bos, 1);
  EXPECT_NEAR(static_cast<double>(codellama.TotalParams()) / 1e9, 6.74, 0.01);
  const ModelSpec starcoder = LoadModelSpec("starcoder2-15b");
  EXPECT_EQ(starcoder.mlp, MlpKind::kPlain);
  EXPECT_EQ(starcoder.tokens.fim_middle, 2);
  EXPECT_NEAR(static_cast<double>(starcoder.TotalParams()) / 1e9, 15.96, 0.05);
  const GpuSpec h100 = LoadGpuSpec("h100-sxm");
  EXPECT_EQ(h100.interconnect_gbps, 450.0);
}

}  // namespace
}  // namespace efimsim
