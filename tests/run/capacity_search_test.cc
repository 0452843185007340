// Capacity search on tiny cases: a monotone, sane answer; saturation is
// flagged rather than reported as capacity; SLO parsing.
#include "sim/run/workload_options.h"
#include "sim/run/capacity_search.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "models/formats/spec_catalog.h"
#include "sim/base/errors.h"
#include "sim/client/policy.h"
#include "sim/run/sweep_grid.h"
#include "sim/run/workload.h"
#include "traces/rate_scaled_trace_reader.h"
#include "traces/trace_writer.h"

namespace efimsim {
namespace {

ExperimentConfig Paper(const std::string& policy) {
  ExperimentConfig config;
  config.policy = policy;
  config.documents = "synthetic";
  PaperSettings(config).rounds = 3;
  return config;
}

TEST(Slo, ParsesMetricAndLimit) {
  const Slo slo = ParseSlo("ttft-p99-ms=500");
  EXPECT_EQ(slo.metric, "ttft_p99_ms");
  EXPECT_DOUBLE_EQ(slo.limit_ms, 500);
  for (const char* bad : {"ttft_p99_ms", "ttft_p99_ms=", "ttft_p98_ms=5", "ttft_p99_ms=-1",
                          "ttft_p99_ms=5x", "=5"}) {
    try {
      ParseSlo(bad);
      FAIL() << bad;
    } catch (const UsageError& error) {
      EXPECT_NE(std::string(error.what()).find("--slo"), std::string::npos);
    }
  }
}

TEST(Slo, ClientMetricsNeedAFrontend) {
  EXPECT_EQ(ParseSlo("client-ttft-p99-ms=300").metric, "client_ttft_p99_ms");
  EXPECT_EQ(ParseSlo("client_e2e_mean_ms=900").metric, "client_e2e_mean_ms");
  EXPECT_THROW(ParseSlo("client_queueing_p99_ms=5"), UsageError);  // no client queueing
  RunSummary engine_only;
  engine_only.ttft_ms.p99 = 7;
  try {
    SloMetricValue(engine_only, "client_ttft_p99_ms");
    FAIL() << "a client metric without a frontend";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--frontend"), std::string::npos) << e.what();
  }
  RunSummary with_client = engine_only;
  with_client.client_ttft_ms = Distribution{};
  with_client.client_ttft_ms->p99 = 11;
  with_client.client_ttft_ms->max = 12;
  EXPECT_EQ(SloMetricValue(with_client, "client_ttft_p99_ms"), 11);
  EXPECT_EQ(SloMetricValue(with_client, "client_ttft_max_ms"), 12);
  EXPECT_EQ(SloMetricValue(with_client, "ttft_p99_ms"), 7);
}

// A client-side SLO judges engine TTFT plus the frontend: with the engine's
// default frontend (several ms a request) it admits no more users than the
// same limit on the engine's TTFT, and the probes carry both figures.
TEST(CapacitySearch, ClientSideSloJudgesTheFrontendToo) {
  CapacitySearchConfig search;
  search.max_users = 64;
  ExperimentConfig config = Paper("fim");
  config.frontend = "default";
  const CapacityResult engine = SearchCapacity(config, {ParseSlo("ttft_p99_ms=150")}, search);
  const CapacityResult client = SearchCapacity(config, {ParseSlo("client_ttft_p99_ms=150")}, search);
  ASSERT_GT(client.max_users, 0);
  EXPECT_LE(client.max_users, engine.max_users);
  ASSERT_NE(client.answer(), nullptr);
  const RunSummary& s = client.answer()->summary;
  ASSERT_TRUE(s.client_ttft_ms.has_value());
  EXPECT_GT(s.client_ttft_ms->p99, s.ttft_ms.p99 + 4.0);  // vLLM's fitted 4.2 ms a request at least
  EXPECT_LE(s.client_ttft_ms->p99, 150);
}

TEST(CapacitySearch, TighterSloGivesFewerUsersAndTheAnswerIsTheBoundary) {
  CapacitySearchConfig search;
  search.max_users = 64;
  const CapacityResult loose = SearchCapacity(Paper("efim"), {ParseSlo("e2e_p99_ms=4000")}, search);
  const CapacityResult tight = SearchCapacity(Paper("efim"), {ParseSlo("e2e_p99_ms=2500")}, search);
  ASSERT_GT(tight.max_users, 0);
  EXPECT_LE(tight.max_users, loose.max_users);
  // The boundary: max passes, max + 1 (when probed) fails.
  for (const CapacityResult* r : {&loose, &tight}) {
    for (const LoadProbe& p : r->probes) {
      const bool passed = p.meets_slos && !p.saturated;
      EXPECT_EQ(passed, p.users <= r->max_users) << p.users << " " << p.verdict;
    }
    ASSERT_NE(r->answer(), nullptr);
    EXPECT_LE(r->answer()->summary.e2e_ms.p99, r == &loose ? 4000 : 2500);
  }
}

// Warm-up covering every round left nothing to judge, and the search then
// judged every request, the cold burst included (EFIM at 223 GPUs, not 15).
TEST(CapacitySearch, WarmupCoveringEveryRoundIsAUsageError) {
  CapacitySearchConfig search;
  search.max_users = 8;
  for (const int64_t warmup : {3, 5}) {
    search.warmup_rounds = warmup;
    try {
      SearchCapacity(Paper("efim"), {ParseSlo("ttft_p99_ms=500")}, search);
      FAIL() << "warm-up " << warmup << " of 3 rounds accepted";
    } catch (const UsageError& error) {
      EXPECT_NE(std::string(error.what()).find("--warmup-rounds"), std::string::npos);
    }
  }
  search.warmup_rounds = 2;  // one round left: judged
  EXPECT_NO_THROW(SearchCapacity(Paper("efim"), {ParseSlo("ttft_p99_ms=500")}, search));
}

TEST(CapacitySearch, EfimServesAtLeastAsManyUsersAsBaseline) {
  CapacitySearchConfig search;
  search.max_users = 64;
  const std::vector<Slo> slos = {ParseSlo("e2e_p99_ms=2500")};
  const CapacityResult efim = SearchCapacity(Paper("efim"), slos, search);
  const CapacityResult baseline = SearchCapacity(Paper("baseline"), slos, search);
  EXPECT_GE(efim.max_users, baseline.max_users);
}

TEST(CapacitySearch, ThroughputPlateauIsFlaggedAsSaturation) {
  // No SLO can fail, so only saturation stops the search: past the batch
  // limit (max_num_seqs 4) more users add only waiting.
  ExperimentConfig config = Paper("efim");
  SetExperimentOption(config, "max-num-seqs", "4");
  CapacitySearchConfig search;
  search.max_users = 256;
  const CapacityResult r = SearchCapacity(config, {ParseSlo("e2e_p99_ms=1e9")}, search);
  EXPECT_GT(r.saturated_from_users, 0);
  EXPECT_FALSE(r.at_search_limit);
  EXPECT_LT(r.max_users, r.saturated_from_users);
  EXPECT_NE(r.limited_by.find("saturated"), std::string::npos) << r.limited_by;
  EXPECT_LE(r.max_users, 16);
}

TEST(CapacitySearch, ExponentialPausesAreNotJudgedByThroughputPerMakespan) {
  // 30 s mean pauses over 5 rounds: the makespan is the slowest user's
  // pauses, so doubling a few users hardly raises requests / makespan. The
  // throughput-plateau test used to stop this search at 7 users; queue
  // growth and SLOs decide instead, and 32 users are nowhere near the
  // engine's limit.
  ExperimentConfig config = Paper("efim");
  PaperSettings(config).rounds = 5;
  config.think_time_ms = 30000;
  config.think_time_dist = "exponential";
  config.max_output_tokens = 16;
  CapacitySearchConfig search;
  search.max_users = 32;
  const CapacityResult r = SearchCapacity(config, {ParseSlo("e2e_p99_ms=1e9")}, search);
  EXPECT_EQ(r.max_users, 32) << r.limited_by;
  EXPECT_TRUE(r.at_search_limit);
}

TEST(CapacitySearch, ReachingTheSearchBoundSaysItIsALowerBound) {
  CapacitySearchConfig search;
  search.max_users = 3;
  const CapacityResult r = SearchCapacity(Paper("efim"), {ParseSlo("e2e_p99_ms=1e9")}, search);
  EXPECT_EQ(r.max_users, 3);
  EXPECT_TRUE(r.at_search_limit);
  EXPECT_NE(r.limited_by.find("lower bound"), std::string::npos);
}

TEST(CapacitySearch, RejectedRequestsAreNotSaturation) {
  // Documents of 2048-4096 tokens against a 3000-token context: some users'
  // requests can never be served. That failure is a configuration limit,
  // said so, and never called saturation (it used to be, via the plateau).
  ExperimentConfig base = Paper("fim");
  base.engine.max_model_len = 3000;
  CapacitySearchConfig search;
  search.max_users = 64;
  const CapacityResult r = SearchCapacity(base, {}, search);
  EXPECT_TRUE(r.limited_by_rejections);
  EXPECT_EQ(r.limited_by.rfind("rejected at ", 0), 0u) << r.limited_by;
  EXPECT_EQ(r.saturated_from_users, 0);
  for (const LoadProbe& p : r.probes) {
    if (p.rejected > 0) {
      EXPECT_FALSE(p.saturated) << p.verdict;
      EXPECT_NE(p.verdict.find("not load"), std::string::npos) << p.verdict;
    }
  }
}

TEST(CapacitySearch, ImpossibleSloGivesZeroUsers) {
  CapacitySearchConfig search;
  search.max_users = 8;
  const CapacityResult r = SearchCapacity(Paper("efim"), {ParseSlo("ttft_p50_ms=0.001")}, search);
  EXPECT_EQ(r.max_users, 0);
  EXPECT_EQ(r.probes.size(), 1u);
  EXPECT_NE(r.limited_by.find("ttft_p50_ms"), std::string::npos);
}

TEST(CapacitySearch, TraceWorkloadIsRejected) {
  ExperimentConfig config = Paper("efim");
  config.workload = "trace";
  EXPECT_THROW(SearchCapacity(config, {}, CapacitySearchConfig{}), UsageError);
}

// A request trace: `count` requests of 1,000 prompt tokens and one output
// token, one every `gap_ns`, written to a temporary file.
class OpenLoopTrace : public ::testing::Test {
 protected:
  std::string Write(int64_t count, int64_t gap_ns) {
    const std::string path = (std::filesystem::temp_directory_path() /
                              ("efimsim-open-loop-" + std::to_string(getpid()) + "-" +
                               std::to_string(count) + ".jsonl"))
                                 .string();
    std::ofstream out(path);
    TraceHeader header;
    header.schema_version = 1;
    header.source = "test";
    TraceWriter writer(out, header);
    for (int64_t i = 0; i < count; ++i) {
      TraceRequest request;
      request.arrival_ns = i * gap_ns;
      request.prompt_tokens = 1000;
      request.output_tokens = 1;
      writer.Write(request);
    }
    paths_.push_back(path);
    return path;
  }
  void TearDown() override {
    for (const std::string& path : paths_) std::filesystem::remove(path);
  }
  static ExperimentConfig TraceRun(const std::string& path) {
    ExperimentConfig config;
    config.policy = "fim";
    config.workload = "trace";
    config.trace_path = path;
    config.record_wall_time = false;
    return config;
  }

