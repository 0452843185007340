// The compact form the built-in shape profiles are compiled into
// (models/formats/shape_profile_binary.h): each built-in decodes to exactly
// what its committed JSON parses to, the round trip keeps every field, and
// damaged bytes are an InternalError, never a crash or a wrong profile.
#include "models/formats/shape_profile_binary.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "models/formats/embedded_files.h"
#include "models/formats/shape_profile.h"
#include "sim/base/check.h"

namespace efimsim {
namespace {

const std::filesystem::path kShapeProfileDir =
    std::filesystem::path(__FILE__).parent_path().parent_path().parent_path() / "models" / "shape_profiles";

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// One table of every kind, an FP8 GEMM and a MoE table with the router.
ShapeProfile SmallProfile() {
  ShapeProfile p;
  p.gpu = "h100-sxm";
  p.engine = "vllm_v1";
  p.command = "test";
  p.source.kind = "aiconfigurator";
  p.source.stack = "stack";
  p.source.method = "method";
  p.source.files = {{"a.csv", "00ff"}};
  p.device = "device";
  p.measured_on = "today";
  p.ceilings = {989e12, 3.35e12, 1979e12};
  p.elementwise = {3.35e12, 0.8, 1.5};
  p.gemm = {{4096, 4096, {{1, 10.5}, {8, 11.25}}}};
  p.prefill_attention = {{{32, 8, 128}, {{128, 20.0}}}};
  p.decode_attention = {{{32, 8, 128}, {{1, 512, 5.0}, {4, 512, 6.5}}}};
  p.all_reduce = {{2, {{1024, 7.0}}}};
  p.gemm_fp8 = {{"fp8", "cutlass", {{4096, 4096, {{1, 6.0}}}}}};
  p.prefill_attention_fp8kv = p.prefill_attention;
  p.decode_attention_fp8kv = p.decode_attention;
  ShapeMoeTable moe;
  moe.key = {"fp8", 2048, 768, 8, 128, 1, 1, "balanced"};
  moe.kernel = "fused_moe";
  moe.includes_router = true;
  moe.points = {{16, 30.0}, {64, 41.0}};
  p.moe = {moe};
  return p;
}

TEST(ShapeProfileBinary, EveryBuiltinIsItsCommittedJsonExactly) {
  std::vector<std::string> committed;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(kShapeProfileDir)) {
    if (entry.path().extension() != ".json") continue;
    std::string name = std::filesystem::relative(entry.path(), kShapeProfileDir).replace_extension().string();
    committed.push_back(name);
  }
  std::sort(committed.begin(), committed.end());
  ASSERT_FALSE(committed.empty());
  EXPECT_EQ(BuiltinShapeProfileNames(), committed);
  for (const EmbeddedFile& file : EmbeddedShapeProfiles()) {
    const std::string name(file.name);
    const ShapeProfile parsed =
        ParseShapeProfile(ReadFile(kShapeProfileDir / (name + ".json")), "committed " + name);
    // Bit for bit: every double and count as the parser made it.
    EXPECT_TRUE(EncodeShapeProfile(parsed) == file.text) << name;
    const ShapeProfile* builtin = FindBuiltinShapeProfile(parsed.gpu, parsed.source.kind, parsed.engine);
    ASSERT_NE(builtin, nullptr) << name;
    EXPECT_EQ(builtin->origin, "built-in shape profile models/shape_profiles/" + name + ".json");
    EXPECT_EQ(ShapeProfileJson(*builtin), ShapeProfileJson(parsed)) << name;
  }
}

TEST(ShapeProfileBinary, RoundTripKeepsEveryField) {
  const ShapeProfile p = SmallProfile();
  const std::string bytes = EncodeShapeProfile(p);
  const ShapeProfile back = DecodeShapeProfile(bytes, "origin");
  EXPECT_EQ(back.origin, "origin");
  EXPECT_EQ(ShapeProfileJson(back), ShapeProfileJson(p));
  EXPECT_EQ(EncodeShapeProfile(back), bytes);
  EXPECT_TRUE(back.moe.at(0).includes_router);
  EXPECT_EQ(back.source.files.at(0).sha256, "00ff");
  EXPECT_EQ(back.decode_attention_fp8kv.at(0).points.at(1).rows, 4);
  EXPECT_EQ(back.ceilings.fp8_flops_per_second, 1979e12);
}

TEST(ShapeProfileBinary, DamagedBytesAreAnInternalError) {
  const std::string bytes = EncodeShapeProfile(SmallProfile());
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    EXPECT_THROW(DecodeShapeProfile(std::string_view(bytes).substr(0, cut), "o"), InternalError) << cut;
  }
  EXPECT_THROW(DecodeShapeProfile(bytes + "x", "o"), InternalError);
  std::string bad_magic = bytes;
  bad_magic[0] = 'E';
  EXPECT_THROW(DecodeShapeProfile(bad_magic, "o"), InternalError);
  // A count far beyond the bytes left (the gpu string's length).
  std::string huge = bytes;
  const size_t count_at = std::string_view("efimsim-shape-profile/compact-1\n").size();
  huge[count_at + 7] = '\x7f';
  try {
    DecodeShapeProfile(huge, "o");
    ADD_FAILURE() << "expected InternalError";
  } catch (const InternalError& e) {
    EXPECT_NE(std::string(e.what()).find("o: compact form at byte"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace efimsim
