// Routers in front of replicas: which replica each policy picks, that
// Cancel reaches the replica holding the request, and what routing does to
// prefix reuse in a whole run.
#include "sim/run/workload_options.h"
#include "sim/run/router.h"

#include <gtest/gtest.h>

#include "tests/engine/fixed_latency_model.h"

#include <numeric>

#include "sim/base/errors.h"
#include "sim/run/experiment.h"
#include "sim/engine/replica.h"
#include "sim/engine/vllm/vllm_v1_core.h"

namespace efimsim {
namespace {

// Every step takes 10 ms.
class FixedLatency : public testing_support::FixedLatencyModel {
 public:
  FixedLatency() : FixedLatencyModel(Milliseconds(10)) {}
};

class Recorder : public RequestObserver {
 public:
  void OnRequestFinished(const RequestRecord& r) override { finished.push_back(r); }
  void OnRequestCancelled(const RequestRecord& r) override { cancelled.push_back(r); }
  void OnRequestRejected(const ClientRequest&, const std::string&) override {}
  std::vector<RequestRecord> finished, cancelled;
};

class RouterTest : public ::testing::Test {
 protected:
  void Build(const std::string& policy, int replicas) {
    VllmV1CoreConfig core;
    core.limits = {2048, 256};
    core.num_blocks = 256;
    core.output_token_first = 100;
    core.output_token_last = 30000;
    ReplicaConfig config;
    config.check_invariants = true;
    config.output_token_first = 100;
    config.output_token_last = 30000;
    for (int i = 0; i < replicas; ++i) {
      config.replica_index = i;
      replicas_.push_back(std::make_unique<Replica>(
          simulator_, config, std::make_unique<VllmV1Core>(core), latency_, recorder_));
      pointers_.push_back(replicas_.back().get());
    }
    router_ = std::make_unique<Router>(pointers_, MakeRoutingPolicy(policy));
  }
  ClientRequest Request(uint64_t id, int64_t user) {
    ClientRequest r;
    r.request_id = id;
    r.user = user;
    r.prompt.resize(64);
    std::iota(r.prompt.begin(), r.prompt.end(), static_cast<TokenId>(1000 + 100 * user));
    r.max_tokens = 4;
    return r;
  }
  std::vector<int64_t> Outstanding() const {
    std::vector<int64_t> out;
    for (const EngineReplica* r : pointers_) out.push_back(r->outstanding_requests());
    return out;
  }

