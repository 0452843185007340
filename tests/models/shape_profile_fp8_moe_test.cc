// Shape profiles' optional tables: FP8 GEMMs, attention over an FP8 KV
// cache and MoE experts. The importer on small fixtures in the source's CSV
// layout (tests/models/testdata/aiconfigurator, made-up numbers), the file
// format, and the shape rule on a synthetic MoE table.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "models/formats/shape_profile.h"
#include "models/formats/spec_catalog.h"
#include "models/import/aiconfigurator_import.h"
#include "models/latency/operator_work.h"
#include "models/latency/shape_rule.h"
#include "sim/base/errors.h"

namespace efimsim {
namespace {

ShapeProfile ImportFixture() {
  AiConfiguratorImport import;
  import.dir = (std::filesystem::path(__FILE__).parent_path() / "testdata" / "aiconfigurator" / "h100_sxm" /
                "vllm-0.24.0").string();
  import.command = "test";
  std::vector<std::string> notes;
  return ImportAiConfigurator(import, LoadGpuSpec("h100-sxm"), notes);
}

// A Qwen3-30B-A3B-like model: 48 MoE layers of 128 experts, top-8, expert
// FFN 768, hidden 2048 (Qwen's config.json; heads as the checkpoint).
ModelSpec QwenMoe(int64_t expert_ffn = 768) {
  ModelSpec m = LoadModelSpec("llama-3.1-8b");
  m.name = "qwen3-30b-a3b-like";
  m.layers = 48;
  m.hidden_size = 2048;
  m.q_heads = 32;
  m.kv_heads = 4;
  m.head_dim = 128;
  m.ffn_size = 6144;
  m.vocab_size = 151936;
  m.moe.experts = 128;
  m.moe.experts_per_token = 8;
  m.moe.expert_ffn_size = expert_ffn;
  return m;
}

double PointAt(const std::vector<ProfilePoint>& points, int64_t key) {
  for (const ProfilePoint& p : points) {
    if (p.key == key) return p.time_us;
  }
  ADD_FAILURE() << "no point at " << key;
  return 0;
}

TEST(AiConfiguratorImportFp8Moe, ReadsTheOptionalTablesWhenPresent) {
  const ShapeProfile p = ImportFixture();
  EXPECT_DOUBLE_EQ(p.ceilings.fp8_flops_per_second, 1978e12);
  ASSERT_EQ(p.gemm_fp8.size(), 2u);  // fp8 and fp8_block; nvfp4 not kept
  EXPECT_EQ(p.gemm_fp8[0].dtype, "fp8");
  ASSERT_EQ(p.gemm_fp8[0].tables.size(), 2u);  // 1024x1024 has no bf16 twin: dropped
  EXPECT_EQ(p.gemm_fp8[0].kernels, "CutlassFP8ScaledMMLinearKernel");
  EXPECT_NEAR(p.gemm_fp8[0].tables[0].points[1].time_us, 0.6 * 16.618, 1e-6);  // first row of m=16 wins
  EXPECT_EQ(p.gemm_fp8[1].dtype, "fp8_block");
  ASSERT_EQ(p.prefill_attention_fp8kv.size(), 1u);  // bf16-compute rows only
  ASSERT_EQ(p.decode_attention_fp8kv.size(), 1u);
  EXPECT_EQ(p.decode_attention_fp8kv[0].points.size(), 9u);
  // bf16 and fp8 of (2048, 768) balanced, bf16 (2048, 768) power_law_1.2,
  // bf16 (4096, 1536); int4, power_law_1.01 and tp x ep = 16 left out.
  ASSERT_EQ(p.moe.size(), 4u);
  EXPECT_EQ(p.moe[0].key.dtype, "bfloat16");
  EXPECT_EQ(p.moe[0].key.distribution, "balanced");
  EXPECT_EQ(p.moe[0].kernel, "vllm_unquantizedfusedmoe_triton_tritonexperts");
  EXPECT_DOUBLE_EQ(PointAt(p.moe[0].points, 16), 420.0);  // first row wins over the 9 ms repeat
  EXPECT_EQ(p.source.files.size(), 9u);  // eight CSVs and systems.csv, by checksum
  // The stack names the bf16 tables' kernels only (dense outputs unchanged).
  EXPECT_EQ(p.source.stack.find("Cutlass"), std::string::npos);
}

TEST(AiConfiguratorImportFp8Moe, BadMoeRowsNameFileLineAndColumn) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "efimsim_moe_fixture/h100_sxm/vllm-0.24.0";
  std::filesystem::create_directories(dir);
  const std::filesystem::path from = std::filesystem::path(__FILE__).parent_path() / "testdata" / "aiconfigurator";
  for (const char* f : {"gemm.csv", "context_attention.csv", "generation_attention.csv"}) {
    std::filesystem::copy_file(from / "h100_sxm/vllm-0.24.0" / f, dir / f,
                               std::filesystem::copy_options::overwrite_existing);
  }
  std::filesystem::copy_file(from / "systems.csv", dir.parent_path().parent_path() / "systems.csv",
                             std::filesystem::copy_options::overwrite_existing);
  std::ofstream((dir / "moe.csv").string())
      << "framework,version,device,op_name,kernel_source,moe_dtype,num_tokens,hidden_size,inter_size,topk,"
         "num_experts,moe_tp_size,moe_ep_size,distribution,latency\n"
      << "VLLM,0.24.0,NVIDIA H100 80GB HBM3,moe,k,bfloat16,16,2048,768,8,128,1,1,balanced,0.42\n"
      << "VLLM,0.24.0,NVIDIA H100 80GB HBM3,moe,k,bfloat16,32,2048,768,8,128,1,1,balanced,-1\n";
  AiConfiguratorImport import;
  import.dir = dir.string();
  std::vector<std::string> notes;
  try {
    ImportAiConfigurator(import, LoadGpuSpec("h100-sxm"), notes);
    FAIL() << "a negative latency was imported";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 3);
    EXPECT_EQ(e.field(), "latency");
    EXPECT_NE(std::string(e.what()).find("moe.csv"), std::string::npos);
  }
  std::filesystem::remove_all(dir.parent_path().parent_path());
}

