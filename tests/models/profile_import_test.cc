// efimsim profile import: hand-made PyTorch-reference JSON and Vidur CSVs
// end to end (combination of runs, the dispatch gap, shapes refused, missing
// tables, provenance), bad input named by file, row and column; and, where
// ../shared/data is present, the committed profiles' provenance and accuracy.
#include "models/import/profile_import.h"

#include <cmath>
#include <filesystem>
#include <functional>
#include <string>

#include <gtest/gtest.h>

#include "models/formats/kernel_profile.h"
#include "models/latency/latency_validation.h"
#include "models/latency/operator_work.h"
#include "models/latency/profile_latency_model.h"
#include "models/formats/spec_catalog.h"
#include "models/formats/strict_json_io.h"
#include "sim/base/errors.h"
#include "sim/base/sha256.h"

namespace efimsim {
namespace {

constexpr const char* kModel = "qwen2.5-coder-1.5b";  // hidden 1536, 12 q / 2 KV heads, FFN 8960
constexpr double kGemmGapUs = 10.0;
constexpr double kAttentionGapUs = 20.0;

std::string Number(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

// A reference ops file for kModel: GEMM time = gap + bytes / 2 TB/s and
// decode time = gap + bytes / 1 TB/s (so the gaps are exact intercepts),
// scaled by `scale` (a second, slower run). Prefill points at a fixed value.
std::string ReferenceJson(double scale, const std::string& device = "NVIDIA H100 80GB HBM3",
                          int64_t hidden = 1536) {
  const ShardShapes s = ShardModel(LoadModelSpec(kModel), 1);
  std::string gemm;
  const struct { const char* op; GemmId id; } ops[] = {{"qkv", GemmId::kQkvProj}, {"o", GemmId::kOProj},
      {"gate_up", GemmId::kGateUpProj}, {"down", GemmId::kDownProj}, {"lm_head", GemmId::kLmHead}};
  for (const auto& op : ops) {
    const GemmShape shape = GemmShapeOf(s, op.id);
    for (int64_t m : {1, 16, 256}) {
      const double us = kGemmGapUs + GemmWork(s, op.id, static_cast<double>(m)).bytes / 2e6;
      gemm += std::string(gemm.empty() ? "" : ",") + R"({"op": ")" + op.op + R"(", "M": )" +
              std::to_string(m) + R"(, "K": )" + std::to_string(shape.k) + R"(, "N": )" +
              std::to_string(shape.n) + R"(, "median_ms": )" + Number(scale * us / 1000) +
              R"(, "min_ms": 0, "max_ms": 0})";
    }
  }
  std::string attention;
  for (int64_t q : {16, 256}) {
    for (int64_t cached : {0, 1024}) {
      attention += std::string(attention.empty() ? "" : ",") + R"({"kind": "prefill", "q": )" +
                   std::to_string(q) + R"(, "cached": )" + std::to_string(cached) +
                   R"(, "median_ms": )" + Number(scale * 0.5) + "}";
    }
  }
  for (int64_t batch : {1, 8}) {
    for (int64_t context : {512, 2048}) {
      const double us = kAttentionGapUs +
          DecodeAttentionWork(s, static_cast<double>(batch), static_cast<double>(context - 1)).bytes / 1e6;
      attention += R"(,{"kind": "decode", "batch": )" + std::to_string(batch) + R"(, "context": )" +
                   std::to_string(context) + R"(, "median_ms": )" + Number(scale * us / 1000) + "}";
    }
  }
  return R"({"model": "qwen2.5-coder-1.5b", "config": {"hidden": )" + std::to_string(hidden) +
         R"(, "layers": 28, "heads": 12, "kv_heads": 2, "head_dim": 128, "inter": 8960, "vocab": 151936},
      "device": {"torch": "2.11.0+cu130", "device": ")" + device + R"(", "sms": 132,
                 "ceilings": {"bf16_gemm_tflops": 790.0, "d2d_copy_tb_s": 3.0}},
      "ops": {"gemm": [)" + gemm + R"(], "attention": [)" + attention + "]}}";
}

ImportSettings Settings() {
  ImportSettings settings;
  settings.command = "efimsim profile import (test)";
  settings.measured_on = "2026-11-22";
  settings.interpolation = "auto";
  return settings;
}

ElementwiseRates Rates(double tbps, double floor_us) {
  ElementwiseRates rates;
  rates.tbps = tbps;
  rates.floor_us = floor_us;
  rates.origin = "rates.csv";
  rates.sha256 = std::string(64, '0');
  return rates;
}

KernelProfile ImportTwoRuns(const std::optional<ElementwiseRates>& rates, ImportReport& report) {
  const std::vector<ReferenceOps> runs = {ParseReferenceOps(ReferenceJson(1.0), "run1.json"),
                                          ParseReferenceOps(ReferenceJson(1.5), "run2.json")};
  return ImportReferenceProfile(runs, LoadModelSpec(kModel), LoadGpuSpec("h100-sxm"), rates,
                                std::nullopt, Settings(), report);
}

TEST(Sha256, KnownDigests) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(Sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(ReferenceImport, CombinesRunsByTheirMinimumAndSubtractsTheDispatchGap) {
  ImportReport report;
  const KernelProfile profile = ImportTwoRuns(std::nullopt, report);
  const ShardShapes s = ShardModel(LoadModelSpec(kModel), 1);
  ASSERT_EQ(profile.gemm.size(), 5u);
  for (const GemmTable& table : profile.gemm) {
    ASSERT_EQ(table.points.size(), 3u) << table.name;
    for (const ProfilePoint& p : table.points) {
      GemmId id = GemmId::kQkvProj;
      for (int g = 0; g < kGemmCount; ++g) {
        if (GemmName(static_cast<GemmId>(g)) == table.name) id = static_cast<GemmId>(g);
      }
      // The faster run (scale 1), less the exact 10 us intercept.
      EXPECT_NEAR(p.time_us, GemmWork(s, id, static_cast<double>(p.key)).bytes / 2e6, 1e-6)
          << table.name << " m=" << p.key;
    }
  }
  // Decode: keyed by the context before the new token (keys - 1), gap removed.
  ASSERT_EQ(profile.decode_attention.points.size(), 4u);
  EXPECT_EQ(profile.decode_attention.points[0].rows, 1);
  EXPECT_EQ(profile.decode_attention.points[0].context_tokens, 511);
  EXPECT_NEAR(profile.decode_attention.points[0].time_us, DecodeAttentionWork(s, 1, 511).bytes / 1e6, 1e-6);
  // Prefill is never pushed below its roofline time.
  for (const AttentionPoint& p : profile.prefill_attention.points) {
    EXPECT_NEAR(p.time_us, 500.0 - kAttentionGapUs, 1e-6);
  }
  EXPECT_EQ(profile.interpolation, report.chosen);
  EXPECT_FALSE(report.interpolation.empty());
}

TEST(ReferenceImport, DispatchGapFromGraphTimingsIsTheMedianEagerMinusGraphDifference) {
  // Graph timings of every reference GEMM point at M <= 64, each 4 us under
  // the eager time: the gap is 4 us (not the 10 us intercept), and the
  // graph file is named among the sources.
  const std::vector<ReferenceOps> runs = {ParseReferenceOps(ReferenceJson(1.0), "run1.json")};
  const ShardShapes s = ShardModel(LoadModelSpec(kModel), 1);
  GraphGemmTimings graph{"gemm.csv", std::string(64, 'a'), {}};
  for (const ReferenceGemmRow& row : runs[0].gemm) {
    if (row.m > 64) continue;
    graph.us[{row.m, row.n, row.k}] = row.median_ms * 1000.0 - 4.0;
  }
  ImportSettings settings = Settings();
  settings.dispatch_gap_from = graph;
  ImportReport report;
  const KernelProfile profile = ImportReferenceProfile(runs, LoadModelSpec(kModel), LoadGpuSpec("h100-sxm"),
                                                       std::nullopt, std::nullopt, settings, report);
  const GemmTable& qkv = profile.gemm[0];
  ASSERT_EQ(qkv.name, "qkv_proj");
  // Eager time = 10 us + bytes / 2e6; less the 4 us gap.
  EXPECT_NEAR(qkv.points[0].time_us, 6.0 + GemmWork(s, GemmId::kQkvProj, static_cast<double>(qkv.points[0].key)).bytes / 2e6,
              1e-6);
  EXPECT_EQ(profile.source->files.back().path, "gemm.csv");
  // Too few shared points: refused, naming the graph file.
  settings.dispatch_gap_from->us.clear();
  EXPECT_THROW(ImportReferenceProfile(runs, LoadModelSpec(kModel), LoadGpuSpec("h100-sxm"), std::nullopt,
                                      std::nullopt, settings, report),
               InputError);
}

TEST(ReferenceImport, ProvenanceNamesEveryFileByItsChecksum) {
  ImportReport report;
  const KernelProfile profile = ImportTwoRuns(std::nullopt, report);
  ASSERT_TRUE(profile.source.has_value());
  EXPECT_EQ(profile.source->kind, "pytorch-reference");
  ASSERT_EQ(profile.source->files.size(), 2u);
  EXPECT_EQ(profile.source->files[0].path, "run1.json");
  EXPECT_EQ(profile.source->files[0].sha256, Sha256Hex(ReferenceJson(1.0)));
  EXPECT_EQ(profile.source->files[1].sha256, Sha256Hex(ReferenceJson(1.5)));
  EXPECT_NE(profile.source->stack.find("PyTorch 2.11.0+cu130"), std::string::npos);
  EXPECT_EQ(profile.provenance.date_utc, "2026-11-22");
  EXPECT_EQ(profile.command, "efimsim profile import (test)");
  // The written profile reads back to the same tables.
  const KernelProfile again = ParseKernelProfile(KernelProfileJson(profile), "round-trip.json");
  ASSERT_TRUE(again.source.has_value());
  EXPECT_EQ(again.source->files[1].sha256, profile.source->files[1].sha256);
  EXPECT_EQ(again.interpolation, profile.interpolation);
  ASSERT_EQ(again.gemm.size(), profile.gemm.size());
  EXPECT_EQ(again.gemm[2].points[1].time_us, profile.gemm[2].points[1].time_us);
  EXPECT_EQ(KernelProfileJson(again), KernelProfileJson(profile));
}

TEST(ReferenceImport, WithoutElementwiseRatesTheTablesStayMissing) {
  ImportReport report;
  const KernelProfile profile = ImportTwoRuns(std::nullopt, report);
  EXPECT_TRUE(profile.elementwise.empty());
  const ProfileLatencyModel model(LoadModelSpec(kModel), LoadGpuSpec("h100-sxm"), CpuOverheadConfig{},
                                  profile);
  const StepBreakdown step = model.Explain(std::vector<SequenceWork>{{128, 0, true}});
  for (const OperatorCost& op : step.operators) {
    if (op.name == "rope") {
      EXPECT_TRUE(op.extrapolated);
      EXPECT_EQ(op.source, "roofline (no profile table)");
    }
    if (op.name == "qkv_proj") {
      EXPECT_EQ(op.source, "profile");
    }
  }
  EXPECT_NE(model.Description().find("roofline for untabled"), std::string::npos);
}

TEST(ReferenceImport, ModelledElementwiseTablesAreFlaggedInPredictions) {
  ImportReport report;
  const ElementwiseRates rates = Rates(2.0, 2.0);
  const KernelProfile profile = ImportTwoRuns(rates, report);
  ASSERT_EQ(profile.elementwise.size(), 5u);
  for (const ElementwiseTable& table : profile.elementwise) EXPECT_TRUE(table.Modelled()) << table.name;
  // residual_add at 1 token is one small kernel; at 16384 tokens it moves
  // 3 x 16384 x 1536 x 2 bytes at 2 TB/s.
  const ElementwiseTable& add = profile.elementwise[4];
  ASSERT_EQ(add.name, "residual_add");
  EXPECT_DOUBLE_EQ(add.points.front().time_us, 2.0);
  EXPECT_NEAR(add.points.back().time_us, 3.0 * 16384 * 1536 * 2 / 2e6, 1e-9);
  const ProfileLatencyModel model(LoadModelSpec(kModel), LoadGpuSpec("h100-sxm"), CpuOverheadConfig{},
                                  profile);
  bool saw_rope = false;
  for (const OperatorCost& op : model.Explain(std::vector<SequenceWork>{{64, 0, true}}).operators) {
    if (op.name != "rope") continue;
    saw_rope = true;
    EXPECT_TRUE(op.extrapolated);
    EXPECT_EQ(op.source, "profile (modelled table)");
  }
  EXPECT_TRUE(saw_rope);
  EXPECT_NE(model.Description().find("modelled, not measured: rmsnorm"), std::string::npos);
}

TEST(ReferenceImport, ShapesOfAnotherModelAreRefusedNamingBoth) {
  ImportReport report;
  const std::vector<ReferenceOps> runs = {ParseReferenceOps(ReferenceJson(1.0, "NVIDIA H100 80GB HBM3", 4096), "r.json")};
  try {
    ImportReferenceProfile(runs, LoadModelSpec(kModel), LoadGpuSpec("h100-sxm"), std::nullopt,
                           std::nullopt, Settings(), report);
    FAIL() << "a 4096-wide source was accepted for a 1536-wide model";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.file(), "r.json");
    EXPECT_NE(what.find("hidden 4096"), std::string::npos) << what;
    EXPECT_NE(what.find("qwen2.5-coder-1.5b has 1536"), std::string::npos) << what;
  }
}

TEST(ReferenceImport, TimingsFromAnotherGpuAreRefused) {
  ImportReport report;
  const std::vector<ReferenceOps> runs = {ParseReferenceOps(ReferenceJson(1.0, "NVIDIA A100-SXM4-80GB"), "r.json")};
  try {
    ImportReferenceProfile(runs, LoadModelSpec(kModel), LoadGpuSpec("h100-sxm"), std::nullopt,
                           std::nullopt, Settings(), report);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("A100"), std::string::npos) << e.what();
  }
}