  Simulator simulator_;
  FixedLatency latency_;
  Recorder recorder_;
  std::vector<std::unique_ptr<Replica>> replicas_;
  std::vector<EngineReplica*> pointers_;
  std::unique_ptr<Router> router_;
};

TEST_F(RouterTest, RoundRobinAlternatesInSendOrder) {
  Build("round-robin", 3);
  for (uint64_t id = 0; id < 7; ++id) router_->Submit(Request(id, 0));
  EXPECT_EQ(router_->routed(), (std::vector<int64_t>{3, 2, 2}));
  EXPECT_EQ(Outstanding(), (std::vector<int64_t>{3, 2, 2}));
  simulator_.Run();
  EXPECT_EQ(recorder_.finished.size(), 7u);
}

TEST_F(RouterTest, LeastOutstandingPicksTheIdleReplica) {
  Build("least-outstanding", 2);
  router_->Submit(Request(0, 0));  // tie: lowest index
  EXPECT_EQ(Outstanding(), (std::vector<int64_t>{1, 0}));
  router_->Submit(Request(1, 0));  // replica 1 is idle
  EXPECT_EQ(Outstanding(), (std::vector<int64_t>{1, 1}));
  router_->Submit(Request(2, 0));  // tie again: replica 0
  router_->Submit(Request(3, 0));  // replica 1 has fewer
  EXPECT_EQ(Outstanding(), (std::vector<int64_t>{2, 2}));
  simulator_.Run();
  EXPECT_EQ(recorder_.finished.size(), 4u);
}

TEST_F(RouterTest, SessionAffinityKeepsEachUserOnOneReplica) {
  Build("session-affinity", 4);
  uint64_t id = 0;
  for (int64_t round = 0; round < 3; ++round) {
    for (int64_t user = 0; user < 8; ++user) router_->Submit(Request(id++, user));
  }
  simulator_.Run();
  // Same mapping on a fresh router: stable, a function of the user only.
  auto policy = MakeRoutingPolicy("session-affinity");
  for (int64_t user = 0; user < 8; ++user) {
    const size_t first = policy->Pick(Request(0, user), pointers_);
    for (int k = 0; k < 3; ++k) EXPECT_EQ(policy->Pick(Request(99, user), pointers_), first);
  }
  EXPECT_EQ(recorder_.finished.size(), 24u);
}

TEST_F(RouterTest, SessionAffinitySpreadsRequestsWithoutASessionAndSaysSo) {
  // Request records of a trace belong to no user (-1): they used to hash to
  // one replica, so 4 replicas served as one.
  Build("session-affinity", 4);
  for (uint64_t id = 0; id < 8; ++id) router_->Submit(Request(id, -1));
  EXPECT_EQ(router_->routed(), (std::vector<int64_t>{2, 2, 2, 2}));
  EXPECT_NE(router_->note().find("8 requests of no user or session went round-robin"),
            std::string::npos)
      << router_->note();
  simulator_.Run();
  EXPECT_EQ(recorder_.finished.size(), 8u);
}

TEST_F(RouterTest, SessionAffinityWithSessionsHasNothingToSay) {
  Build("session-affinity", 2);
  router_->Submit(Request(0, 3));
  EXPECT_EQ(router_->note(), "");
  simulator_.Run();
}

TEST_F(RouterTest, CancelReachesTheReplicaHoldingTheRequest) {
  Build("round-robin", 2);
  router_->Submit(Request(0, 0));
  router_->Submit(Request(1, 1));  // on replica 1
  router_->Cancel(1);
  router_->Cancel(12345);  // unknown: no-op
  simulator_.Run();
  ASSERT_EQ(recorder_.cancelled.size(), 1u);
  EXPECT_EQ(recorder_.cancelled[0].request_id, 1u);
  EXPECT_EQ(recorder_.finished.size(), 1u);
}

TEST(RouterNames, UnknownRouterNamesTheOptionAndTheChoices) {
  try {
    MakeRoutingPolicy("random");
    FAIL();
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("--router"), std::string::npos);
  }
}

ExperimentConfig PaperCluster(const std::string& router, const std::string& policy) {
  ExperimentConfig config;
  config.documents = "synthetic";
  config.users = 8;
  PaperSettings(config).rounds = 4;
  config.replicas = 2;
  config.router = router;
  config.policy = policy;
  config.engine.check_invariants = true;
  return config;
}

TEST(ClusterRun, SessionAffinityReusesMoreThanRoundRobinForEfim) {
  const ExperimentResult affinity = RunExperiment(PaperCluster("session-affinity", "efim"));
  const ExperimentResult round_robin = RunExperiment(PaperCluster("round-robin", "efim"));
  EXPECT_EQ(affinity.summary.requests_completed, 32);
  EXPECT_EQ(round_robin.summary.requests_completed, 32);
  EXPECT_GT(affinity.summary.prefix_cache_hit_rate, round_robin.summary.prefix_cache_hit_rate + 0.05);
}

TEST(ClusterRun, OneReplicaClusterEqualsTheSingleReplicaRun) {
  ExperimentConfig single = PaperCluster("round-robin", "fim");
  single.replicas = 1;
  ExperimentConfig affinity = single;
  affinity.router = "session-affinity";
  const ExperimentResult a = RunExperiment(single);
  const ExperimentResult b = RunExperiment(affinity);
  EXPECT_EQ(a.summary.engine.steps, b.summary.engine.steps);
  EXPECT_DOUBLE_EQ(a.summary.e2e_ms.mean, b.summary.e2e_ms.mean);
}

TEST(ClusterRun, SummaryListsEachReplica) {
  const ExperimentResult run = RunExperiment(PaperCluster("round-robin", "efim"));
  int64_t steps = 0;
  int64_t requests = 0;
  for (const RunInfoSection& section : run.info.sections) {
    if (section.name != "cluster") continue;
    for (const Setting& s : section.settings) {
      if (s.key.ends_with("_steps")) steps += std::get<int64_t>(s.value);
      if (s.key.ends_with("_requests")) requests += std::get<int64_t>(s.value);
    }
  }
  EXPECT_EQ(steps, run.summary.engine.steps);
  EXPECT_EQ(requests, 32);
}

TEST(ClusterRun, BadReplicaCountNamesTheOption) {
  ExperimentConfig config = PaperCluster("round-robin", "efim");
  config.replicas = 0;
  EXPECT_THROW(RunExperiment(config), UsageError);
}

}  // namespace
}  // namespace efimsim