TEST(ShapeProfileIoFp8Moe, NewTablesRoundTripAndOlderFilesStillParse) {
  const ShapeProfile p = ImportFixture();
  const std::string text = ShapeProfileJson(p);
  const ShapeProfile q = ParseShapeProfile(text, "round trip");
  ASSERT_EQ(q.moe.size(), p.moe.size());
  EXPECT_EQ(q.moe[3].key, p.moe[3].key);
  EXPECT_EQ(q.moe[3].kernel, p.moe[3].kernel);
  ASSERT_EQ(q.gemm_fp8.size(), 2u);
  EXPECT_EQ(q.gemm_fp8[1].tables.size(), p.gemm_fp8[1].tables.size());
  EXPECT_EQ(q.decode_attention_fp8kv[0].points.size(), p.decode_attention_fp8kv[0].points.size());
  EXPECT_DOUBLE_EQ(q.ceilings.fp8_flops_per_second, p.ceilings.fp8_flops_per_second);
  EXPECT_EQ(ShapeProfileJson(q), text);  // stable bytes
  // Without the optional tables the file has none of their keys, and reads.
  ShapeProfile old = p;
  old.gemm_fp8.clear();
  old.prefill_attention_fp8kv.clear();
  old.decode_attention_fp8kv.clear();
  old.moe.clear();
  old.ceilings.fp8_flops_per_second = 0;
  const std::string old_text = ShapeProfileJson(old);
  for (const char* key : {"\"gemm_fp8\":", "\"prefill_attention_fp8kv\":", "\"decode_attention_fp8kv\":",
                          "\"moe\":", "\"fp8_flops_per_second\":"}) {
    EXPECT_EQ(old_text.find(key), std::string::npos) << key;
  }
  EXPECT_TRUE(ParseShapeProfile(old_text, "old").moe.empty());
  EXPECT_NE(FindBuiltinShapeProfile("rtx-pro-6000", "llmservingsim", "vllm_v1"), nullptr);  // has none
}

