// capacity --pd-splits: the deployments it compares and how each becomes a run.
#include "sim/run/deployment_split.h"

#include <gtest/gtest.h>

#include "sim/base/errors.h"

namespace efimsim {
namespace {

std::vector<std::string> Names(const std::vector<DeploymentSplit>& splits) {
  std::vector<std::string> names;
  for (const DeploymentSplit& s : splits) names.push_back(s.Name());
  return names;
}

TEST(DeploymentSplit, ParsesBothNotationsInTheOrderGiven) {
  EXPECT_EQ(Names(ParseDeploymentSplits("colocated,1:2,3p1d,2P3D")),
            (std::vector<std::string>{"colocated", "1P2D", "3P1D", "2P3D"}));
  EXPECT_EQ(Names(ParseDeploymentSplits("auto")),
            (std::vector<std::string>{"colocated", "1P1D", "1P2D", "1P3D", "1P4D", "2P1D", "2P3D",
                                      "3P1D", "3P2D", "4P1D"}));
}

TEST(DeploymentSplit, RefusesBadItemsNamingTheOption) {
  for (const char* bad : {"", "1:1,", "1:0", "0:1", "1:", ":1", "1P", "PD", "1P1", "5000:1",
                          "1:1,1P1D", "colocated,colocated", "a:b", "1.5:1", "-1:2"}) {
    try {
      ParseDeploymentSplits(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("--pd-splits: ", 0), 0u) << e.what();
    }
  }
}

TEST(DeploymentSplit, AppliesPoolsOrRestoresTheColocatedDefaults) {
  ExperimentConfig base;
  base.replicas = 3;
  base.decode_router = "least-outstanding";
  base.kv_link_gbps = 12.5;
  base.decode_tp = 2;
  base.decode_engine_args = "--max-num-seqs 64";
  const ExperimentConfig split = WithDeploymentSplit(base, {2, 3});
  EXPECT_EQ(split.replicas, 1);
  EXPECT_EQ(split.prefill_replicas, 2);
  EXPECT_EQ(split.decode_replicas, 3);
  EXPECT_EQ(split.kv_link_gbps, 12.5);
  EXPECT_EQ(split.decode_router, "least-outstanding");
  EXPECT_EQ(split.decode_tp, 2);
  EXPECT_EQ(split.decode_engine_args, "--max-num-seqs 64");
  EXPECT_EQ(TotalReplicas(split), 5);
  const ExperimentConfig colocated = WithDeploymentSplit(base, {});
  const ExperimentConfig defaults;
  EXPECT_EQ(colocated.replicas, 3);
  EXPECT_EQ(colocated.prefill_replicas, 0);
  EXPECT_EQ(colocated.kv_link_gbps, defaults.kv_link_gbps);
  EXPECT_EQ(colocated.decode_router, defaults.decode_router);
  EXPECT_EQ(colocated.decode_tp, defaults.decode_tp);
  EXPECT_EQ(colocated.decode_engine_args, defaults.decode_engine_args);
  ValidateExperiment(colocated);  // a co-located run refuses pool options
  ValidateExperiment(split);
}

}  // namespace
}  // namespace efimsim
