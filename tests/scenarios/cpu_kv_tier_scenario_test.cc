// Whole runs with a CPU KV tier (sim/README.md "CPU KV tier"): a GPU cache
// too small for the users' prefixes loses EFIM's reuse; the host tier
// gives it back, paying loads in TTFT. check_invariants verifies both
// tiers after every step.
#include <gtest/gtest.h>

#include "sim/run/workload_options.h"
#include "sim/metrics/output_writers.h"
#include "sim/run/experiment.h"
#include "sim/run/run_params.h"

namespace efimsim {
namespace {

// Sets a run option as the command line would (the tier's settings belong
// to the vLLM engine: ExperimentConfig has no field of its own for them).
void SetOption(ExperimentConfig& config, const std::string& name, double value) {
  FindRunParam(name)->set(std::to_string(value), config);
}

ExperimentConfig Config(double cpu_kv_gib) {
  ExperimentConfig config;
  config.policy = "efim";
  config.users = 24;
  PaperSettings(config).rounds = 4;
  config.documents = "synthetic";
  config.think_time_ms = 2000;         // users come back after others evicted them
  config.engine.kv_blocks = 2000;      // ~8 users' prefixes
  config.engine.check_invariants = true;
  config.record_wall_time = false;
  SetOption(config, "cpu-kv-gib", cpu_kv_gib);
  return config;
}

TEST(CpuKvTierScenario, HostTierRestoresReuseThatGpuEvictionLost) {
  const RunSummary off = RunExperiment(Config(0)).summary;
  const RunSummary on = RunExperiment(Config(64)).summary;
  EXPECT_EQ(off.engine.part("cpu_kv_blocks_total"), 0);
  EXPECT_GT(on.engine.part("cpu_kv_blocks_total"), 0);
  EXPECT_GT(on.engine.part("cpu_kv_loaded_tokens"), 0);
  EXPECT_EQ(on.engine.part("cpu_kv_loaded_bytes"),
            on.engine.part("cpu_kv_loaded_tokens") / 16 * 16 * 131072);  // Llama-3.1-8B: 128 KiB/token
  EXPECT_GT(on.first_admission_hit_rate, off.first_admission_hit_rate + 0.2);
  EXPECT_LT(on.engine.prefill_tokens_computed, off.engine.prefill_tokens_computed);
  EXPECT_EQ(on.requests_completed, off.requests_completed);
}

TEST(CpuKvTierScenario, ABlockHoldsEveryGpusShardOfAReplicatedLatent) {
  // DeepSeek-Coder-V2-Lite at TP 2: every GPU keeps the whole MLA latent
  // (576 values x 27 layers x 2 bytes a token) and offloads it: a block of
  // 16 tokens is twice that in the host tier.
  ExperimentConfig config = Config(1);
  config.engine.model = "deepseek-coder-v2-lite";
  config.latency.tensor_parallel = 2;
  config.users = 2;
  PaperSettings(config).rounds = 1;
  const RunSummary run = RunExperiment(config).summary;
  const int64_t block_bytes = 16 * 2 * 576 * 27 * 2;
  EXPECT_EQ(run.engine.part("cpu_kv_blocks_total"), (int64_t{1} << 30) / block_bytes);
  EXPECT_GT(run.engine.part("cpu_kv_stored_bytes"), 0);
  EXPECT_EQ(run.engine.part("cpu_kv_stored_bytes") % block_bytes, 0);
}

TEST(CpuKvTierScenario, LoadTimeIsPaidInTtft) {
  ExperimentConfig slow = Config(64);
  SetOption(slow, "offload-gbps", 0.5);  // 2 MiB blocks at 0.5 GB/s: ~4 ms each
  const RunSummary fast = RunExperiment(Config(64)).summary;
  const RunSummary slowed = RunExperiment(slow).summary;
  EXPECT_GT(slowed.engine.part("cpu_kv_load_time_ns"), fast.engine.part("cpu_kv_load_time_ns"));
  EXPECT_GT(slowed.ttft_ms.mean, fast.ttft_ms.mean);
}

TEST(CpuKvTierScenario, TinyTierThrashesButConservesBlocks) {
  // 0.05 GiB = 25 blocks of 2 MiB: fewer than one prompt; stores of a
  // whole prefill chunk are refused, eviction churns; invariants hold.
  const RunSummary tiny = RunExperiment(Config(0.05)).summary;
  EXPECT_EQ(tiny.engine.part("cpu_kv_blocks_total"), 25);
  EXPECT_GT(tiny.engine.part("cpu_kv_evictions"), 0);
}

TEST(CpuKvTierScenario, TierOffWritesWhatTheEngineWroteWithoutIt) {
  const ExperimentResult off = RunExperiment(Config(0));
  ExperimentConfig untouched = Config(64);
  SetOption(untouched, "cpu-kv-gib", 0);
  const ExperimentResult plain = RunExperiment(untouched);
  const std::string json = RenderSummaryJson(off.info, off.summary);
  EXPECT_EQ(json, RenderSummaryJson(plain.info, plain.summary));
  EXPECT_EQ(json.find("cpu_kv"), std::string::npos);
}

TEST(CpuKvTierScenario, BaselineHasNoTierBecauseNothingIsCached) {
  ExperimentConfig config = Config(64);
  config.policy = "baseline";
  const RunSummary summary = RunExperiment(config).summary;
  EXPECT_EQ(summary.engine.part("cpu_kv_blocks_total"), 0);
}

}  // namespace
}  // namespace efimsim
