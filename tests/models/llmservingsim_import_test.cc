// efimsim profile import --from llmservingsim: a hand-made bundle end to end
// (tables, shapes refused, bad rows named by file, line and column,
// provenance), and, where ../shared/data is present, the committed RTX 4090
// profile's provenance against the files it was made from.
#include "models/import/llmservingsim_import.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "models/formats/kernel_profile.h"
#include "models/latency/latency_model_registry.h"
#include "models/import/llmservingsim_shapes.h"
#include "models/formats/spec_catalog.h"
#include "sim/base/errors.h"
#include "sim/base/sha256.h"

namespace efimsim {
namespace {

namespace fs = std::filesystem;

const char* kMeta =
    "profiler_version: 1.0.0\n"
    "vllm_version: 0.19.0\n"
    "cuda_version: '12.8'\n"
    "gpu: NVIDIA GeForce RTX 4090\n"
    "hardware: RTX4090\n"
    "profiled_at: '2026-08-17T19:43:32+00:00'\n"
    "model: meta-llama/Llama-3.1-8B\n"
    "variant: bf16\n"
    "engine_effective:\n"
    "  enforce_eager: true\n"
    "  block_size: 16\n"
    "  hf_overrides:\n"
    "    num_hidden_layers: 1\n"
    "    intermediate_size: 14336\n"
    "    num_attention_heads: 32\n"
    "    num_key_value_heads: 8\n"
    "    vocab_size: 128256\n"
    "measurement_iterations: 3\n";

// A bundle with made-up times (a fixture, not measurements).
class Bundle {
 public:
  Bundle() {
    dir_ = fs::temp_directory_path() /
           (std::string("efimsim-lss-") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "tp1");
    Write("meta.yaml", kMeta);
    std::string dense = "layer,tokens,time_us\n";
    for (const char* layer : {"embedding", "layernorm", "qkv_proj", "rotary_emb", "o_proj", "gate_up_proj",
                              "act_fn", "down_proj", "final_layernorm"}) {
      for (int t : {1, 2, 4, 8, 2048}) dense += std::string(layer) + "," + std::to_string(t) + "," + std::to_string(10 + t) + ".5\n";
    }
    Write("tp1/dense.csv", dense);
    std::string seq = "layer,sequences,time_us\n";
    for (int s : {1, 2, 256}) seq += "lm_head," + std::to_string(s) + ",1000\nsampler," + std::to_string(s) + ",25\n";
    Write("tp1/per_sequence.csv", seq);
    Write("tp1/attention.csv",
          "prefill_chunk,kv_prefill,n_decode,kv_decode,time_us\n"
          "0,0,1,16,9.3\n0,0,1,32,9.4\n0,0,2,16,9.8\n"
          "16,0,0,0,20\n16,16,0,0,21\n32,0,0,0,30\n"
          "16,0,1,16,25\n");
  }
  ~Bundle() { fs::remove_all(dir_); }
  void Write(const std::string& f, const std::string& text) {
    std::ofstream(dir_ / f, std::ios::binary | std::ios::trunc) << text;
  }
  std::string dir() const { return dir_.string(); }

