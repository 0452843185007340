// Rules of vLLM v1's scheduler (docs/semantics.md §4), one test each.
#include "sim/engine/vllm/vllm_v1_scheduler.h"

#include <gtest/gtest.h>

#include <memory>
#include <numeric>

namespace efimsim {
namespace {

constexpr int32_t kBlock = 16;

class SchedulerTest : public ::testing::Test {
 protected:
  void Init(int32_t blocks, int64_t budget, int64_t max_seqs, bool caching = true) {
    cache_ = std::make_unique<PrefixCacheManager>(blocks, kBlock, caching);
    scheduler_ = std::make_unique<VllmV1Scheduler>(SchedulerLimits{budget, max_seqs}, *cache_);
  }

  // A waiting request with `prompt` distinct tokens starting at `first`.
  VllmRequest* Add(int64_t prompt, TokenId first, int64_t max_output = 8) {
    auto r = std::make_unique<VllmRequest>();
    r->id = requests_.size();
    r->prompt_tokens = prompt;
    r->num_tokens = prompt;
    r->max_output_tokens = max_output;
    TokenVector tokens(static_cast<size_t>(prompt));
    std::iota(tokens.begin(), tokens.end(), first);
    AppendBlockKeys(tokens, kBlock, 0, r->block_keys);
    r->tail_tokens.assign(tokens.begin() + static_cast<int64_t>(r->block_keys.size()) * kBlock,
                          tokens.end());
    scheduler_->AddWaiting(r.get());
    requests_.push_back(std::move(r));
    return requests_.back().get();
  }

  StepPlan Step() {
    StepPlan plan;
    scheduler_->Schedule(plan);
    return plan;
  }

  // What the replica does when a step completes.
  void Complete(const StepPlan& plan) {
    for (const ScheduledSequence& seq : plan.sequences) {
      VllmRequest& r = static_cast<VllmRequest&>(*seq.request);
      if (r.num_computed_tokens != r.num_tokens) continue;
      r.AppendTokenKey(static_cast<TokenId>(900000 + r.id * 1000 + r.output_tokens), kBlock);
      ++r.num_tokens;
      if (++r.output_tokens >= r.max_output_tokens) {
        r.TransitionTo(RequestState::kFinished);
        cache_->Free(r.kv);
      }
    }
    scheduler_->RemoveFinished();
  }

  static int64_t TokensOf(const StepPlan& plan, const VllmRequest* r) {
    for (const auto& seq : plan.sequences) {
      if (seq.request == r) return seq.new_tokens;
    }
    return 0;
  }

