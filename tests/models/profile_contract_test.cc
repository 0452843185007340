// The profile file format has two implementations: the harness's writer
// (kernels/calibrate/profile.h, standalone C++ for GPU machines with no
// packages) and the simulator's reader (models/formats/kernel_profile.h). This test
// is their contract: what efimsim-calibrate writes, the latency model reads
// back field for field, and the reader refuses what the writer must never
// emit. Both halves are CPU code, so it runs everywhere.
#include <gtest/gtest.h>

#include <string>

#include "calibrate/json.h"
#include "calibrate/profile.h"
#include "models/formats/kernel_profile.h"
#include "sim/base/errors.h"

namespace efimsim {
namespace {

kernels::Profile HarnessProfile() {
  kernels::Profile p;
  p.gpu = "h100-sxm";
  p.model = "llama-3.1-8b";
  p.command = "efimsim-calibrate --gpu h100-sxm --model llama-3.1-8b --out 'x y.json'";
  p.provenance = {"NVIDIA H100 80GB HBM3", 132, 1980, 2619, "580.1", "13.0", "abc1234",
                  "2026-11-25T07:00:00Z"};
  // Points deliberately out of order: the writer sorts them.
  p.gemm.push_back({"qkv_proj", 6144, 4096, {{64, 21.5}, {1, 9.25}}});
  p.gemm.push_back({"lm_head", 128256, 4096, {{1, 310.0}}});
  p.prefill.q_heads = 32;
  p.prefill.kv_heads = 8;
  p.prefill.head_dim = 128;
  p.prefill.points = {{1024, 4096, 180.5}, {512, 0, 40.0}};
  p.decode.q_heads = 32;
  p.decode.kv_heads = 8;
  p.decode.head_dim = 128;
  p.decode.points = {{8, 2048, 30.0}, {1, 128, 6.5}};
  p.elementwise.push_back({"rmsnorm", {{1, 3.0}, {4096, 12.0}}});
  p.elementwise.push_back({"rope", {{1, 2.5}}});
  p.cpu_overhead.graph_capture_batch_sizes = {1, 2, 4, 8};
  p.run_to_run.repetitions = 2;
  p.run_to_run.tables.push_back({"gemm/qkv_proj", 2, 0.03125, 0.015625});
  return p;
}

TEST(ProfileContractTest, ReaderReadsWhatTheHarnessWrites) {
  const kernels::Profile written = HarnessProfile();
  const std::string text = kernels::json::write(kernels::profile_to_json(written));
  const KernelProfile read = ParseKernelProfile(text, "harness output");

  EXPECT_EQ(read.gpu, written.gpu);
  EXPECT_EQ(read.model, written.model);
  EXPECT_EQ(read.command, written.command);
  EXPECT_EQ(read.gemm_kernel, written.gemm_kernel);
  EXPECT_EQ(read.prefill_attention_kernel, written.prefill_kernel);
  EXPECT_EQ(read.decode_attention_kernel, written.decode_kernel);
  EXPECT_EQ(read.elementwise_kernel, written.elementwise_kernel);
  EXPECT_EQ(read.provenance.gpu_name, written.provenance.gpu_name);
  EXPECT_EQ(read.provenance.sm_count, written.provenance.sm_count);
  EXPECT_EQ(read.provenance.sm_clock_mhz, written.provenance.sm_clock_mhz);
  EXPECT_EQ(read.provenance.memory_clock_mhz, written.provenance.memory_clock_mhz);
  EXPECT_EQ(read.provenance.driver_version, written.provenance.driver_version);
  EXPECT_EQ(read.provenance.cuda_runtime_version, written.provenance.cuda_runtime_version);
  EXPECT_EQ(read.provenance.git_commit, written.provenance.git_commit);
  EXPECT_EQ(read.provenance.date_utc, written.provenance.date_utc);
  const ProfileSweepRepetitions& reps = read.provenance.sweep_repetitions;
  EXPECT_EQ(reps.count, 2);
  EXPECT_EQ(reps.combine, "minimum");
  ASSERT_EQ(reps.tables.size(), 1u);
  EXPECT_EQ(reps.tables[0].table, "gemm/qkv_proj");
  EXPECT_EQ(reps.tables[0].points, 2);
  EXPECT_DOUBLE_EQ(reps.tables[0].max_rel_diff, 0.03125);
  EXPECT_DOUBLE_EQ(reps.tables[0].median_rel_diff, 0.015625);
  EXPECT_FALSE(read.source.has_value()) << "the harness's own measurements carry no import source";

  ASSERT_EQ(read.gemm.size(), 2u);
  // Tables in the order written; each table's points sorted by m.
  EXPECT_EQ(read.gemm[0].name, "qkv_proj");
  EXPECT_EQ(read.gemm[1].name, "lm_head");
  EXPECT_EQ(read.gemm[0].n, 6144);
  EXPECT_EQ(read.gemm[0].k, 4096);
  EXPECT_EQ(read.gemm[1].n, 128256);
  ASSERT_EQ(read.gemm[0].points.size(), 2u);
  EXPECT_EQ(read.gemm[0].points[0].key, 1);
  EXPECT_DOUBLE_EQ(read.gemm[0].points[0].time_us, 9.25);
  EXPECT_EQ(read.gemm[0].points[1].key, 64);
  EXPECT_DOUBLE_EQ(read.gemm[0].points[1].time_us, 21.5);

  EXPECT_EQ(read.prefill_attention.q_heads, 32);
  EXPECT_EQ(read.prefill_attention.kv_heads, 8);
  EXPECT_EQ(read.prefill_attention.head_dim, 128);
  EXPECT_EQ(read.prefill_attention.block_tokens, 16);
  ASSERT_EQ(read.prefill_attention.points.size(), 2u);
  EXPECT_EQ(read.prefill_attention.points[0].rows, 512);
  EXPECT_EQ(read.prefill_attention.points[0].context_tokens, 0);
  EXPECT_DOUBLE_EQ(read.prefill_attention.points[1].time_us, 180.5);
  ASSERT_EQ(read.decode_attention.points.size(), 2u);
  EXPECT_EQ(read.decode_attention.points[0].rows, 1);
  EXPECT_EQ(read.decode_attention.points[1].context_tokens, 2048);

  ASSERT_EQ(read.elementwise.size(), 2u);
  EXPECT_EQ(read.elementwise[0].name, "rmsnorm");
  EXPECT_FALSE(read.elementwise[0].Modelled()) << "the harness times what it writes";
  EXPECT_DOUBLE_EQ(read.elementwise[0].points[1].time_us, 12.0);

  EXPECT_EQ(read.cpu_overhead.source, written.cpu_overhead.source);
  EXPECT_DOUBLE_EQ(read.cpu_overhead.step_us, written.cpu_overhead.step_us);
  EXPECT_DOUBLE_EQ(read.cpu_overhead.per_sequence_us, written.cpu_overhead.per_sequence_us);
  EXPECT_DOUBLE_EQ(read.cpu_overhead.per_layer_launch_us, written.cpu_overhead.per_layer_launch_us);
  EXPECT_EQ(read.cpu_overhead.graph_capture_batch_sizes, (std::vector<int64_t>{1, 2, 4, 8}));
}

// The simulator's own writer and the harness's agree on the bytes too, so
// a profile re-saved by `efimsim profile` is the file the harness wrote.
TEST(ProfileContractTest, SimulatorRewritesTheHarnessFileUnchanged) {
  const std::string text = kernels::json::write(kernels::profile_to_json(HarnessProfile()));
  const KernelProfile read = ParseKernelProfile(text, "harness output");
  const KernelProfile again = ParseKernelProfile(KernelProfileJson(read), "rewritten");
  EXPECT_EQ(KernelProfileJson(again), KernelProfileJson(read));
}

// A key the harness does not document would be refused by the reader: the
// writer's key set is the reader's (unknown keys are an error).
TEST(ProfileContractTest, ReaderRefusesAKeyTheFormatDoesNotHave) {
  kernels::json::Value json = kernels::profile_to_json(HarnessProfile());
  json.set("undocumented", kernels::json::Value(std::string("x")));
  EXPECT_THROW(ParseKernelProfile(kernels::json::write(json), "harness output"), InputError);
}

}  // namespace
}  // namespace efimsim
