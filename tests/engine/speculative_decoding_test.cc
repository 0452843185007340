// Speculative decoding in the vLLM v1 core (sim/engine/vllm/speculator.h):
// drafts in the token budget, verification, the rejected drafts' progress
// taken back with their KV kept, only verified tokens cached, and the two
// acceptance rules (drafts equal to the reference output; per-position
// rates).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "sim/base/errors.h"
#include "sim/engine/vllm/speculative_config.h"
#include "sim/engine/vllm/vllm_v1_core.h"

namespace efimsim {
namespace {

constexpr int32_t kBlock = 4;

// The prompt [1..8, 20, 21, 1, 2]: its last two tokens repeat its first two,
// so after the first generated token 3 the n-gram [1, 2, 3] recurs and the
// proposer drafts [4, 5, 6, 7].
const TokenVector kPrompt = {1, 2, 3, 4, 5, 6, 7, 8, 20, 21, 1, 2};

class SpeculativeDecodingTest : public ::testing::Test {
 protected:
  void Init(const std::string& speculative_config, int64_t budget = 2048) {
    VllmV1CoreConfig config;
    config.limits = {budget, 256};
    config.block_tokens = kBlock;
    config.num_blocks = 64;
    config.output_token_first = 1000;
    config.output_token_last = 30000;
    config.speculative = ParseSpeculativeConfig(speculative_config, 4096);
    config.target_layers = 32;
    core_ = std::make_unique<VllmV1Core>(config);
  }

  VllmRequest& Add(TokenVector reference, int64_t max_tokens = 20) {
    ClientRequest client;
    client.request_id = 7;
    client.prompt = kPrompt;
    client.max_tokens = max_tokens;
    client.reference_output = std::move(reference);
    request_ = core_->Add(client, TimePoint{});
    return static_cast<VllmRequest&>(*request_);
  }

  // One step: schedule, then complete it as the driver does.
  StepPlan Step() {
    StepPlan plan;
    core_->Schedule(plan, TimePoint{});
    std::vector<Request*> finished;
    TokenEmitter emitter(draw_, TimePoint{}, finished);
    core_->AfterStep(plan, emitter);
    return plan;
  }