  std::unique_ptr<PrefixCacheManager> cache_;
  std::unique_ptr<VllmV1Scheduler> scheduler_;
  std::vector<std::unique_ptr<VllmRequest>> requests_;
};

TEST_F(SchedulerTest, TokenBudgetCapsAStepAndChunksALongPrompt) {
  Init(64, 64, 256);
  VllmRequest* a = Add(100, 1000);
  StepPlan first = Step();
  EXPECT_EQ(TokensOf(first, a), 64);
  EXPECT_EQ(first.total_tokens, 64);
  Complete(first);
  EXPECT_EQ(a->output_tokens, 0);  // a partial prefill emits nothing
  StepPlan second = Step();
  EXPECT_EQ(TokensOf(second, a), 36);
  Complete(second);
  EXPECT_EQ(a->output_tokens, 1);
}

TEST_F(SchedulerTest, RunningRequestsComeBeforeWaitingOnes) {
  Init(64, 64, 256);
  VllmRequest* a = Add(100, 1000);
  Complete(Step());  // a runs with 36 prompt tokens left
  VllmRequest* b = Add(100, 5000);
  StepPlan plan = Step();
  ASSERT_EQ(plan.sequences.size(), 2u);
  EXPECT_EQ(plan.sequences[0].request, a);
  EXPECT_EQ(TokensOf(plan, a), 36);
  EXPECT_EQ(TokensOf(plan, b), 28);  // the rest of the budget
}

TEST_F(SchedulerTest, MixedStepBatchesDecodesWithAPrefillChunk) {
  Init(64, 64, 256);
  VllmRequest* a = Add(20, 1000);
  Complete(Step());  // a prefilled, emitted its first token
  VllmRequest* b = Add(200, 5000);
  StepPlan plan = Step();
  EXPECT_EQ(TokensOf(plan, a), 1);
  EXPECT_EQ(TokensOf(plan, b), 63);
  EXPECT_EQ(plan.sequences[0].context_tokens, 20);
}

TEST_F(SchedulerTest, WaitingRequestsAreAdmittedFcfs) {
  Init(64, 1000, 256);
  VllmRequest* a = Add(10, 1000);
  VllmRequest* b = Add(10, 2000);
  VllmRequest* c = Add(10, 3000);
  StepPlan plan = Step();
  ASSERT_EQ(plan.sequences.size(), 3u);
  EXPECT_EQ(plan.sequences[0].request, a);
  EXPECT_EQ(plan.sequences[1].request, b);
  EXPECT_EQ(plan.sequences[2].request, c);
}

TEST_F(SchedulerTest, MaxNumSeqsCapsRunningRequests) {
  Init(64, 1000, 2);
  Add(10, 1000);
  Add(10, 2000);
  VllmRequest* c = Add(10, 3000);
  StepPlan plan = Step();
  EXPECT_EQ(plan.sequences.size(), 2u);
  EXPECT_EQ(scheduler_->running().size(), 2u);
  EXPECT_EQ(scheduler_->waiting().front(), c);
}

TEST_F(SchedulerTest, AdmissionStopsAtTheFirstWaitingRequestThatDoesNotFit) {
  Init(4, 1000, 256);
  VllmRequest* a = Add(40, 1000);   // 3 blocks
  VllmRequest* big = Add(40, 2000); // 3 blocks: does not fit beside a
  VllmRequest* small = Add(10, 3000);  // 1 block: would fit, but FCFS does not skip
  StepPlan plan = Step();
  ASSERT_EQ(plan.sequences.size(), 1u);
  EXPECT_EQ(plan.sequences[0].request, a);
  EXPECT_EQ(scheduler_->waiting().front(), big);
  EXPECT_EQ(scheduler_->waiting().back(), small);
}

TEST_F(SchedulerTest, PreemptsTheMostRecentlyAdmittedAndRequeuesItAtTheFront) {
  Init(4, 1000, 256);
  VllmRequest* a = Add(32, 1000, 4);  // 2 blocks, full
  VllmRequest* b = Add(31, 2000, 4);  // 2 blocks
  Complete(Step());               // both prefilled; the pool is full
  VllmRequest* c = Add(5, 3000);
  // a's next token needs a third block: b (admitted last) is preempted.
  StepPlan plan = Step();
  EXPECT_EQ(plan.preempted, 1);
  EXPECT_EQ(TokensOf(plan, a), 1);
  EXPECT_EQ(TokensOf(plan, b), 0);
  EXPECT_EQ(b->state, RequestState::kPreempted);
  EXPECT_EQ(b->num_computed_tokens, 0);
  EXPECT_TRUE(b->kv.blocks.empty());
  EXPECT_EQ(b->preemptions, 1);
  EXPECT_EQ(scheduler_->waiting().front(), b);  // jumps ahead of c, which was waiting
  EXPECT_EQ(scheduler_->waiting().back(), c);
  EXPECT_EQ(scheduler_->preemptions(), 1);
}

TEST_F(SchedulerTest, NoAdmissionInAStepThatPreempted) {
  Init(4, 1000, 256);
  Add(32, 1000, 4);
  Add(31, 2000, 4);
  Complete(Step());
  VllmRequest* c = Add(1, 3000);  // would fit in the block b frees
  StepPlan plan = Step();
  ASSERT_EQ(plan.preempted, 1);
  EXPECT_EQ(TokensOf(plan, c), 0);
  EXPECT_EQ(plan.admitted, 0);
}

TEST_F(SchedulerTest, PreemptingTheRequestItselfEndsTheRunningPass) {
  Init(2, 1000, 256);
  VllmRequest* a = Add(32, 1000, 4);  // takes both blocks
  Complete(Step());
  StepPlan plan = Step();  // a needs a third block; the only victim is a itself
  EXPECT_TRUE(plan.empty());
  EXPECT_EQ(plan.preempted, 1);
  EXPECT_EQ(a->state, RequestState::kPreempted);
  EXPECT_EQ(cache_->pool().num_free_blocks(), 2);
}

TEST_F(SchedulerTest, AdmissionLooksUpTheCacheAndRecordsCachedTokens) {
  Init(6, 1000, 256);
  VllmRequest* a = Add(40, 1000, 2);
  Complete(Step());
  EXPECT_EQ(a->cached_tokens, 0);
  VllmRequest* b = Add(40, 1000, 2);  // same prompt: hits a's two full blocks
  StepPlan plan = Step();
  EXPECT_EQ(b->cached_tokens, 32);
  EXPECT_EQ(TokensOf(plan, b), 8);
  EXPECT_EQ(cache_->stats().lookups, 2);
}

TEST_F(SchedulerTest, ReadmissionAfterPreemptionLooksUpAgainButKeepsFirstCachedTokens) {
  Init(4, 1000, 256);
  VllmRequest* a = Add(32, 1000, 3);
  VllmRequest* b = Add(31, 2000, 3);
  Complete(Step());           // both prefilled
  Complete(Step());           // b preempted, a decodes
  ASSERT_EQ(b->state, RequestState::kPreempted);
  EXPECT_EQ(b->cached_tokens, 0);
  const int64_t hits_before = cache_->stats().hit_tokens;
  Complete(Step());           // a's last token; b looks up (hit 16) but does not fit yet
  EXPECT_EQ(a->state, RequestState::kFinished);
  EXPECT_EQ(b->state, RequestState::kPreempted);
  StepPlan plan = Step();     // b re-admitted: its own block 0 is still cached
  EXPECT_EQ(b->state, RequestState::kRunning);
  // Every lookup counts, as vLLM's counters do: two lookups of 16 hit tokens.
  EXPECT_EQ(cache_->stats().hit_tokens - hits_before, 32);
  EXPECT_EQ(b->cached_tokens, 0);  // recorded once, at first admission
  EXPECT_EQ(TokensOf(plan, b), 32 - 16);  // prompt + its one output token, less the hit
}

}  // namespace
}  // namespace efimsim

