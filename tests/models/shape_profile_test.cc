// Shape-keyed profiles: the AIConfigurator importer (on small fixtures in
// the source's own CSV layout), the file format, the shape rule, and how
// --kernel-source chooses among the built-in tables.
#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "models/import/aiconfigurator_import.h"
#include "models/latency/latency_model_registry.h"
#include "models/formats/shape_profile.h"
#include "models/latency/shape_rule.h"
#include "models/formats/spec_catalog.h"
#include "models/formats/strict_json_io.h"
#include "sim/base/errors.h"

namespace efimsim {
namespace {

std::string Fixture(const std::string& name) {
  return (std::filesystem::path(__FILE__).parent_path() / "testdata" / "aiconfigurator" / name).string();
}

ShapeProfile ImportFixture(std::vector<std::string>* notes_out = nullptr) {
  AiConfiguratorImport import;
  import.dir = Fixture("h100_sxm/vllm-0.24.0");
  import.command = "test";
  std::vector<std::string> notes;
  ShapeProfile p = ImportAiConfigurator(import, LoadGpuSpec("h100-sxm"), notes);
  if (notes_out) *notes_out = notes;
  return p;
}

TEST(AiConfiguratorImport, KeepsBf16FullAttentionBatchOneAndGraphAllReduce) {
  const ShapeProfile p = ImportFixture();
  EXPECT_EQ(p.engine, "vllm_v1");
  EXPECT_EQ(p.source.kind, "aiconfigurator");
  ASSERT_EQ(p.gemm.size(), 4u);
  // The first row of the repeated key (m=1, 4096x4096) wins over the later 9 ms row.
  EXPECT_LT(p.gemm[0].points[0].time_us, 100.0);
  ASSERT_EQ(p.prefill_attention.size(), 3u);
  for (const ShapePrefillTable& t : p.prefill_attention) EXPECT_EQ(t.points.size(), 4u);  // batch 2 and window rows dropped
  ASSERT_EQ(p.all_reduce.size(), 1u);
  ASSERT_EQ(p.all_reduce[0].points.size(), 2u);
  EXPECT_EQ(p.all_reduce[0].points[0].key, 8192);            // 4096 bf16 elements
  EXPECT_DOUBLE_EQ(p.all_reduce[0].points[0].time_us, 5.0);  // the graph row, not the eager one
  EXPECT_DOUBLE_EQ(p.elementwise.constant_us, 3.0);
  EXPECT_EQ(p.source.files.size(), 9u);  // eight CSVs (four of the optional tables) and systems.csv, by checksum
}

TEST(AiConfiguratorImport, RefusesAnotherGpusTablesNamingTheRowAndColumn) {
  AiConfiguratorImport import;
  import.dir = Fixture("h100_sxm/vllm-0.24.0");
  std::vector<std::string> notes;
  GpuSpec h200 = LoadGpuSpec("h200");
  try {
    ImportAiConfigurator(import, h200, notes);
    FAIL() << "an H100 table imported as an H200's";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "device");
    EXPECT_EQ(e.line(), 2);
    EXPECT_NE(std::string(e.what()).find("gemm.csv"), std::string::npos);
  }
  EXPECT_THROW(ImportAiConfigurator(import, LoadGpuSpec("l4"), notes), UsageError);
}

TEST(ShapeProfileIo, WritesAndReadsBackTheSameTables) {
  const ShapeProfile p = ImportFixture();
  const ShapeProfile q = ParseShapeProfile(ShapeProfileJson(p), "round trip");
  ASSERT_EQ(q.gemm.size(), p.gemm.size());
  for (size_t i = 0; i < p.gemm.size(); ++i) {
    ASSERT_EQ(q.gemm[i].points.size(), p.gemm[i].points.size());
    for (size_t j = 0; j < p.gemm[i].points.size(); ++j) {
      EXPECT_NEAR(q.gemm[i].points[j].time_us / p.gemm[i].points[j].time_us, 1.0, 1e-5);
    }
  }
  ASSERT_EQ(q.decode_attention.size(), p.decode_attention.size());
  EXPECT_EQ(q.decode_attention[1].points.size(), p.decode_attention[1].points.size());
  EXPECT_EQ(q.source.files.size(), p.source.files.size());
  EXPECT_EQ(ShapeProfileJson(q), ShapeProfileJson(p));  // stable bytes
}

TEST(ShapeProfileIo, ErrorsNameTheField) {
  nlohmann::json doc = nlohmann::json::parse(ShapeProfileJson(ImportFixture()));
  doc["gemm"]["tables"][1]["us"].erase(0);
  try {
    ParseShapeProfile(doc.dump(), "edited.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "gemm.tables[1].us");
    EXPECT_EQ(e.file(), "edited.json");
  }
  doc = nlohmann::json::parse(ShapeProfileJson(ImportFixture()));
  doc["decode_attention"]["tables"][0]["kv_heads"] = 5;
  EXPECT_THROW(ParseShapeProfile(doc.dump(), "x"), InputError);  // 5 does not divide 16
}

TEST(ShapeRule, AMeasuredShapeIsTakenAsMeasured) {
  const ShapeProfile p = ImportFixture();
  std::string note;
  const auto points = TransferGemm(p.gemm, p.ceilings, 8192, 4096, &note);
  EXPECT_TRUE(note.empty());
  ASSERT_EQ(points.size(), p.gemm[1].points.size());
  EXPECT_DOUBLE_EQ(points[2].time_us, p.gemm[1].points[2].time_us);
}

TEST(ShapeRule, TransfersUtilisationFromNearbyShapes) {
  // Every fixture GEMM runs at 80% of the speed of light plus 4 us; a shape
  // between them gets a time of that order, not the roofline's.
  const ShapeProfile p = ImportFixture();
  std::string note;
  const auto points = TransferGemm(p.gemm, p.ceilings, 12288, 4096, &note);
  EXPECT_NE(note.find("16384x4096"), std::string::npos) << note;
  ASSERT_FALSE(points.empty());
  for (const ProfilePoint& pt : points) {
    const double m = static_cast<double>(pt.key);
    const double sol = std::max(2 * m * 12288 * 4096 / 989e12, 2 * (m * 12288 + m * 4096 + 12288.0 * 4096) / 3.35e12) * 1e6;
    EXPECT_GT(pt.time_us, sol * 1.25) << m;
    EXPECT_LT(pt.time_us, sol * 1.25 + 4.0 + 1e-6 + sol * 2) << m;
  }
}

TEST(ShapeRule, ResolvesAModelsShardsAndPricesCachedPrefixes) {
  const ShapeProfile p = ImportFixture();
  ModelSpec model = LoadModelSpec("llama-3.1-8b");
  ShapeResolution r;
  const KernelProfile k = ResolveShapeProfile(p, model, 2, &r);
  EXPECT_EQ(k.tensor_parallel, 2);
  EXPECT_EQ(k.prefill_attention.q_heads, 16);  // 32 heads over 2 GPUs
  EXPECT_EQ(k.prefill_attention.kv_heads, 4);
  EXPECT_TRUE(k.prefill_attention.transferred);  // 16/4 is not in the fixture
  ASSERT_EQ(k.gemm.size(), 5u);
  EXPECT_EQ(k.gemm[0].n, 3072);  // qkv: (32 + 2 x 8) x 128 / 2
  EXPECT_EQ(r.gemm_measured + r.gemm_transferred, 5);
  ASSERT_EQ(k.all_reduce.size(), 1u);
  EXPECT_EQ(k.all_reduce[0].tensor_parallel, 2);
  // A chunk over a cached prefix costs less than the same chunk's share of
  // one longer sequence would without the cache, and more than nothing.
  double at_zero = 0, at_cache = 0;
  for (const AttentionPoint& pt : k.prefill_attention.points) {
    if (pt.rows == 256 && pt.context_tokens == 0) at_zero = pt.time_us;
    if (pt.rows == 256 && pt.context_tokens == 4096) at_cache = pt.time_us;
  }
  EXPECT_GT(at_cache, at_zero);
  EXPECT_LT(at_cache, 16 * at_zero);
}

TEST(KernelSource, AutoTakesTheEnginesOwnKernels) {
  const ModelSpec model = LoadModelSpec("llama-3.1-8b");
  LatencyModelOptions options;
  auto m = MakeLatencyModel(LatencyConfig{"auto", options, CpuOverheadConfig{}}, model, LoadGpuSpec("h100-sxm"));
  EXPECT_EQ(m->Description().rfind("kernel source aiconfigurator (auto: the vllm_v1 engine's own kernels)", 0), 0u)
      << m->Description();
  EXPECT_NE(m->Description().find("shape_profiles/h100-sxm/aiconfigurator/vllm_v1.json"), std::string::npos);
  options.engine = "sglang";
  m = MakeLatencyModel(LatencyConfig{"auto", options, CpuOverheadConfig{}}, model, LoadGpuSpec("h100-sxm"));
  EXPECT_NE(m->Description().find("aiconfigurator/sglang.json"), std::string::npos);
  options.engine = "vllm_v1";
  m = MakeLatencyModel(LatencyConfig{"auto", options, CpuOverheadConfig{}}, model, LoadGpuSpec("rtx-4090"));
  EXPECT_EQ(m->Description().rfind("kernel source llmservingsim", 0), 0u) << m->Description();
  options.kernel_source = "pytorch-reference";
  m = MakeLatencyModel(LatencyConfig{"auto", options, CpuOverheadConfig{}}, model, LoadGpuSpec("h100-sxm"));
  EXPECT_EQ(m->Description().rfind("kernel source pytorch-reference (--kernel-source)", 0), 0u);
}

TEST(KernelSource, ASourceTheGpuLacksIsAUsageErrorListingWhatItHas) {
  LatencyModelOptions options;
  options.kernel_source = "pytorch-reference";
  try {
    MakeLatencyModel(LatencyConfig{"auto", options, CpuOverheadConfig{}}, LoadModelSpec("llama-3.1-8b"), LoadGpuSpec("b200"));
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("aiconfigurator (engines sglang, vllm_v1)"), std::string::npos) << e.what();
  }
  const std::vector<std::string> b200 = KernelSourcesOf("b200");
  ASSERT_EQ(b200.size(), 1u);
  EXPECT_TRUE(KernelSourcesOf("l4").empty());
}

TEST(KernelSource, BuiltinShapeProfilesAreParsedOnceAndShared) {
  const ShapeProfile* a = FindBuiltinShapeProfile("h100-sxm", "aiconfigurator", "vllm_v1");
  const ShapeProfile* b = FindBuiltinShapeProfile("h100-sxm", "aiconfigurator", "vllm_v1");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a, b);
  EXPECT_EQ(FindBuiltinShapeProfile("l4", "aiconfigurator", "vllm_v1"), nullptr);
}

}  // namespace
}  // namespace efimsim
