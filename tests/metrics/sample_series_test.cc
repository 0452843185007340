// SampleSeries: past its in-memory bound the samples go to sorted runs in an
// unlinked temporary file, and the summary is the in-memory one to the bit.
#include "sim/metrics/sample_series.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "sim/base/errors.h"
#include "sim/core/random.h"

namespace efimsim {
namespace {

void ExpectSameBits(const Distribution& a, const Distribution& b, const std::string& what) {
  EXPECT_EQ(a.count, b.count) << what;
  EXPECT_EQ(a.mean, b.mean) << what;  // exact: the same additions in the same order
  EXPECT_EQ(a.p50, b.p50) << what;
  EXPECT_EQ(a.p90, b.p90) << what;
  EXPECT_EQ(a.p99, b.p99) << what;
  EXPECT_EQ(a.max, b.max) << what;
}

// Latency-like samples with repeats (a few distinct values) and spread.
std::vector<double> Samples(int64_t n, uint64_t seed) {
  RandomStream random = RandomStream::Derive(seed, 0, "samples");
  std::vector<double> out;
  for (int64_t i = 0; i < n; ++i) {
    out.push_back(random.UniformInt(0, 3) == 0 ? static_cast<double>(random.UniformInt(1, 4))
                                               : random.Exponential(37.5));
  }
  return out;
}

TEST(SampleSeries, SpilledRunsSummarizeToTheInMemoryBits) {
  for (const int64_t n : {1, 2, 3, 7, 8, 9, 100, 1001}) {
    for (const size_t bound : {size_t{1}, size_t{2}, size_t{7}, size_t{64}, size_t{100000}}) {
      const std::vector<double> values = Samples(n, static_cast<uint64_t>(n) * 31 + bound);
      SampleSeries series(bound);
      for (const double v : values) series.Add(v);
      EXPECT_EQ(series.size(), n);
      ExpectSameBits(series.Summarize(), Summarize(values),
                     "n " + std::to_string(n) + " bound " + std::to_string(bound));
    }
  }
  SampleSeries empty(4);
  EXPECT_EQ(empty.Summarize().count, 0);
}

TEST(SampleSeries, ManyRunsOfChunkedReads) {
  // More samples per run than one merge chunk (8,192), and 13 runs.
  const std::vector<double> values = Samples(130000, 5);
  SampleSeries series(10000);
  for (const double v : values) series.Add(v);
  ExpectSameBits(series.Summarize(), Summarize(values), "130000 in runs of 10000");
}

class TmpdirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* old = std::getenv("TMPDIR");
    had_ = old != nullptr;
    if (had_) old_ = old;
  }
  void TearDown() override {
    if (had_) {
      setenv("TMPDIR", old_.c_str(), 1);
    } else {
      unsetenv("TMPDIR");
    }
  }
  bool had_ = false;
  std::string old_;
};

TEST_F(TmpdirTest, TheFileLivesInTmpdirAndLeavesNothing) {
  const std::filesystem::path dir = std::filesystem::path(testing::TempDir()) / "sample-series-tmp";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  setenv("TMPDIR", dir.c_str(), 1);
  {
    SampleSeries series(3);
    for (int i = 0; i < 10; ++i) series.Add(i);
    EXPECT_TRUE(std::filesystem::is_empty(dir));  // unlinked as soon as made
    EXPECT_EQ(series.Summarize().max, 9);
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir));
}

TEST_F(TmpdirTest, AMissingTmpdirIsAnOutputErrorNamingIt) {
  setenv("TMPDIR", "/nonexistent/efimsim-tmp", 1);
  SampleSeries series(2);
  series.Add(1);
  try {
    series.Add(2);
    ADD_FAILURE() << "expected OutputError";
  } catch (const OutputError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/efimsim-tmp"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace efimsim