namespace efimsim {
namespace {

// With prefix caching off (the baseline) requests keep no block keys: the
// scheduler and cache never read them. Chunked prefill, decode across block
// boundaries, preemption and completion all work without them.
TEST(SchedulerWithoutCaching, RequestsWithoutBlockKeysRunToCompletion) {
  PrefixCacheManager cache(12, kBlock, /*caching_enabled=*/false);
  VllmV1Scheduler scheduler({64, 8}, cache);
  std::vector<std::unique_ptr<VllmRequest>> requests;
  for (int i = 0; i < 3; ++i) {
    auto r = std::make_unique<VllmRequest>();
    r->id = static_cast<uint64_t>(i);
    r->tracks_block_keys = false;
    r->prompt_tokens = r->num_tokens = 50;
    r->max_output_tokens = 40;  // 50 + 40 tokens: 6 blocks each, 18 > 12 in the pool
    scheduler.AddWaiting(r.get());
    requests.push_back(std::move(r));
  }
  int64_t preemptions = 0;
  for (int step = 0; step < 1000 && !(scheduler.running().empty() && scheduler.waiting().empty()); ++step) {
    StepPlan plan;
    scheduler.Schedule(plan);
    ASSERT_FALSE(plan.empty());
    preemptions += plan.preempted;
    for (const ScheduledSequence& seq : plan.sequences) {
      VllmRequest& r = static_cast<VllmRequest&>(*seq.request);
      if (r.num_computed_tokens != r.num_tokens) continue;
      r.AppendTokenKey(7, kBlock);
      ++r.num_tokens;
      if (++r.output_tokens >= r.max_output_tokens) {
        r.TransitionTo(RequestState::kFinished);
        cache.Free(r.kv);
      }
    }
    scheduler.RemoveFinished();
  }
  EXPECT_GT(preemptions, 0);
  for (const auto& r : requests) {
    EXPECT_EQ(r->state, RequestState::kFinished);
    EXPECT_EQ(r->num_tokens, 90);
    EXPECT_TRUE(r->block_keys.empty());
    EXPECT_TRUE(r->tail_tokens.empty());
  }
  EXPECT_EQ(cache.pool().num_free_blocks(), 12);
  EXPECT_EQ(cache.stats().hit_tokens, 0);
}

}  // namespace
}  // namespace efimsim
