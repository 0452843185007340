// Capacity search on tiny cases: a monotone, sane answer; saturation is
// flagged rather than reported as capacity; SLO parsing.
#include "sim/serving/capacity_search.h"

#include <gtest/gtest.h>

#include "sim/base/errors.h"

namespace efimsim {
namespace {

ExperimentConfig Paper(const std::string& policy) {
  ExperimentConfig config;
  config.policy = policy;
  config.documents = "synthetic";
  config.workload_paper.rounds = 3;
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
  config.engine.max_num_seqs = 4;
  CapacitySearchConfig search;
  search.max_users = 256;
  const CapacityResult r = SearchCapacity(config, {ParseSlo("e2e_p99_ms=1e9")}, search);
  EXPECT_GT(r.saturated_from_users, 0);
  EXPECT_FALSE(r.at_search_limit);
  EXPECT_LT(r.max_users, r.saturated_from_users);
  EXPECT_NE(r.limited_by.find("saturated"), std::string::npos) << r.limited_by;
  EXPECT_LE(r.max_users, 16);
}

TEST(CapacitySearch, ReachingTheSearchBoundSaysItIsALowerBound) {
  CapacitySearchConfig search;
  search.max_users = 3;
  const CapacityResult r = SearchCapacity(Paper("efim"), {ParseSlo("e2e_p99_ms=1e9")}, search);
  EXPECT_EQ(r.max_users, 3);
  EXPECT_TRUE(r.at_search_limit);
  EXPECT_NE(r.limited_by.find("lower bound"), std::string::npos);
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

}  // namespace
}  // namespace efimsim