TEST(ReferenceImport, BadInputNamesTheFileAndField) {
  std::string text = ReferenceJson(1.0);
  const size_t at = text.find(R"("M": 16)");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 7, R"("M": "x")");
  try {
    ParseReferenceOps(text, "bad.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "bad.json");
    EXPECT_EQ(e.field(), "ops.gemm[1].M");
  }
  EXPECT_THROW(ParseReferenceOps("{", "broken.json"), InputError);
}

// ---- Vidur.

const char* kVidurHeader =
    ",time_stats.attn_pre_proj.median,time_stats.attn_post_proj.median,time_stats.mlp_up_proj.median,"
    "time_stats.mlp_down_proj.median,time_stats.input_layernorm.median,"
    "time_stats.post_attention_layernorm.median,time_stats.attn_rope.median,time_stats.mlp_act.median,"
    "time_stats.add.median,n_head,n_kv_head,n_embd,n_expanded_embd,vocab_size,use_gated_mlp,num_tokens,"
    "num_tensor_parallel_workers\n";

std::string VidurRow(int index, int64_t tokens, int64_t tp, double ms, int64_t embd = 1536) {
  std::string row = std::to_string(index);
  for (int i = 0; i < 9; ++i) {
    row += ',';  // piecewise: g++ 12's -Wrestrict misfires on "," + string&&
    row += Number(ms * (i + 1));
  }
  return row + ",12,2," + std::to_string(embd) + ",8960,151936,True," + std::to_string(tokens) + "," +
         std::to_string(tp) + "\n";
}

