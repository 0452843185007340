// The frontend model (sim/metrics/frontend.h): its option, its arithmetic,
// its fit, and the client-side latencies a run's summary adds with it.
#include "sim/metrics/frontend.h"

#include <gtest/gtest.h>

#include "sim/base/errors.h"
#include "sim/metrics/summary.h"

namespace efimsim {
namespace {

TEST(Frontend, NoneAddsNothing) {
  const FrontendCosts none = ParseFrontend("none", "vllm_v1");
  EXPECT_FALSE(none.enabled());
  EXPECT_EQ(none.Ttft(4000), Duration{0});
  EXPECT_EQ(none.E2e(4000, 100), Duration{0});
}

TEST(Frontend, VllmDefaultIsTheFittedLine) {
  const FrontendCosts vllm = ParseFrontend("default", "vllm_v1");
  EXPECT_EQ(vllm.name, "vllm");
  // 4.207 ms + 1.883 us x 3000 tokens = 9.856 ms.
  EXPECT_EQ(vllm.Ttft(3000), Nanoseconds(4207000 + 1883 * 3000));
  EXPECT_EQ(vllm.E2e(3000, 50), vllm.Ttft(3000));  // no per-output-token cost measured
  const FrontendCosts sglang = DefaultFrontend("sglang");
  EXPECT_EQ(sglang.Ttft(3000), vllm.Ttft(3000));
  EXPECT_NE(sglang.source.find("carried over"), std::string::npos);
  EXPECT_THROW(DefaultFrontend("trtllm"), UsageError);
}

TEST(Frontend, ExplicitMicroseconds) {
  const FrontendCosts c = ParseFrontend("5000,2.5,10", "vllm_v1");
  EXPECT_EQ(c.name, "explicit");
  EXPECT_EQ(c.Ttft(1000), Nanoseconds(5000000 + 2500000));
  EXPECT_EQ(c.E2e(1000, 3), Nanoseconds(5000000 + 2500000 + 2 * 10000));
  EXPECT_EQ(ParseFrontend("7,0", "sglang").Ttft(100), Microseconds(7));
  for (const char* bad : {"", "5", "1,2,3,4", "-1,2", "x,1", "1,nan", "1e9,1", "1,,2", "default,1"}) {
    EXPECT_THROW(ParseFrontend(bad, "vllm_v1"), UsageError) << bad;
  }
}

TEST(Frontend, FitRecoversALineAndLeavesOutliers) {
  std::vector<int64_t> prompts;
  std::vector<double> diffs;
  for (int i = 0; i < 40; ++i) {
    prompts.push_back(1000 + 100 * i);
    // 4 ms + 2 us/token, +-0.1 ms alternating.
    diffs.push_back(4.0 + 0.002 * (1000 + 100 * i) + (i % 2 == 0 ? 0.1 : -0.1));
  }
  prompts.push_back(3000);
  diffs.push_back(40.0);  // a cold first request
  const FrontendFit fit = FitFrontend(prompts, diffs);
  EXPECT_EQ(fit.pairs, 41);
  EXPECT_EQ(fit.kept, 40);
  EXPECT_NEAR(fit.per_request_ms, 4.0, 0.05);
  EXPECT_NEAR(fit.per_prompt_token_us, 2.0, 0.02);
  EXPECT_NEAR(fit.median_abs_residual_ms, 0.1, 0.01);
  // Degenerate inputs: a flat line at the median.
  EXPECT_EQ(FitFrontend({}, {}).pairs, 0);
  const FrontendFit flat = FitFrontend({100, 100, 100}, {1.0, 2.0, 9.0});
  EXPECT_DOUBLE_EQ(flat.per_prompt_token_us, 0.0);
}

TEST(Frontend, SummaryAddsClientLatenciesOnlyWithAFrontend) {
  RequestRecord r;
  r.arrival = kTimeZero;
  r.first_scheduled = kTimeZero;
  r.first_token = kTimeZero + Milliseconds(100);
  r.finish = kTimeZero + Milliseconds(300);
  r.prompt_tokens = 1000;
  r.output_tokens = 3;
  const RunSummary plain = SummarizeRun({&r, 1}, EngineCounters{});
  EXPECT_FALSE(plain.client_ttft_ms.has_value());
  RunSummaryBuilder builder;
  builder.SetFrontend(ParseFrontend("5000,1,1000", "vllm_v1"));
  builder.Add(r);
  const RunSummary s = builder.Build(EngineCounters{});
  EXPECT_DOUBLE_EQ(s.ttft_ms.mean, 100.0);  // the engine's, unchanged
  ASSERT_TRUE(s.client_ttft_ms.has_value());
  EXPECT_DOUBLE_EQ(s.client_ttft_ms->mean, 106.0);
  EXPECT_DOUBLE_EQ(s.client_e2e_ms->mean, 308.0);
  EXPECT_DOUBLE_EQ(s.client_tpot_ms->mean, 101.0);
}

}  // namespace
}  // namespace efimsim
