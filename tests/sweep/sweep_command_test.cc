// efimsim sweep end to end on a small grid: the same bytes whatever the
// thread count, and shards joined by merge equal the whole sweep.
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/app/commands.h"
#include "sim/run/sweep_table.h"
#include "sim/base/errors.h"

namespace efimsim::cli {
namespace {

namespace fs = std::filesystem;

class SweepCommandTest : public ::testing::Test {
 protected:
  SweepCommandTest()
      : root_(fs::temp_directory_path() / ("efimsim-sweep-test-" + std::to_string(getpid()))) {
    fs::remove_all(root_);
  }
  ~SweepCommandTest() override { fs::remove_all(root_); }

  std::string Dir(const std::string& name) const { return (root_ / name).string(); }

  static int Run(int (*command)(int, const char* const*), std::vector<std::string> args) {
    std::vector<const char*> argv;
    for (const std::string& a : args) argv.push_back(a.c_str());
    return command(static_cast<int>(argv.size()), argv.data());
  }
  int Sweep(const std::string& out, const std::string& jobs, const std::string& shard) {
    return Run(RunSweepCommand, {"sweep", "--grid", "users=1,3", "--grid",
                                 "max_num_batched_tokens=512,2048", "--policies", "fim,efim",
                                 "--rounds", "2", "--documents", "synthetic", "--wall-time=false", "--jobs", jobs,
                                 "--shard", shard, "--out", out});
  }
  static std::string Read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream content;
    content << in.rdbuf();
    return content.str();
  }

  fs::path root_;
};

TEST_F(SweepCommandTest, OneAndTwoThreadsGiveIdenticalFiles) {
  ASSERT_EQ(Sweep(Dir("one"), "1", "0/1"), 0);
  ASSERT_EQ(Sweep(Dir("two"), "2", "0/1"), 0);
  const std::string csv = Read(Dir("one") + "/sweep.csv");
  EXPECT_EQ(csv, Read(Dir("two") + "/sweep.csv"));
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 9);  // header + 2 x 2 x 2 runs
  EXPECT_EQ(csv.rfind("run_index,run_id,grid_size,policy,users,", 0), 0u);
  for (const char* run : {"run-0000", "run-0007"}) {
    for (const char* file : {"summary.json", "requests.csv"}) {
      const std::string a = Dir("one") + "/runs/" + run + "/" + file;
      EXPECT_FALSE(Read(a).empty()) << a;
      EXPECT_EQ(Read(a), Read(Dir("two") + "/runs/" + run + "/" + file));
    }
  }
  // Rows are in grid order: policy slowest, then users, then tokens.
  std::stringstream lines(csv);
  std::string line;
  std::getline(lines, line);
  std::getline(lines, line);
  EXPECT_EQ(line.rfind("0,run-0000,8,fim,1,", 0), 0u);
  for (int i = 0; i < 7; ++i) std::getline(lines, line);
  EXPECT_EQ(line.rfind("7,run-0007,8,efim,3,", 0), 0u);
}

TEST_F(SweepCommandTest, FourShardsMergedEqualTheWholeSweepByteForByte) {
  ASSERT_EQ(Sweep(Dir("whole"), "2", "0/1"), 0);
  std::vector<std::string> merge_args = {"merge"};
  for (int i = 0; i < 4; ++i) {
    const std::string dir = Dir("shard" + std::to_string(i));
    ASSERT_EQ(Sweep(dir, "1", std::to_string(i) + "/4"), 0);
    merge_args.push_back(dir);
  }
  merge_args.push_back("--out");
  merge_args.push_back(Dir("merged"));
  ASSERT_EQ(Run(RunMergeCommand, merge_args), 0);
  EXPECT_EQ(Read(Dir("merged") + "/sweep.csv"), Read(Dir("whole") + "/sweep.csv"));
  EXPECT_EQ(Read(Dir("merged") + "/runs/run-0005/summary.json"),
            Read(Dir("whole") + "/runs/run-0005/summary.json"));
  // A missing shard is an error naming what is missing.
  merge_args = {"merge", Dir("shard0"), Dir("shard1"), "--out", Dir("partial")};
  EXPECT_THROW(Run(RunMergeCommand, merge_args), InputError);
  // So is a shard given twice.
  merge_args = {"merge", Dir("shard0"), Dir("shard0"), "--out", Dir("twice")};
  EXPECT_THROW(Run(RunMergeCommand, merge_args), InputError);
}

TEST_F(SweepCommandTest, ErrorsNameTheOption) {
  try {
    Run(RunSweepCommand, {"sweep", "--grid", "max_num_seqs=0", "--out", Dir("bad")});
    FAIL();
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("--max-num-seqs"), std::string::npos);
  }
  EXPECT_THROW(Run(RunSweepCommand, {"sweep", "--grid", "policy=fim", "--policies", "efim"}),
               UsageError);
  EXPECT_THROW(Run(RunSweepCommand, {"sweep", "--shard", "4/4"}), UsageError);
}

TEST(SweepTable, RunIdsWidenOnlyForHugeGrids) {
  EXPECT_EQ(RunId(7, 12), "run-0007");
  EXPECT_EQ(RunId(7, 123456), "run-000007");
}

TEST_F(SweepCommandTest, APointThatMeasuredNothingLeavesItsLatencyFieldsEmpty) {
  // max_model_len=100 rejects every request of the first point: it must not
  // report 0 ms latencies and zero throughput as if it had measured them.
  ASSERT_EQ(Run(RunSweepCommand, {"sweep", "--grid", "max_model_len=100,0", "--policies", "fim",
                                  "--users", "2", "--rounds", "1", "--documents", "synthetic",
                                  "--wall-time=false", "--jobs", "1", "--out", Dir("rejected")}),
            0);
  std::istringstream csv(Read(Dir("rejected") + "/sweep.csv"));
  std::string header, rejected, served;
  std::getline(csv, header);
  std::getline(csv, rejected);
  std::getline(csv, served);
  auto split = [](const std::string& line) {
    std::vector<std::string> cells;
    std::stringstream fields(line);
    std::string cell;
    while (std::getline(fields, cell, ',')) cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.push_back("");
    return cells;
  };
  auto field = [&](const std::string& row, const std::string& column) {
    const std::vector<std::string> names = split(header), values = split(row);
    const auto at = static_cast<size_t>(std::find(names.begin(), names.end(), column) - names.begin());
    return at < values.size() ? values[at] : std::string("?");
  };
  EXPECT_EQ(field(rejected, "requests_completed"), "0");
  EXPECT_EQ(field(rejected, "requests_rejected"), "2");
  for (const char* column : {"ttft_mean_ms", "e2e_p99_ms", "request_throughput_per_s",
                             "makespan_s", "prefix_cache_hit_rate"}) {
    EXPECT_EQ(field(rejected, column), "") << column;
    EXPECT_NE(field(served, column), "") << column;
  }
  EXPECT_EQ(field(rejected, "steps"), "0");  // counters stay: they are measured
}

}  // namespace
}  // namespace efimsim::cli