std::string VidurCsv() {
  return std::string(kVidurHeader) + VidurRow(0, 1, 1, 0.01) + VidurRow(1, 64, 1, 0.02) +
         VidurRow(2, 512, 1, 0.05) + VidurRow(3, 512, 1, 0.08) /* repeated: the lower counts */ +
         VidurRow(4, 1024, 1, 0.09) + VidurRow(5, 1024, 2, 0.04) /* TP=2: not imported */;
}

TEST(VidurImport, GemmAndElementwiseTablesFromTp1RowsAttentionMissing) {
  ImportReport report;
  const KernelProfile profile =
      ImportVidurProfile(ParseVidurMlpCsv(VidurCsv(), "mlp.csv"), LoadModelSpec(kModel),
                         LoadGpuSpec("h100-sxm"), std::nullopt, std::nullopt, Settings(), report);
  ASSERT_EQ(profile.gemm.size(), 4u);  // no lm_head in mlp.csv
  EXPECT_EQ(profile.gemm[0].name, "qkv_proj");
  ASSERT_EQ(profile.gemm[0].points.size(), 4u);
  EXPECT_DOUBLE_EQ(profile.gemm[0].points[2].time_us, 50.0);   // 0.05 ms, not the repeat's 0.08
  EXPECT_DOUBLE_EQ(profile.gemm[3].points[3].time_us, 360.0);  // down: 4 x 0.09 ms
  ASSERT_EQ(profile.elementwise.size(), 4u);
  EXPECT_EQ(profile.elementwise[0].name, "rmsnorm");
  EXPECT_DOUBLE_EQ(profile.elementwise[0].points[0].time_us, 50.0);  // input norm (5 x), lower than post (6 x)
  EXPECT_FALSE(profile.elementwise[0].Modelled());
  EXPECT_TRUE(profile.prefill_attention.points.empty());
  EXPECT_TRUE(profile.decode_attention.points.empty());
  EXPECT_EQ(profile.source->kind, "vidur");
  EXPECT_EQ(profile.source->files[0].sha256, Sha256Hex(VidurCsv()));

  // Written without attention tables, read back, and priced by the roofline, flagged.
  const KernelProfile again = ParseKernelProfile(KernelProfileJson(profile), "vidur-profile.json");
  const ProfileLatencyModel model(LoadModelSpec(kModel), LoadGpuSpec("h100-sxm"), CpuOverheadConfig{},
                                  again);
  for (const OperatorCost& op : model.Explain(std::vector<SequenceWork>{{128, 512, true}}).operators) {
    if (op.name == "prefill_attention") {
      EXPECT_EQ(op.source, "roofline (no profile table)");
    }
    if (op.name == "gate_up_proj") {
      EXPECT_EQ(op.source, "profile");
    }
    if (op.name == "lm_head") {
      EXPECT_TRUE(op.extrapolated);
    }
  }
  EXPECT_NE(model.Description().find("prefill_attention"), std::string::npos);
}

