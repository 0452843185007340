#include "sim/metrics/summary.h"

#include <gtest/gtest.h>

#include "sim/metrics/output_writers.h"

namespace efimsim {
namespace {

TEST(Percentile, LinearInterpolationLikeNumpy) {
  const std::vector<double> v = {1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(PercentileOfSorted(v, 50), 2.5);
  EXPECT_DOUBLE_EQ(PercentileOfSorted(v, 90), 3.7);  // numpy.percentile([1,2,3,4], 90)
  EXPECT_DOUBLE_EQ(PercentileOfSorted(v, 0), 1);
  EXPECT_DOUBLE_EQ(PercentileOfSorted(v, 100), 4);
}

TEST(Summary, TtftTpotE2eFollowTheirDefinitions) {
  RequestRecord r;
  r.arrival = TimePoint{Milliseconds(100)};
  r.first_scheduled = TimePoint{Milliseconds(110)};
  r.first_token = TimePoint{Milliseconds(150)};
  r.finish = TimePoint{Milliseconds(250)};
  r.output_tokens = 11;
  r.prompt_tokens = 100;
  r.cached_tokens = 25;
  const RunSummary s = SummarizeRun(std::vector<RequestRecord>{r}, EngineCounters{});
  EXPECT_DOUBLE_EQ(s.ttft_ms.mean, 50);
  EXPECT_DOUBLE_EQ(s.e2e_ms.mean, 150);
  EXPECT_DOUBLE_EQ(s.tpot_ms.mean, 10);  // (150 - 50) / (11 - 1)
  EXPECT_DOUBLE_EQ(s.queueing_ms.mean, 10);
  EXPECT_DOUBLE_EQ(s.first_admission_hit_rate, 0.25);
  EXPECT_DOUBLE_EQ(s.request_throughput_per_s, 1.0 / 0.150);
}

TEST(Summary, OneTokenRequestsHaveNoTpot) {
  RequestRecord r;
  r.first_token = r.finish = TimePoint{Milliseconds(5)};
  r.output_tokens = 1;
  const RunSummary s = SummarizeRun(std::vector<RequestRecord>{r}, EngineCounters{});
  EXPECT_EQ(s.tpot_ms.count, 0);
  EXPECT_NE(RenderRequestsCsv(std::vector<RequestRecord>{r}).find(",,"), std::string::npos);
}

TEST(Summary, HitRateUsesEngineCounters) {
  EngineCounters c;
  c.prefix_cache_query_tokens = 400;
  c.prefix_cache_hit_tokens = 100;
  EXPECT_DOUBLE_EQ(SummarizeRun({}, c).prefix_cache_hit_rate, 0.25);
}

}  // namespace
}  // namespace efimsim
