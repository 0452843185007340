// Traces that carry block hashes are read in the engine's block size: a
// Mooncake trace (512-token hash ids) replays under any --block-tokens that
// divides 512 with the same sharing, instead of every request being refused
// for keys of the wrong size (issue 22 item 5).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sim/base/errors.h"
#include "sim/run/experiment.h"

namespace efimsim {
namespace {

// Two requests one second apart sharing their first two 512-token blocks,
// in a file of the running test's own (ctest runs the tests of this file
// in parallel processes: one shared path let one test delete the other's).
std::string WriteMooncakeTrace() {
  const std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  const std::string path =
      (std::filesystem::temp_directory_path() / ("efimsim_block_size_test_" + name + ".jsonl")).string();
  std::ofstream out(path);
  out << R"({"timestamp": 0, "input_length": 1500, "output_length": 4, "hash_ids": [7, 8, 9]})" "\n"
      << R"({"timestamp": 1000, "input_length": 1400, "output_length": 4, "hash_ids": [7, 8, 10]})" "\n";
  return path;
}

ExperimentConfig TraceConfig(const std::string& path, int64_t block_tokens) {
  ExperimentConfig config;
  config.workload = "trace";
  config.trace_path = path;
  config.policy = "fim";
  config.engine.block_tokens = block_tokens;
  config.engine.check_invariants = true;
  config.record_wall_time = false;
  return config;
}

TEST(TraceBlockSizeTest, MooncakeKeysFollowTheEnginesBlockSize) {
  const std::string path = WriteMooncakeTrace();
  for (const int64_t block_tokens : {16, 32, 64, 512}) {
    SCOPED_TRACE("block_tokens " + std::to_string(block_tokens));
    const RunSummary summary = RunExperiment(TraceConfig(path, block_tokens)).summary;
    EXPECT_EQ(summary.engine.rejected_requests, 0);
    EXPECT_EQ(summary.requests_completed, 2);
    // The second request reuses both shared 512-token blocks: 1,024 tokens.
    EXPECT_EQ(summary.engine.prefix_cache_hit_tokens, 1024);
  }
  std::filesystem::remove(path);
}

TEST(TraceBlockSizeTest, ABlockSizeThatDoesNotDivideTheHashBlockIsAUsageError) {
  const std::string path = WriteMooncakeTrace();
  EXPECT_THROW(RunExperiment(TraceConfig(path, 24)), UsageError);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace efimsim
