// Closed-loop think time (sim/client/closed_loop_client.h) on whole runs:
// fixed pauses keep users in step; exponential pauses have the mean and
// spread of their definition, precede round 0 too, are the same under every
// policy, and a bad --think-time-dist is a usage error.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "sim/run/workload_options.h"
#include "sim/base/errors.h"
#include "sim/run/experiment.h"

namespace efimsim {
namespace {

constexpr double kThinkMs = 1000;

ExperimentConfig Paper(const std::string& policy, const std::string& dist, int64_t users) {
  ExperimentConfig config;
  config.policy = policy;
  config.users = users;
  PaperSettings(config).rounds = 3;
  config.documents = "synthetic";
  config.max_output_tokens = 4;
  config.think_time_ms = kThinkMs;
  config.think_time_dist = dist;
  config.record_wall_time = false;
  return config;
}

// The pause before each request: its arrival minus the user's previous
// finish (round 0: minus t = 0), in ms, keyed by (user, round).
std::map<std::pair<int64_t, int64_t>, double> Pauses(const ExperimentResult& result) {
  std::map<std::pair<int64_t, int64_t>, const RequestRecord*> by_request;
  for (const RequestRecord& r : result.records) by_request[{r.user, r.round}] = &r;
  std::map<std::pair<int64_t, int64_t>, double> pauses;
  for (const auto& [key, record] : by_request) {
    const TimePoint before =
        key.second == 0 ? TimePoint{} : by_request.at({key.first, key.second - 1})->finish;
    pauses[key] = ToMilliseconds(record->arrival - before);
  }
  return pauses;
}

TEST(ClosedLoopThinkTime, FixedPausesStartEveryUserAtZeroAndKeepTheGapExact) {
  const auto pauses = Pauses(RunExperiment(Paper("efim", "fixed", 16)));
  ASSERT_EQ(pauses.size(), 48u);
  for (const auto& [key, ms] : pauses) {
    EXPECT_EQ(ms, key.second == 0 ? 0.0 : kThinkMs) << key.first << "/" << key.second;
  }
}

TEST(ClosedLoopThinkTime, ExponentialPausesHaveTheMeanAndSpreadOfTheirDefinition) {
  const auto pauses = Pauses(RunExperiment(Paper("efim", "exponential", 1000)));
  ASSERT_EQ(pauses.size(), 3000u);
  double sum = 0, squares = 0;
  int64_t round0_nonzero = 0;
  for (const auto& [key, ms] : pauses) {
    sum += ms;
    squares += ms * ms;
    if (key.second == 0 && ms > 0) ++round0_nonzero;
  }
  const double n = static_cast<double>(pauses.size());
  const double mean = sum / n;
  const double sd = std::sqrt(squares / n - mean * mean);
  // 3,000 draws: the mean's standard error is 1.8% of the mean.
  EXPECT_NEAR(mean, kThinkMs, 0.08 * kThinkMs);
  EXPECT_NEAR(sd / mean, 1.0, 0.1);  // exponential: coefficient of variation 1
  EXPECT_EQ(round0_nonzero, 1000);   // round 0 waits too: no burst at t = 0
}

TEST(ClosedLoopThinkTime, ExponentialPausesAreTheSameUnderEveryPolicy) {
  const auto fim = Pauses(RunExperiment(Paper("fim", "exponential", 12)));
  const auto efim = Pauses(RunExperiment(Paper("efim", "exponential", 12)));
  EXPECT_EQ(fim, efim);
  ExperimentConfig reseeded = Paper("efim", "exponential", 12);
  reseeded.seed = 2;
  EXPECT_NE(Pauses(RunExperiment(reseeded)), efim);
}

TEST(ClosedLoopThinkTime, UnknownDistributionIsAUsageErrorNamingTheOption) {
  try {
    RunExperiment(Paper("efim", "gamma", 2));
    FAIL() << "no error";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("--think-time-dist"), std::string::npos);
  }
}

}  // namespace
}  // namespace efimsim