TEST(VidurImport, ShapesOfAnotherModelAreRefusedNamingLineAndColumn) {
  ImportReport report;
  const std::string csv = std::string(kVidurHeader) + VidurRow(0, 1, 1, 0.01, 4096);
  try {
    ImportVidurProfile(ParseVidurMlpCsv(csv, "mlp.csv"), LoadModelSpec(kModel), LoadGpuSpec("h100-sxm"),
                       std::nullopt, std::nullopt, Settings(), report);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 2);
    EXPECT_EQ(e.field(), "n_embd");
    EXPECT_NE(std::string(e.what()).find("4096"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("1536"), std::string::npos);
  }
}

TEST(VidurImport, AFolderOfAnotherGpuIsRefused) {
  ImportReport report;
  EXPECT_THROW(ImportVidurProfile(ParseVidurMlpCsv(VidurCsv(), "vidur/compute/a100/m/mlp.csv"),
                                  LoadModelSpec(kModel), LoadGpuSpec("h100-sxm"), std::nullopt,
                                  std::nullopt, Settings(), report),
               InputError);
}

std::string VidurAttentionCsv(const std::string& second_backend = "flashinfer") {
  const std::string header =
      ",time_stats.attn_prefill.median,time_stats.attn_decode.median,time_stats.attn_kv_cache_save.median,"
      "n_embd,n_q_head,n_kv_head,block_size,num_tensor_parallel_workers,max_model_len,batch_size,"
      "prefill_chunk_size,kv_cache_size,is_prefill,attention_backend\n";
  return header +
         "0,0.10,,0.004,1536,12,2,16,1,4096,1,512,0,True,flashinfer\n"
         "1,0.30,,0.004,1536,12,2,16,1,4096,1,512,1024,True,flashinfer\n"
         "2,,0.05,0.002,1536,12,2,16,1,4096,8,0,2048,False,flashinfer\n"
         "3,,0.07,0.003,1536,12,2,16,1,4096,8,0,2048,False,flashinfer\n"  // repeat: the lower counts
         "4,,0.09,0.002,1536,6,1,16,2,4096,8,0,2048,False,flashinfer\n"   // TP=2: not imported
         "5,,0.06,,1536,12,2,16,1,4096,16,0,512,False," + second_backend + "\n";
}

