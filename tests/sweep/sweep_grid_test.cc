// Grid axes: parsing, validation through the option tables, the expansion
// order and sharding.
#include "sim/run/sweep_grid.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "sim/base/errors.h"
#include "sim/run/run_params.h"

namespace efimsim {
namespace {

std::string UsageMessage(const std::string& axis) {
  try {
    ParseGridAxis(axis);
  } catch (const UsageError& error) {
    return error.what();
  }
  return "";
}

TEST(GridAxis, AcceptsDashesOrUnderscores) {
  const GridAxis a = ParseGridAxis("max_num_batched_tokens=2048,8192");
  EXPECT_EQ(a.key, "max-num-batched-tokens");
  EXPECT_EQ(a.values, (std::vector<std::string>{"2048", "8192"}));
  EXPECT_EQ(ParseGridAxis("max-num-batched-tokens=2048").key, "max-num-batched-tokens");
  EXPECT_EQ(ParseGridAxis("policy=fim,efim").values.size(), 2u);
}

TEST(GridAxis, ErrorsNameTheOption) {
  EXPECT_NE(UsageMessage("users=8,x").find("--users"), std::string::npos);
  EXPECT_NE(UsageMessage("users=0").find("--users"), std::string::npos);  // below the minimum
  EXPECT_NE(UsageMessage("no_such_option=1").find("no-such-option"), std::string::npos);
  EXPECT_NE(UsageMessage("policy=efim,nope").find("nope"), std::string::npos);
  EXPECT_NE(UsageMessage("users=8,,16").find("--grid users"), std::string::npos);
  EXPECT_NE(UsageMessage("users=8,8").find("twice"), std::string::npos);
  EXPECT_NE(UsageMessage("users").find("KEY=V1"), std::string::npos);
  EXPECT_NE(UsageMessage("users=").find("--grid users"), std::string::npos);
  EXPECT_NE(UsageMessage("timeline=a.json").find("timeline"), std::string::npos);
  EXPECT_THROW(CheckDistinctAxes({ParseGridAxis("users=1"), ParseGridAxis("users=2")}), UsageError);
}

TEST(Grid, FirstAxisVariesSlowest) {
  const std::vector<GridAxis> axes = {ParseGridAxis("policy=fim,efim"),
                                      ParseGridAxis("users=1,2,4")};
  ASSERT_EQ(GridSize(axes), 6);
  EXPECT_EQ(GridPoint(axes, 0), (std::vector<OptionSetting>{{"policy", "fim"}, {"users", "1"}}));
  EXPECT_EQ(GridPoint(axes, 2), (std::vector<OptionSetting>{{"policy", "fim"}, {"users", "4"}}));
  EXPECT_EQ(GridPoint(axes, 3), (std::vector<OptionSetting>{{"policy", "efim"}, {"users", "1"}}));
  EXPECT_EQ(GridSize({}), 1);
}

TEST(Grid, SettingsReachTheConfig) {
  ExperimentConfig config;
  SetExperimentOption(config, "max-num-seqs", "64");
  SetExperimentOption(config, "users", "7");
  SetExperimentOption(config, "policy", "fim");
  SetExperimentOption(config, "replicas", "3");
  EXPECT_EQ(FindRunParam("max-num-seqs")->value(config), "64");  // in vLLM's OptionStore
  EXPECT_EQ(config.users, 7);
  EXPECT_EQ(config.policy, "fim");
  EXPECT_EQ(config.replicas, 3);
  const auto values = ExperimentOptionValues(config);
  EXPECT_EQ(values.front(), (OptionSetting{"policy", "fim"}));
  EXPECT_NE(std::find(values.begin(), values.end(), OptionSetting{"max-num-seqs", "64"}),
            values.end());
}

TEST(GridAxis, TensorParallelIsAnAxis) {
  const GridAxis axis = ParseGridAxis("tp=1,2");
  EXPECT_EQ(axis.key, "tp");
  ExperimentConfig config;
  SetExperimentOption(config, "tp", "2");
  EXPECT_EQ(config.latency.tensor_parallel, 2);
  // A bad value names the allowed ones.
  EXPECT_NE(UsageMessage("tp=1,3").find("--tp: unknown value '3' (choose one of: 1, 2, 4, 8)"),
            std::string::npos)
      << UsageMessage("tp=1,3");
  EXPECT_NE(UsageMessage("engine=tgi").find("(choose one of: vllm_v1, sglang)"),
            std::string::npos);
}

TEST(GridAxis, NewOptionsAreColumnsOnlyWhenUsed) {
  const ExperimentConfig base;
  const auto plain = SweepOptionKeys(base, {});
  EXPECT_EQ(std::find(plain.begin(), plain.end(), "tp"), plain.end());
  EXPECT_EQ(std::find(plain.begin(), plain.end(), "profile"), plain.end());
  const auto with_axis = SweepOptionKeys(base, {ParseGridAxis("tp=1,2")});
  EXPECT_NE(std::find(with_axis.begin(), with_axis.end(), "tp"), with_axis.end());
  ExperimentConfig tp2;
  tp2.latency.tensor_parallel = 2;
  const auto set = SweepOptionKeys(tp2, {});
  EXPECT_NE(std::find(set.begin(), set.end(), "tp"), set.end());
}

TEST(Shard, PartitionsTheGridByIndexModuloN) {
  const Shard shard = ParseShard("1/4");
  EXPECT_TRUE(shard.Holds(1));
  EXPECT_TRUE(shard.Holds(5));
  EXPECT_FALSE(shard.Holds(4));
  for (const char* bad : {"4/4", "1", "-1/4", "a/b", "1/0", "/4", "1/"}) {
    EXPECT_THROW(ParseShard(bad), UsageError) << bad;
  }
}

}  // namespace
}  // namespace efimsim