 private:
  fs::path dir_;
};

KernelProfile Import(const Bundle& b, const std::string& model = "llama-3.1-8b",
                     const std::string& gpu = "rtx-4090") {
  ImportSettings settings;
  settings.command = "test";
  settings.interpolation = "linear";
  ImportReport report;
  return ImportLlmServingSimProfile(b.dir(), LoadModelSpec(model), LoadGpuSpec(gpu), settings, report);
}

TEST(LlmServingSimImport, HandMadeBundle) {
  Bundle b;
  const KernelProfile p = Import(b);
  EXPECT_EQ(p.gpu, "rtx-4090");
  ASSERT_TRUE(p.source.has_value());
  EXPECT_EQ(p.source->kind, "llmservingsim");
  ASSERT_EQ(p.source->files.size(), 4u);
  EXPECT_EQ(p.provenance.date_utc, "2026-08-17T19:43:32+00:00");  // meta's profiled_at
  ASSERT_EQ(p.gemm.size(), 5u);
  EXPECT_EQ(p.gemm[0].name, "qkv_proj");
  EXPECT_EQ(p.gemm[0].n, 6144);
  EXPECT_EQ(p.gemm[0].points.size(), 5u);
  EXPECT_DOUBLE_EQ(p.gemm[0].points[4].time_us, 2058.5);
  EXPECT_EQ(p.gemm[4].name, "lm_head");
  EXPECT_EQ(p.gemm[4].n, 128256);
  EXPECT_EQ(p.decode_attention.points.size(), 3u);   // the mixed row is left out
  EXPECT_EQ(p.prefill_attention.points.size(), 3u);
  EXPECT_EQ(p.prefill_attention.points[1].context_tokens, 16);
  int modelled = 0;
  for (const ElementwiseTable& t : p.elementwise) modelled += t.Modelled();
  EXPECT_EQ(modelled, 2);  // residual_add and kv_cache_write: inside other kernels
  // It reads back.
  const KernelProfile back = ParseKernelProfile(KernelProfileJson(p), "round trip");
  EXPECT_EQ(back.source->kind, "llmservingsim");
}

TEST(LlmServingSimShapes, BundlesOfOverriddenShapesBecomeAShapeProfile) {
  Bundle b;
  std::string meta = kMeta;
  meta.replace(meta.find("intermediate_size: 14336"), 24, "intermediate_size: 7168");
  meta.replace(meta.find("num_attention_heads: 32"), 23, "num_attention_heads: 16");
  meta.replace(meta.find("num_key_value_heads: 8"), 22, "num_key_value_heads: 4");
  b.Write("meta.yaml", meta);
  // The model-keyed import refuses it: these are not Llama-3.1-8B's shapes.
  EXPECT_THROW(Import(b), InputError);
  // Qwen3's q/k norm rows are left out with a note, not an error.
  b.Write("tp1/dense.csv", "layer,tokens,time_us\nqk_norm,1,3.5\n" + [] {
    std::string dense;
    for (const char* layer : {"layernorm", "qkv_proj", "rotary_emb", "o_proj", "gate_up_proj", "act_fn",
                              "down_proj", "final_layernorm"}) {
      for (int t : {1, 2, 4, 8, 2048}) dense += std::string(layer) + "," + std::to_string(t) + "," + std::to_string(2 + t) + ".5\n";
    }
    return dense;
  }());
  ImportSettings settings;
  settings.command = "test";
  settings.interpolation = "linear";
  ImportReport report;
  const ShapeProfile p = ImportLlmServingSimShapes({b.dir()}, LoadGpuSpec("rtx-4090"), settings, report);
  EXPECT_EQ(p.engine, "vllm_v1");
  EXPECT_EQ(p.source.kind, "llmservingsim");
  ASSERT_EQ(p.gemm.size(), 5u);
  bool gate_up = false;
  for (const ShapeGemmTable& t : p.gemm) gate_up = gate_up || (t.n == 14336 && t.k == 4096);  // 2 x 7168
  EXPECT_TRUE(gate_up);
  ASSERT_EQ(p.decode_attention.size(), 1u);
  EXPECT_EQ(p.decode_attention[0].heads, (ShapeHeads{16, 4, 128}));
  EXPECT_GT(p.elementwise.constant_us, 0.0);
  bool noted = false;
  for (const std::string& n : report.notes) noted = noted || n.find("qk_norm") != std::string::npos;
  EXPECT_TRUE(noted);
  // It reads back, and prices the real model (shapes transferred, flagged).
  const ShapeProfile back = ParseShapeProfile(ShapeProfileJson(p), "round trip");
  EXPECT_EQ(back.gemm.size(), 5u);
}

TEST(LlmServingSimShapes, AutoTakesThemOnTheRtxPro6000) {
  const auto m = MakeLatencyModel(LatencyConfig{"auto", LatencyModelOptions{}, CpuOverheadConfig{}}, LoadModelSpec("llama-3.1-8b"), LoadGpuSpec("rtx-pro-6000"));
  EXPECT_EQ(m->Description().rfind("kernel source llmservingsim (auto: the vllm_v1 engine's own kernels)", 0), 0u)
      << m->Description();
  EXPECT_NE(m->Description().find("shape_profiles/rtx-pro-6000/llmservingsim/vllm_v1.json"), std::string::npos);
}

TEST(LlmServingSimShapes, OverridesOfALaterTpPassAreScaledBackForTheTp1Tables) {
  // A bundle profiled at tp_degrees [1, 2] records the TP2 pass's per-GPU
  // shard in its hf_overrides; its tp1 tables were timed at twice those
  // shapes, the model's own. Keying them at the shard's shapes priced every
  // GEMM of the RTX PRO 6000 profile about 2x.
  std::string meta = kMeta;
  meta.replace(meta.find("intermediate_size: 14336"), 24, "intermediate_size: 7168");
  meta.replace(meta.find("num_attention_heads: 32"), 23, "num_attention_heads: 16");
  meta.replace(meta.find("num_key_value_heads: 8"), 22, "num_key_value_heads: 4");
  const LlmServingSimMeta tp1_only = ParseLlmServingSimMeta(meta, "meta.yaml");
  EXPECT_EQ(tp1_only.intermediate_size, 7168);
  const LlmServingSimMeta two_passes = ParseLlmServingSimMeta("tp_degrees: [1, 2]\n" + meta, "meta.yaml");
  EXPECT_EQ(two_passes.tp1_scale, 2);
  EXPECT_EQ(two_passes.intermediate_size, 14336);
  EXPECT_EQ(two_passes.num_attention_heads, 32);
  EXPECT_EQ(two_passes.num_key_value_heads, 8);
  EXPECT_THROW(ParseLlmServingSimMeta("tp_degrees: 2\n" + meta, "meta.yaml"), InputError);
}

TEST(LlmServingSimShapes, TheRtxPro6000ProfileMeasuresLlama8bsOwnGemms) {
  const auto m = MakeLatencyModel(LatencyConfig{"auto", LatencyModelOptions{}, CpuOverheadConfig{}},
                                  LoadModelSpec("llama-3.1-8b"), LoadGpuSpec("rtx-pro-6000"));
  EXPECT_NE(m->Description().find("GEMMs 5 of 5 at measured (n, k)"), std::string::npos)
      << m->Description();
}

TEST(LlmServingSimImport, OtherGpuRefused) {
  Bundle b;
  try {
    Import(b, "llama-3.1-8b", "h100-sxm");
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "gpu") << e.what();
  }
}

TEST(LlmServingSimImport, OtherShapesRefused) {
  Bundle b;
  try {
    Import(b, "deepseek-coder-6.7b");
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not for this model's shapes"), std::string::npos) << e.what();
  }
}

TEST(LlmServingSimImport, BadValueNamesFileLineAndColumn) {
  Bundle b;
  b.Write("tp1/attention.csv", "prefill_chunk,kv_prefill,n_decode,kv_decode,time_us\n0,0,1,16,9.3\n0,0,1,x,9\n");
  try {
    Import(b);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 3);
    EXPECT_EQ(e.field(), "kv_decode");
    EXPECT_NE(e.file().find("attention.csv"), std::string::npos);
  }
}