TEST(VidurImport, AttentionCsvGivesAttentionAndKvWriteTables) {
  ImportReport report;
  const KernelProfile profile = ImportVidurProfile(
      ParseVidurMlpCsv(VidurCsv(), "mlp.csv"), LoadModelSpec(kModel), LoadGpuSpec("h100-sxm"),
      ParseVidurAttentionCsv(VidurAttentionCsv(), "attention.csv"), std::nullopt, Settings(), report);
  ASSERT_EQ(profile.prefill_attention.points.size(), 2u);
  EXPECT_EQ(profile.prefill_attention.points[1].rows, 512);
  EXPECT_EQ(profile.prefill_attention.points[1].context_tokens, 1024);
  EXPECT_DOUBLE_EQ(profile.prefill_attention.points[1].time_us, 300.0);
  ASSERT_EQ(profile.decode_attention.points.size(), 2u);
  EXPECT_EQ(profile.decode_attention.points[0].rows, 8);
  EXPECT_DOUBLE_EQ(profile.decode_attention.points[0].time_us, 50.0);
  EXPECT_EQ(profile.decode_attention.block_tokens, 16);
  const ElementwiseTable& kv = profile.elementwise.back();
  ASSERT_EQ(kv.name, "kv_cache_write");
  ASSERT_EQ(kv.points.size(), 2u);  // 8 tokens (a decode batch), 512 (a prefill chunk)
  EXPECT_DOUBLE_EQ(kv.points[0].time_us, 2.0);
  EXPECT_EQ(profile.source->files.size(), 2u);
  const KernelProfile again = ParseKernelProfile(KernelProfileJson(profile), "p.json");
  const ProfileLatencyModel model(LoadModelSpec(kModel), LoadGpuSpec("h100-sxm"), CpuOverheadConfig{}, again);
  for (const OperatorCost& op : model.Explain(std::vector<SequenceWork>{{512, 0, true}}).operators) {
    if (op.name == "prefill_attention") {
      EXPECT_EQ(op.source, "profile");
    }
  }
}

