// validate-serving: the readers of real serving runs (errors name file, line
// and field) and a whole replay of a hand-made run
// (tests/run/testdata/serving_run: made-up times, not measurements).
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "traces/serving_run.h"
#include "sim/run/serving_validation.h"
#include "sim/base/errors.h"

namespace efimsim {
namespace {

namespace fs = std::filesystem;

const std::string kDir = std::string(EFIMSIM_TESTDATA_DIR) + "/serving_run";

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A copy of the fixture in a fresh folder, to break.
class RunCopy {
 public:
  RunCopy() {
    dir_ = fs::temp_directory_path() /
           ("efimsim-serving-run-test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "vllm");
    for (const char* f : {"workload.jsonl", "vllm/meta.json", "vllm/requests.jsonl"}) {
      fs::copy_file(kDir + "/" + f, dir_ / f);
    }
  }
  ~RunCopy() { fs::remove_all(dir_); }
  std::string path(const std::string& f) const { return (dir_ / f).string(); }
  std::string dir() const { return dir_.string(); }
  void Replace(const std::string& f, const std::string& from, const std::string& to) {
    std::string text = Read(path(f));
    const size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    std::ofstream(path(f), std::ios::binary | std::ios::trunc) << text;
  }

 private:
  fs::path dir_;
};

InputError ExpectInputError(const std::vector<std::string>& paths, const std::string& workload = "") {
  try {
    ReadServingRun(paths, workload);
  } catch (const InputError& error) {
    return error;
  }
  ADD_FAILURE() << "no InputError";
  return InputError("", 0, "", "");
}

TEST(ServingRunReader, ReadsTheBenchLayoutAsValidatePyDefinesIt) {
  const ServingRun run = ReadServingRun({kDir}, "");
  EXPECT_EQ(run.format, "llmservingsim");
  ASSERT_EQ(run.requests.size(), 4u);
  EXPECT_EQ(run.engine.vllm_version, "0.19.0");
  EXPECT_EQ(*run.engine.num_gpu_blocks, 64);
  EXPECT_EQ(*run.engine.max_num_batched_tokens, 64);
  EXPECT_TRUE(*run.engine.async_scheduling);
  EXPECT_FALSE(*run.engine.enforce_eager);
  const ServingRunRequest& r0 = run.requests[0];
  EXPECT_EQ(r0.id, "bench-0");
  EXPECT_EQ(r0.token_ids.size(), 40u);
  // TTFT and E2E from queued_ts; TPOT over the outputs after the first.
  EXPECT_NEAR(r0.ttft_ms, 30.0, 1e-6);
  EXPECT_NEAR(r0.e2e_ms, 110.0, 1e-6);
  EXPECT_NEAR(r0.tpot_ms, 80.0 / 4, 1e-6);
  EXPECT_FALSE(run.requests[3].has_tpot);  // one output token
  EXPECT_EQ(run.requests[1].engine_arrival_ns, 50000000);
  EXPECT_EQ(run.requests[1].workload_arrival_ns, 50000000);
}

TEST(ServingRunReader, MissingFileIsNamed) {
  RunCopy copy;
  fs::remove(copy.path("vllm/requests.jsonl"));
  const InputError e = ExpectInputError({copy.dir()});
  EXPECT_NE(std::string(e.what()).find("requests.jsonl"), std::string::npos) << e.what();
  EXPECT_EQ(e.field(), "file");
}

TEST(ServingRunReader, MissingWorkloadIsNamed) {
  RunCopy copy;
  fs::remove(copy.path("workload.jsonl"));
  const InputError e = ExpectInputError({copy.dir()});
  EXPECT_EQ(e.field(), "dataset_path") << e.what();
}

TEST(ServingRunReader, WorkloadChecksumMustMatchMeta) {
  RunCopy copy;
  copy.Replace("workload.jsonl", "\"output_toks\": 3", "\"output_toks\": 4");
  const InputError e = ExpectInputError({copy.dir()});
  EXPECT_EQ(e.field(), "sha256") << e.what();
  EXPECT_NE(std::string(e.what()).find("dataset_hash"), std::string::npos) << e.what();
}

TEST(ServingRunReader, RequestIdsMustMatchTheWorkload) {
  RunCopy copy;
  copy.Replace("vllm/requests.jsonl", "\"bench-2\"", "\"bench-7\"");
  const InputError e = ExpectInputError({copy.dir()});
  EXPECT_EQ(e.field(), "request_id") << e.what();
  EXPECT_EQ(e.line(), 3);
}

TEST(ServingRunReader, DuplicateIdLeavesARequestUnanswered) {
  RunCopy copy;
  copy.Replace("vllm/requests.jsonl", "\"bench-2\"", "\"bench-1\"");
  const InputError e = ExpectInputError({copy.dir()});
  EXPECT_EQ(e.field(), "request_id") << e.what();
  EXPECT_NE(std::string(e.what()).find("also on line 2"), std::string::npos) << e.what();
}

TEST(ServingRunReader, BadFieldNamesFileLineAndField) {
  RunCopy copy;
  copy.Replace("vllm/requests.jsonl", "\"first_token_ts\": 100.13", "\"first_token_ts\": \"x\"");
  const InputError e = ExpectInputError({copy.dir()});
  EXPECT_EQ(e.field(), "first_token_ts") << e.what();
  EXPECT_EQ(e.line(), 3);
  EXPECT_NE(e.file().find("requests.jsonl"), std::string::npos);
}

TEST(ServingRunReader, MissingMetaFieldIsNamed) {
  RunCopy copy;
  copy.Replace("vllm/meta.json", "\"num_gpu_blocks\"", "\"num_gpu_blockz\"");
  const InputError e = ExpectInputError({copy.dir()});
  EXPECT_EQ(e.field(), "kv_cache.num_gpu_blocks") << e.what();
}

TEST(ServingRunReader, LengthsMustAgreeWithTheWorkload) {
  RunCopy copy;
  copy.Replace("vllm/requests.jsonl", "\"input_toks\": 20", "\"input_toks\": 21");
  const InputError e = ExpectInputError({copy.dir()});
  EXPECT_EQ(e.field(), "input_toks") << e.what();
  EXPECT_EQ(e.line(), 2);
}

TEST(ServingRunReader, VllmBenchResult) {
  const ServingRun run = ReadServingRun({kDir + "/vllm_bench_result.json"}, "");
  EXPECT_EQ(run.format, "vllm-bench");
  ASSERT_EQ(run.requests.size(), 2u);  // the failed one is left out, and named
  ASSERT_EQ(run.excluded.size(), 1u);
  EXPECT_NEAR(run.requests[0].ttft_ms, 30.0, 1e-9);
  EXPECT_NEAR(run.requests[0].e2e_ms, 110.0, 1e-9);
  EXPECT_NEAR(run.requests[0].tpot_ms, 20.0, 1e-9);  // (latency - ttft) / (5 - 1)
  EXPECT_EQ(run.requests[1].engine_arrival_ns, 10000000);
  EXPECT_TRUE(run.requests[0].token_ids.empty());
}

TEST(ServingRunReader, VllmBenchResultNeedsDetailedArrays) {
  const std::string path = (fs::temp_directory_path() / "efimsim-vllm-bench-bad.json").string();
  std::ofstream(path) << R"({"input_lens":[10],"output_lens":[2],"ttfts":[0.1],"itls":[[0.1]],"start_times":[1.0, 2.0]})";
  try {
    ReadServingRun({path}, "");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "start_times") << e.what();
  }
  fs::remove(path);
}

TEST(ServingValidation, ReplaysTheHandMadeRun) {
  const ServingRun run = ReadServingRun({kDir}, "");
  ServingValidationOptions options;
  options.check_invariants = true;
  const ServingValidation v = ValidateServing(run, options);
  ASSERT_EQ(v.metrics.size(), 3u);
  EXPECT_EQ(v.result.summary.requests_completed, 4);
  EXPECT_EQ(v.result.summary.engine.kv_blocks_total, 64);  // the run's num_gpu_blocks
  // Request 2 reuses request 0's two full prefix blocks.
  EXPECT_GT(v.result.summary.prefix_cache_hit_rate, 0.0);
  EXPECT_EQ(v.metrics[0].metric, "ttft");
  EXPECT_EQ(v.metrics[0].samples, 4);
  EXPECT_EQ(v.metrics[1].samples, 3);  // TPOT: outputs > 1 only
  EXPECT_NEAR(v.metrics[0].measured[0], (30.0 + 20.0 + 30.0 + 20.0) / 4, 1e-6);
  for (const MetricComparison& c : v.metrics) {
    for (int i = 0; i < 5; ++i) {
      EXPECT_GT(c.predicted[i], 0) << c.metric;
      EXPECT_NEAR(c.error[i], (c.predicted[i] - c.measured[i]) / c.measured[i], 1e-12);
    }
  }
  bool named_async = false;
  for (const std::string& n : v.not_reproduced) named_async |= n.find("async_scheduling") == 0;
  EXPECT_TRUE(named_async);
  const std::string text = RenderServingValidation(run, v);
  EXPECT_NE(text.find("rtx-4090"), std::string::npos);
  EXPECT_NE(text.find("not reproduced"), std::string::npos);
}

TEST(ServingValidation, VllmBenchResultReplays) {
  const ServingRun run = ReadServingRun({kDir + "/vllm_bench_result.json"}, "");
  ServingValidationOptions options;
  options.gpu = "rtx-4090";
  const ServingValidation v = ValidateServing(run, options);
  EXPECT_EQ(v.result.summary.requests_completed, 2);
  bool named_ids = false;
  for (const std::string& n : v.not_reproduced) named_ids |= n.find("token ids") != std::string::npos;
  EXPECT_TRUE(named_ids);
}

TEST(ServingValidation, UnrecordedBatchLimitsAreVllmsApiServerDefaultsForTheGpu) {
  const ServingRun run = ReadServingRun({kDir + "/vllm_bench_result.json"}, "");
  const auto mapped = [&](const std::string& gpu, const std::string& field) {
    ServingValidationOptions options;
    options.gpu = gpu;
    for (const auto& [run_field, efimsim] : ValidateServing(run, options).mapping) {
      if (run_field == field) return efimsim;
    }
    return std::string();
  };
  EXPECT_NE(mapped("h100-sxm", "max_num_batched_tokens").find("--max-num-batched-tokens 8192"), std::string::npos);
  EXPECT_NE(mapped("h100-sxm", "max_num_seqs").find("--max-num-seqs 1024"), std::string::npos);
  EXPECT_NE(mapped("a100-sxm-80g", "max_num_seqs").find("--max-num-seqs 256"), std::string::npos);
  EXPECT_NE(mapped("rtx-4090", "max_num_batched_tokens").find("--max-num-batched-tokens 2048"), std::string::npos);
}

TEST(ServingValidation, UnknownGpuNeedsTheOption) {
  ServingRun run = ReadServingRun({kDir + "/vllm_bench_result.json"}, "");
  const ServingValidationOptions options;  // a named object: g++ 12 warns on the temporary
  EXPECT_THROW(ValidateServing(run, options), UsageError);
}

}  // namespace
}  // namespace efimsim