  TokenDraw draw_{1000, 30000};
  std::unique_ptr<VllmV1Core> core_;
  std::unique_ptr<Request> request_;
};

TEST_F(SpeculativeDecodingTest, NgramDraftsEqualToTheReferenceAreAllAccepted) {
  Init(R"({"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_min": 3, "prompt_lookup_max": 3})");
  VllmRequest& r = Add({3, 4, 5, 6, 7, 8, 9, 10});
  const StepPlan prefill = Step();
  EXPECT_EQ(prefill.sequences.front().new_tokens, 12);
  EXPECT_EQ(r.num_tokens, 13);  // the first token, 3
  EXPECT_EQ(r.spec->drafts, (TokenVector{4, 5, 6, 7}));
  const StepPlan verify = Step();
  EXPECT_EQ(verify.sequences.front().new_tokens, 5);  // 1 + 4 drafts in the budget
  EXPECT_EQ(verify.total_tokens, 5);
  EXPECT_EQ(r.num_tokens, 18);  // 4 accepted + 1
  EXPECT_EQ(r.num_computed_tokens, 17);
  EXPECT_EQ(r.spec->history.back(), 8);
  const EngineCounters c = core_->Counters();
  EXPECT_EQ(c.part("spec_decode_draft_tokens"), 4);
  EXPECT_EQ(c.part("spec_decode_accepted_tokens"), 4);
  EXPECT_EQ(c.part("spec_decode_drafts"), 1);
}

TEST_F(SpeculativeDecodingTest, RejectedDraftsGiveBackTheirProgressButKeepTheirBlocks) {
  Init(R"({"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_min": 3, "prompt_lookup_max": 3})");
  VllmRequest& r = Add({3, 4, 5, 99, 98});
  Step();
  ASSERT_EQ(r.spec->drafts, (TokenVector{4, 5, 6, 7}));
  Step();
  // Drafts 4 and 5 match, 6 does not (the target says 99): 2 accepted, 2
  // rejected; 99 is generated in the rejected draft's place.
  EXPECT_EQ(r.num_tokens, 16);
  EXPECT_EQ(r.num_computed_tokens, 15);  // 17 computed, 2 taken back
  EXPECT_EQ(r.spec->history.back(), 99);
  // Blocks for all 17 computed positions stay with the request (vLLM writes
  // the next tokens into the rejected drafts' slots).
  EXPECT_EQ(r.kv.blocks.size(), 5u);  // ceil(17 / 4)
  const EngineCounters c = core_->Counters();
  EXPECT_EQ(c.part("spec_decode_accepted_tokens"), 2);
  EXPECT_EQ(c.part("spec_decode_accepted_tokens_pos1"), 1);
  EXPECT_EQ(c.part("spec_decode_accepted_tokens_pos2"), 0);
}

TEST_F(SpeculativeDecodingTest, DraftsTakeBudgetTokensAndTheBudgetTrimsThem) {
  Init(R"({"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_min": 3, "prompt_lookup_max": 3})",
       /*budget=*/3);
  VllmRequest& r = Add({3, 4, 5, 6, 7, 8, 9, 10});
  while (r.num_tokens == 12) Step();  // the prompt in chunks of 3
  ASSERT_EQ(r.spec->drafts.size(), 4u);
  const StepPlan verify = Step();
  EXPECT_EQ(verify.sequences.front().new_tokens, 3);  // 1 + 2 drafts: the budget
  EXPECT_EQ(r.num_tokens, 16);                         // both verified drafts accepted, + 1
  EXPECT_EQ(core_->Counters().part("spec_decode_draft_tokens"), 2);
}

TEST_F(SpeculativeDecodingTest, OnlyVerifiedTokensAreCached) {
  Init(R"({"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_min": 3, "prompt_lookup_max": 3})");
  VllmRequest& r = Add({3, 4, 5, 6, 7, 8, 9, 10});
  Step();
  Step();  // schedules 13 verified + 4 draft positions
  // Registered at the verify step's schedule: blocks full of tokens known
  // then (13 tokens: 3 blocks), not the drafts' 4th block.
  EXPECT_EQ(r.kv.num_registered_blocks, 3);
}

TEST_F(SpeculativeDecodingTest, ModelDrafterAcceptsByItsRates) {
  Init(R"({"method": "eagle3", "num_speculative_tokens": 3, "acceptance_rates": [1.0]})");
  VllmRequest& always = Add({});
  Step();
  EXPECT_EQ(always.spec->drafts.size(), 3u);
  Step();
  EXPECT_EQ(always.num_tokens, 12 + 1 + 4);
  Init(R"({"method": "eagle3", "num_speculative_tokens": 3, "acceptance_rates": [0.0]})");
  VllmRequest& never = Add({});
  Step();
  Step();
  EXPECT_EQ(never.num_tokens, 12 + 1 + 1);
  EXPECT_EQ(never.num_computed_tokens, 13);
}

TEST_F(SpeculativeDecodingTest, EachRequestCountsItsDraftsAndAcceptancesForRequestsCsv) {
  Init(R"({"method": "eagle3", "num_speculative_tokens": 3, "acceptance_rates": [1.0, 1.0, 0.0]})");
  VllmRequest& request = Add({});
  Step();  // prefill: the first token, then three drafts
  EXPECT_EQ(request.ToRecord().parts.draft_tokens, 0);
  Step();  // verifies 3, accepts 2
  Step();  // again
  const RequestRecord record = request.ToRecord();
  EXPECT_EQ(record.parts.draft_tokens, 6);
  EXPECT_EQ(record.parts.accepted_tokens, 4);
  EXPECT_EQ(record.parts.draft_tokens, core_->Counters().part("spec_decode_draft_tokens"));
}

TEST_F(SpeculativeDecodingTest, ADraftHeadIsPricedAndALookupIsHostTime) {
  Init(R"({"method": "eagle", "num_speculative_tokens": 2, "acceptance_rates": [0.5], "drafter_layers": 2})");
  Add({});
  StepPlan plan;
  core_->Schedule(plan, TimePoint{});
  EXPECT_EQ(plan.draft_head_passes, 2);
  EXPECT_DOUBLE_EQ(plan.draft_head_layer_share, 2.0 / 32.0);
  Init(R"({"method": "ngram", "num_speculative_tokens": 2, "lookup_host_us": 7})");
  Add({});
  StepPlan lookup;
  core_->Schedule(lookup, TimePoint{});
  EXPECT_EQ(lookup.draft_host, Duration{7000});
  // A separate draft model: k of its passes, priced by the driver with its
  // own latency model; no head passes.
  Init(R"({"method": "draft_model", "model": "qwen2.5-coder-1.5b", "num_speculative_tokens": 3,
           "acceptance_rates": [0.5]})");
  Add({});
  StepPlan draft;
  core_->Schedule(draft, TimePoint{});
  EXPECT_EQ(draft.draft_model_passes, 3);
  EXPECT_EQ(draft.draft_head_passes, 0);
}

TEST(SpeculativeConfig, RefusesWhatItCannotModelNamingTheKey) {
  auto error = [](const std::string& text) {
    try {
      ParseSpeculativeConfig(text, 4096);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error(R"({"method": "ngram"})").find("num_speculative_tokens"), std::string::npos);
  EXPECT_NE(error(R"({"method": "eagle3", "num_speculative_tokens": 2})").find("acceptance_rates"),
            std::string::npos);
  // draft_model: rates and the drafter's spec are required; no head layers.
  EXPECT_NE(error(R"({"method": "draft_model", "num_speculative_tokens": 2})").find("acceptance_rates"),
            std::string::npos);
  EXPECT_NE(error(R"({"method": "draft_model", "num_speculative_tokens": 2, "acceptance_rates": [0.5]})")
                .find("needs \"model\""),
            std::string::npos);
  EXPECT_NE(error(R"({"method": "draft_model", "model": "qwen2.5-coder-1.5b", "num_speculative_tokens": 2,
                      "acceptance_rates": [0.5], "drafter_layers": 2})")
                .find("'drafter_layers'"),
            std::string::npos);
  EXPECT_NE(error(R"({"method": "ngram", "num_speculative_tokens": 2, "typo": 1})").find("'typo'"),
            std::string::npos);
  EXPECT_NE(error(R"({"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_min": 4, "prompt_lookup_max": 2})"),
            "");
  EXPECT_NE(error("{not json").find("--speculative-config"), std::string::npos);
  // Defaults as vLLM's: ngram 5..5; suffix k = its tree depth.
  const SpeculativeConfig ngram = ParseSpeculativeConfig(R"({"method": "ngram", "num_speculative_tokens": 3})", 4096);
  EXPECT_EQ(ngram.ngram.prompt_lookup_min, 5);
  EXPECT_EQ(ngram.ngram.prompt_lookup_max, 5);
  const SpeculativeConfig suffix = ParseSpeculativeConfig(R"({"method": "suffix"})", 4096);
  EXPECT_EQ(suffix.num_speculative_tokens, 24);
  EXPECT_FALSE(ParseSpeculativeConfig("", 4096).enabled());
}

}  // namespace
}  // namespace efimsim