TEST(VidurImport, AttentionOfSeveralBackendsIsRefused) {
  ImportReport report;
  try {
    ImportVidurProfile(ParseVidurMlpCsv(VidurCsv(), "mlp.csv"), LoadModelSpec(kModel), LoadGpuSpec("h100-sxm"),
                       ParseVidurAttentionCsv(VidurAttentionCsv("flash_attention"), "attention.csv"),
                       std::nullopt, Settings(), report);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "attention_backend");
    EXPECT_NE(std::string(e.what()).find("flash_attention, flashinfer"), std::string::npos) << e.what();
  }
}

TEST(VidurCsv, BadCellsNameFileLineAndColumn) {
  std::string csv = VidurCsv();
  const size_t at = csv.find("\n2,") + 1;  // the third data row, line 4
  const size_t end = csv.find(',', csv.find(',', at) + 1);
  csv.replace(csv.find(',', at) + 1, end - csv.find(',', at) - 1, "abc");
  try {
    ParseVidurMlpCsv(csv, "mlp.csv");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "mlp.csv");
    EXPECT_EQ(e.line(), 4);
    EXPECT_EQ(e.field(), "time_stats.attn_pre_proj.median");
  }
  EXPECT_THROW(ParseVidurMlpCsv("a,b\n1\n", "short.csv"), InputError);  // wrong field count
  EXPECT_THROW(ParseVidurMlpCsv("num_tokens\n1\n", "cols.csv"), InputError);  // missing columns
}

TEST(VidurImport, ElementwiseRatesAreBytesOverTimeOfTheMeasuredKernels) {
  // One 512-token row: norm 2th x2, rope 2t(q+kv), act 3tf, add 3th elements
  // of 2 bytes, over the five kernels' summed time.
  const std::string csv = std::string(kVidurHeader) + VidurRow(0, 8, 1, 0.001) + VidurRow(1, 512, 1, 0.01);
  const ElementwiseRates rates = ElementwiseRatesFromVidur(ParseVidurMlpCsv(csv, "mlp.csv"));
  const double t = 512, h = 1536, kv = 1536.0 * 2 / 12, f = 8960;
  const double bytes = 2 * (4 * t * h + 2 * t * (h + kv) + 3 * t * f + 3 * t * h);
  const double seconds = 0.01 * (5 + 6 + 7 + 8 + 9) * 1e-3;
  EXPECT_NEAR(rates.tbps, bytes / seconds / 1e12, 1e-9);
  EXPECT_NEAR(rates.floor_us, 9.0, 1e-9);  // the 8-token row's add: 9 x 0.001 ms
}