TEST(LlmServingSimImport, WrongHeaderAndMissingFile) {
  Bundle b;
  b.Write("tp1/dense.csv", "layer,tokens,ms\nqkv_proj,1,2\n");
  EXPECT_THROW(Import(b), InputError);
  fs::remove(fs::path(b.dir()) / "tp1/dense.csv");
  try {
    Import(b);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(e.file().find("dense.csv"), std::string::npos) << e.what();
  }
}

TEST(LlmServingSimImport, NegativeTimeRefused) {
  Bundle b;
  b.Write("tp1/per_sequence.csv", "layer,sequences,time_us\nlm_head,1,-3\n");
  try {
    Import(b);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "time_us");
    EXPECT_EQ(e.line(), 2);
  }
}

TEST(LlmServingSimImport, CommittedRtx4090ProfileNamesItsFiles) {
  const auto profile = FindBuiltinKernelProfile("rtx-4090", "llmservingsim", "llama-3.1-8b");
  ASSERT_TRUE(profile.has_value());
  ASSERT_TRUE(profile->source.has_value());
  EXPECT_EQ(profile->source->kind, "llmservingsim");
  const std::string shared = EFIMSIM_SHARED_DATA_DIR;
  for (const ProfileSourceFile& f : profile->source->files) {
    // Paths are relative to the repository root: ../shared/data/...
    const std::string rel = f.path.substr(f.path.find("shared/data/") + std::string("shared/data/").size());
    const std::string path = shared + "/" + rel;
    if (!fs::exists(path)) GTEST_SKIP() << path << " is absent";
    std::ifstream in(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    EXPECT_EQ(Sha256Hex(bytes.str()), f.sha256) << path;
  }
}

}  // namespace
}  // namespace efimsim
