// vLLM's draft_model speculative decoding as a whole run prices it: the
// draft model's forwards add to every step that proposes, by its own size;
// its weights and KV take KV-cache blocks; a drafter with another
// tokenizer is refused. Acceptance 0 keeps the generated tokens and steps
// the same, so only the drafting cost differs between runs.
#include <gtest/gtest.h>

#include <string>

#include "sim/base/errors.h"
#include "sim/engine/vllm/speculative_config.h"
#include "sim/metrics/run_info.h"
#include "sim/run/experiment.h"
#include "sim/run/workload_options.h"

namespace efimsim {
namespace {

ExperimentConfig FourUsers(const std::string& speculative_config) {
  ExperimentConfig config;
  config.policy = "efim";
  config.users = 4;
  PaperSettings(config).rounds = 2;
  config.documents = "synthetic";
  config.engine.model = "qwen2.5-coder-7b";
  config.engine.check_invariants = true;
  config.record_wall_time = false;
  MutableSpeculativeSettings(config.engine_options).speculative_config = speculative_config;
  return config;
}

std::string DraftModel(const std::string& model) {
  return R"({"method": "draft_model", "model": ")" + model +
         R"(", "num_speculative_tokens": 3, "acceptance_rates": [0.0]})";
}

TEST(DraftModelScenario, TheDrafterCostsStepTimeByItsSizeAndKvBlocks) {
  const ExperimentResult plain = RunExperiment(FourUsers(""));
  const ExperimentResult small = RunExperiment(FourUsers(DraftModel("qwen2.5-coder-1.5b")));
  const ExperimentResult large = RunExperiment(FourUsers(DraftModel("qwen2.5-coder-7b")));
  ASSERT_EQ(small.summary.requests_completed, plain.summary.requests_completed);
  // Nothing accepted: the same tokens, each step slower by the drafting.
  EXPECT_GT(small.summary.tpot_ms.mean, plain.summary.tpot_ms.mean);
  EXPECT_GT(large.summary.tpot_ms.mean, small.summary.tpot_ms.mean);
  // The drafter's weights and KV take blocks: the 1.5B's 28 layers x 2 KV
  // heads x 128 x 2 x bf16 = 28,672 bytes a token beside the 7B's 57,344.
  EXPECT_EQ(SettingText(small.info, "engine", "kv_draft_model", 0), "qwen2.5-coder-1.5b");
  EXPECT_EQ(SettingText(small.info, "engine", "kv_draft_bytes_per_token_per_gpu", 0), "28672");
  EXPECT_LT(small.summary.engine.kv_blocks_total, plain.summary.engine.kv_blocks_total * 2 / 3);
  EXPECT_NE(SettingText(small.info, "speculative_decoding", "config", 0).find("draft model qwen2.5-coder-1.5b"),
            std::string::npos);
}

TEST(DraftModelScenario, ADrafterWithAnotherTokenizerIsRefused) {
  try {
    RunExperiment(FourUsers(DraftModel("llama-3.1-8b")));
    ADD_FAILURE() << "accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("share the target's tokenizer"), std::string::npos) << e.what();
  }
  try {
    RunExperiment(FourUsers(DraftModel("no-such-model")));
    ADD_FAILURE() << "accepted";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--speculative-config: 'model': ", 0), 0u) << e.what();
  }
}

}  // namespace
}  // namespace efimsim