TEST(VidurImport, AllReduceKeyedByWholeTokensOfTheHiddenState) {
  const std::string csv =
      ",time_stats.all_reduce.median,rank,num_workers,size,collective\n"
      "0,0.010,0,2,1024,all_reduce\n"      // under one token (1536 x 2 bytes): dropped
      "1,0.020,0,2,3072,all_reduce\n"      // 1 token
      "2,0.030,0,2,6656,all_reduce\n"      // 2 tokens (rounded down)
      "3,0.040,0,4,3072,all_reduce\n";
  ImportReport report;
  const KernelProfile profile =
      ImportVidurProfile(ParseVidurMlpCsv(VidurCsv(), "mlp.csv"), LoadModelSpec(kModel), LoadGpuSpec("h100-sxm"),
                         std::nullopt, ParseVidurAllReduceCsv(csv, "all_reduce.csv"), Settings(), report);
  ASSERT_EQ(profile.all_reduce.size(), 2u);
  EXPECT_EQ(profile.all_reduce[0].tensor_parallel, 2);
  ASSERT_EQ(profile.all_reduce[0].points.size(), 2u);
  EXPECT_EQ(profile.all_reduce[0].points[1].key, 2);
  EXPECT_DOUBLE_EQ(profile.all_reduce[0].points[1].time_us, 30.0);
  EXPECT_EQ(profile.source->files.size(), 2u);
}

// ---- The committed profiles against the real data (skipped without it).

const std::string kShared = EFIMSIM_SHARED_DATA_DIR;

TEST(CommittedProfiles, NameEverySourceFileByTheChecksumOfTheDataBesideTheRepository) {
  for (const std::string& name : BuiltinKernelProfileNames()) {
    const size_t first = name.find('/'), last = name.rfind('/');
    const std::optional<KernelProfile> profile = FindBuiltinKernelProfile(
        name.substr(0, first), name.substr(first + 1, last - first - 1), name.substr(last + 1));
    ASSERT_TRUE(profile.has_value()) << name;
    if (ProfileSourceName(*profile) == "efimsim-kernels") continue;  // measured by kernels/, not imported
    ASSERT_TRUE(profile->source.has_value()) << name << ": an imported profile without its source";
    for (const ProfileSourceFile& file : profile->source->files) {
      const std::string prefix = "../shared/data/";
      ASSERT_EQ(file.path.rfind(prefix, 0), 0u) << name << ": " << file.path;
      const std::string path = kShared + "/" + file.path.substr(prefix.size());
      if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is absent";
      EXPECT_EQ(Sha256Hex(ReadWholeFile(path)), file.sha256) << name << ": " << path;
    }
    // Usable with its own model and GPU.
    const ProfileLatencyModel model(LoadModelSpec(profile->model), LoadGpuSpec(profile->gpu),
                                    CpuOverheadConfig{}, *profile);
    EXPECT_GT(model.Predict(std::vector<SequenceWork>{{256, 1024, true}, {1, 500, true}}).Total().count(), 0);
  }
}

TEST(CommittedProfiles, DeepseekOnH100MeetsTheAccuracyTargetOnPrefillAndDecodeSteps) {
  const std::string path = kShared + "/gpu/h100-pytorch-reference/deepseek-coder-6.7b.steps.json";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is absent";
  const std::vector<MeasuredStep> steps = LoadMeasuredSteps(path);
  const ModelSpec model = LoadModelSpec("deepseek-coder-6.7b");
  const GpuSpec gpu = LoadGpuSpec("h100-sxm");
  const std::optional<KernelProfile> profile =
      FindBuiltinKernelProfile(gpu.name, "pytorch-reference", model.name);
  ASSERT_TRUE(profile.has_value());
  CpuOverheadConfig eager;
  CpuOverheadConfig graph;
  graph.cuda_graphs = true;
  const ProfileLatencyModel eager_model(model, gpu, eager, *profile);
  const ProfileLatencyModel graph_model(model, gpu, graph, *profile);
  const ValidationReport report =
      ValidateLatency(steps, eager_model, graph_model, true, 3, StepTiming::kGpu);
  bool judged = false;
  for (const ErrorSummary& s : report.summaries) {
    if (s.kind != "prefill+decode") continue;
    judged = true;
    EXPECT_GE(s.rows, 60);
    EXPECT_LE(s.median, 0.05);
    EXPECT_LE(s.p90, 0.10);
  }
  EXPECT_TRUE(judged);
}

}  // namespace
}  // namespace efimsim
