// The benchmark workloads end to end through RunExperiment: options set by
// name through the run's option table, deterministic for a seed, and the
// run description naming the generator and its settings.
#include <gtest/gtest.h>

#include "sim/base/errors.h"
#include "sim/run/experiment.h"
#include "sim/run/run_params.h"

namespace efimsim {
namespace {

void Set(ExperimentConfig& config, const std::string& name, const std::string& value) {
  const RunParam* param = FindRunParam(name);
  ASSERT_NE(param, nullptr) << name;
  param->set(value, config);
}

std::string WorkloadSetting(const ExperimentResult& result, const std::string& key) {
  for (const auto& section : result.info.sections) {
    if (section.name != "workload") continue;
    for (const Setting& s : section.settings) {
      if (s.key == key) return std::visit([](const auto& v) {
        if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::string>) return v;
        else return std::to_string(v);
      }, s.value);
    }
  }
  return "";
}

ExperimentConfig Base(const std::string& workload) {
  ExperimentConfig config;
  config.workload = workload;
  config.policy = "fim";
  config.latency_model = "roofline";
  config.record_wall_time = false;
  return config;
}

TEST(BenchmarkWorkloads, VllmBenchPrefixRepetitionRunsDeterministically) {
  ExperimentConfig config = Base("vllm-bench");
  Set(config, "dataset-name", "prefix_repetition");
  Set(config, "num-prompts", "40");
  Set(config, "prefix-repetition-num-prefixes", "4");
  Set(config, "request-rate", "20");
  const ExperimentResult a = RunExperiment(config);
  const ExperimentResult b = RunExperiment(config);
  EXPECT_EQ(a.summary.requests_completed, 40);
  EXPECT_EQ(a.records.size(), b.records.size());
  for (size_t i = 0; i < a.records.size(); ++i) {
    EXPECT_EQ(a.records[i].finish, b.records[i].finish);
  }
  EXPECT_EQ(WorkloadSetting(a, "name"), "vllm-bench");
  EXPECT_EQ(WorkloadSetting(a, "dataset_name"), "prefix_repetition");
  EXPECT_NE(WorkloadSetting(a, "generator").find("vLLM bench serve"), std::string::npos);
  EXPECT_GT(a.summary.prefix_cache_hit_rate, 0.3);  // 256 of 513 tokens shared
}

TEST(BenchmarkWorkloads, InferencePerfStagesSendTheirRequests) {
  ExperimentConfig config = Base("inference-perf");
  Set(config, "stages", "4:5;8:5");
  Set(config, "load-type", "poisson");
  const ExperimentResult result = RunExperiment(config);
  EXPECT_EQ(result.summary.requests_completed, 20 + 40);
  EXPECT_EQ(WorkloadSetting(result, "load_type"), "poisson");
  EXPECT_EQ(WorkloadSetting(result, "stages"), "4:5;8:5");
}

TEST(BenchmarkWorkloads, BadStagesAreUsageErrors) {
  ExperimentConfig config = Base("inference-perf");
  Set(config, "stages", "4:x");
  try {
    RunExperiment(config);
    ADD_FAILURE() << "no UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--stages"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace efimsim