 private:
  std::vector<std::string> paths_;
};

TEST_F(OpenLoopTrace, RateSearchFindsTheRateWhereRequestsStartQueueing) {
  // A lone request takes one engine step of S ns. Spaced at least S apart
  // no request ever waits; closer, the next one queues. So with the SLO
  // "no queueing" the capacity is the largest scale k whose scaled gaps
  // (ScaleTimeNs, rounding included) are all >= S: computed here directly.
  constexpr int64_t kCount = 30;
  constexpr int64_t kGapNs = 1'000'000'000;
  const ExperimentResult lone = RunExperiment(TraceRun(Write(1, kGapNs)));
  ASSERT_EQ(lone.records.size(), 1u);
  const int64_t service_ns = ToNanoseconds(lone.records[0].e2e());
  ASSERT_GT(service_ns, 0);
  auto no_request_waits = [&](int64_t k) {
    for (int64_t i = 1; i < kCount; ++i) {
      if (ScaleTimeNs(i * kGapNs, static_cast<double>(k)) -
              ScaleTimeNs((i - 1) * kGapNs, static_cast<double>(k)) <
          service_ns) {
        return false;
      }
    }
    return true;
  };
  int64_t expected = 0;
  while (no_request_waits(expected + 1)) ++expected;
  ASSERT_GT(expected, 2);
  ASSERT_LT(expected, 1024);

  CapacitySearchConfig search;
  search.rate_step = 1;  // the grid is the rate scale 1, 2, 3, ...
  search.warmup_fraction = 0;
  const CapacityResult r = SearchRateCapacity(TraceRun(Write(kCount, kGapNs)),
                                              {ParseSlo("queueing_max_ms=1e-7")}, search);
  EXPECT_TRUE(r.open_loop);
  EXPECT_EQ(r.rate_unit, "requests/s");
  EXPECT_EQ(r.max_load_steps, expected);
  EXPECT_DOUBLE_EQ(r.max_rate_scale, static_cast<double>(expected));
  // The recorded rate: 30 arrivals over the 29 s to the last one.
  EXPECT_DOUBLE_EQ(r.recorded_rate_per_s, 30.0 / 29.0);
  EXPECT_DOUBLE_EQ(r.max_rate_per_s, static_cast<double>(expected) * 30.0 / 29.0);
  EXPECT_FALSE(r.at_search_limit);
  ASSERT_NE(r.answer(), nullptr);
  EXPECT_EQ(r.answer()->summary.queueing_ms.max, 0.0);
  for (const LoadProbe& p : r.probes) {
    EXPECT_EQ(p.meets_slos && !p.saturated, p.load_steps <= expected) << p.verdict;
  }
  EXPECT_NE(r.limited_by.find("queueing_max_ms"), std::string::npos) << r.limited_by;
  EXPECT_NE(r.limited_by.find("requests/s (rate scale " + std::to_string(expected + 1)),
            std::string::npos)
      << r.limited_by;
}

TEST_F(OpenLoopTrace, ARequestTraceNeverLoadsTheTokenizer) {
  // The "tokenizer" is no tokenizer.json at all: loading it would throw.
  const std::string trace = Write(3, 1000);
  ExperimentConfig config = TraceRun(trace);
  config.tokenizer_path = trace;
  config.shared_tokenizer = std::make_shared<const SharedTokenizer>(trace);
  EXPECT_EQ(RunExperiment(config).records.size(), 3u);
  EXPECT_THROW(config.shared_tokenizer->Get(), InputError);
}

TEST_F(OpenLoopTrace, RateSearchNeedsAnOpenLoopWorkload) {
  CapacitySearchConfig search;
  EXPECT_THROW(SearchRateCapacity(Paper("efim"), {}, search), UsageError);
  search.warmup_fraction = 1;
  EXPECT_THROW(SearchRateCapacity(TraceRun(Write(3, 1000)), {}, search), UsageError);
}

TEST_F(OpenLoopTrace, TraceWorkloadGivesItsArrivalsAtTheRunsRateScale) {
  ExperimentConfig config = TraceRun(Write(3, 1'000'000'000));
  config.rate_scale = 2;
  const ModelSpec model = LoadModelSpec(config.engine.model);
  const std::unique_ptr<Workload> workload =
      MakeWorkload("trace", {config, GetPolicy(config.policy), model, nullptr, nullptr});
  const std::unique_ptr<TraceReader> arrivals = workload->Arrivals();
  ASSERT_NE(arrivals, nullptr);
  std::vector<int64_t> times;
  while (const std::optional<TraceRecord> record = arrivals->Next()) {
    times.push_back(std::get<TraceRequest>(*record).arrival_ns);
  }
  EXPECT_EQ(times, (std::vector<int64_t>{0, 500'000'000, 1'000'000'000}));
}

TEST_F(OpenLoopTrace, RecordedRateIgnoresTheBaseRateScale) {
  // The search sets --rate-scale itself: a base run's own scale must not
  // inflate the recorded rate its grid multiplies.
  ExperimentConfig scaled = TraceRun(Write(30, 1'000'000'000));
  scaled.rate_scale = 4;
  CapacitySearchConfig search;
  search.rate_step = 1;
  search.max_rate_steps = 1;
  const CapacityResult r = SearchRateCapacity(scaled, {}, search);
  EXPECT_DOUBLE_EQ(r.recorded_rate_per_s, 30.0 / 29.0);
}

TEST(WorkloadCapacityAxes, EachWorkloadSaysWhatCapacitySearches) {
  using Rate = WorkloadCapacityAxes::Rate;
  EXPECT_TRUE(CapacityAxes("efim-paper").users);
  EXPECT_TRUE(CapacityAxes("efim-paper").rounds);
  EXPECT_EQ(CapacityAxes("trace").rate, Rate::kArrivals);
  EXPECT_EQ(CapacityAxes("vllm-bench").rate, Rate::kArrivals);
  EXPECT_EQ(CapacityAxes("typing").rate, Rate::kSessions);
  EXPECT_TRUE(CapacityAxes("typing").users);
  EXPECT_EQ(CapacityAxes("inference-perf").rate, Rate::kNone);
  EXPECT_FALSE(CapacityAxes("inference-perf").users);
  EXPECT_THROW(CapacityAxes("nope"), UsageError);
}

}  // namespace
}  // namespace efimsim