TEST(ShapeProfileIoFp8Moe, ErrorsNameTheNewTablesFields) {
  nlohmann::json doc = nlohmann::json::parse(ShapeProfileJson(ImportFixture()));
  doc["moe"]["tables"][0]["tp"] = 5;
  try {
    ParseShapeProfile(doc.dump(), "edited.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "moe.tables[0].tp");  // 5 does not divide inter 768
  }
  doc = nlohmann::json::parse(ShapeProfileJson(ImportFixture()));
  doc["gemm_fp8"][0]["dtype"] = "nvfp4";
  try {
    ParseShapeProfile(doc.dump(), "edited.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "gemm_fp8[0].dtype");
  }
  doc = nlohmann::json::parse(ShapeProfileJson(ImportFixture()));
  doc["gemm_fp8"][0]["tables"][1]["us"].erase(0);
  try {
    ParseShapeProfile(doc.dump(), "edited.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "gemm_fp8[0].tables[1].us");
  }
}

// A synthetic MoE table running at `utilisation` of its speed of light at
// every token count: a transfer between such tables is exact.
ShapeMoeTable ConstantUtilisation(const ShapeCeilings& c, const ShapeMoeKey& key, double utilisation) {
  ShapeMoeTable t{key, "synthetic", {}};
  for (int64_t tokens = 1; tokens <= 16384; tokens *= 4) {
    t.points.push_back({tokens, MoeSolSeconds(c, key, static_cast<double>(tokens)) * 1e6 / utilisation});
  }
  return t;
}

TEST(ShapeRuleMoe, MeasuredKeyAsMeasuredOtherKeysTransferredAndFlagged) {
  ShapeProfile p = ImportFixture();
  const ShapeMoeKey qwen{"bfloat16", 2048, 768, 8, 128, 1, 1, "balanced"};
  const ShapeMoeKey big{"bfloat16", 4096, 1536, 8, 128, 1, 1, "balanced"};
  p.moe = {ConstantUtilisation(p.ceilings, qwen, 0.5), ConstantUtilisation(p.ceilings, big, 0.5)};
  ShapeResolution r;
  KernelProfile k = ResolveShapeProfile(p, QwenMoe(), 1, &r);
  ASSERT_TRUE(k.moe.has_value());
  EXPECT_FALSE(k.moe->transferred);
  EXPECT_EQ(k.moe->kernel, "synthetic");
  EXPECT_EQ(k.moe->distribution, "balanced (uniform routing)");
  EXPECT_DOUBLE_EQ(PointAt(k.moe->points, 256), PointAt(p.moe[0].points, 256));
  EXPECT_NE(r.Summary().find("MoE experts measured at bfloat16 2048x768 top-8 of 128 tp 1 ep 1"), std::string::npos)
      << r.Summary();
  // Expert FFN 1024: not measured; the neighbours' utilisation (0.5) carries over exactly.
  k = ResolveShapeProfile(p, QwenMoe(1024), 1, &r);
  ASSERT_TRUE(k.moe.has_value());
  EXPECT_TRUE(k.moe->transferred);
  const ShapeMoeKey target{"bfloat16", 2048, 1024, 8, 128, 1, 1, "balanced"};
  for (const ProfilePoint& pt : k.moe->points) {
    EXPECT_NEAR(pt.time_us, MoeSolSeconds(p.ceilings, target, static_cast<double>(pt.key)) * 2e6, 1e-6 * pt.time_us);
  }
  EXPECT_NE(r.Summary().find("moe_experts bfloat16 2048x1024 top-8 of 128 tp 1 ep 1 balanced from 2048x768"),
            std::string::npos) << r.Summary();
  // TP 2 (experts split 2 ways): no table at tp 2: none, said.
  k = ResolveShapeProfile(p, QwenMoe(), 2, &r);
  EXPECT_FALSE(k.moe.has_value());
  EXPECT_NE(r.moe.find("no MoE table at tp 2 ep 1"), std::string::npos) << r.moe;
  // FP8 weights with no fp8 MoE table: the bf16 one, flagged.
  k = ResolveShapeProfile(p, ServedAs(QwenMoe(), {WeightQuantization::kFp8, KvCacheDtype::kAuto, false}), 1, &r);
  ASSERT_TRUE(k.moe.has_value());
  EXPECT_TRUE(k.moe->transferred);
  EXPECT_NE(r.moe.find("no fp8 balanced table"), std::string::npos) << r.moe;
}

TEST(ShapeRuleMoe, ExpertParallelKeysTheWholeExpertAndTheEpGroup) {
  ShapeProfile p = ImportFixture();
  const ShapeMoeKey ep4{"bfloat16", 2048, 768, 8, 128, 1, 4, "balanced"};
  p.moe = {ConstantUtilisation(p.ceilings, ep4, 0.4)};
  ShapeResolution r;
  const KernelProfile k =
      ResolveShapeProfile(p, ServedAs(QwenMoe(), {WeightQuantization::kNone, KvCacheDtype::kAuto, true}), 4, &r);
  ASSERT_TRUE(k.moe.has_value());
  EXPECT_FALSE(k.moe->transferred);
  EXPECT_DOUBLE_EQ(PointAt(k.moe->points, 64), PointAt(p.moe[0].points, 64));
}

}  // namespace
}  // namespace efimsim
