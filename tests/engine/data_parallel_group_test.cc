// A data-parallel group of vLLM v1 ranks (data_parallel_group.h): routing by
// 4 x waiting + running, lockstep steps that end with the slowest rank's,
// dummy batches of idle ranks, and independent ranks for dense models.
// A latency model linear in the padded rows keeps the arithmetic obvious.
#include "sim/engine/data_parallel_group.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "sim/engine/vllm/vllm_v1_core.h"
#include "tests/engine/replica_test_support.h"

namespace efimsim {
namespace {

// 1 ms a step plus 10 us a row; in a group, rows are the group's largest.
class RowsLatency : public LatencyModel {
 public:
  StepCost Predict(std::span<const SequenceWork> batch) const override { return PredictInGroup(batch, 0); }
  StepCost PredictInGroup(std::span<const SequenceWork> batch, int64_t group_rows) const override {
    int64_t rows = 0;
    for (const SequenceWork& seq : batch) rows += seq.new_tokens;
    StepCost cost;
    cost.cpu_overhead = Milliseconds(1);
    cost.gemm = Microseconds(10) * std::max(rows, group_rows);
    return cost;
  }
  std::string Name() const override { return "rows"; }
  std::string Description() const override { return "1 ms + 10 us a row (test)"; }
};

using testing_support::At;
using testing_support::Recorder;
using testing_support::TokenRequest;

class DataParallelGroupTest : public ::testing::Test {
 protected:
  // `latency`: the ranks' (null: latency_).
  std::unique_ptr<DataParallelGroup> MakeGroup(int ranks, bool lockstep, const LatencyModel* latency = nullptr,
                                               DataParallelRouting routing = DataParallelRouting::kVllmLoadScore) {
    const LatencyModel& model = latency != nullptr ? *latency : latency_;
    std::vector<std::unique_ptr<Replica>> group;
    for (int r = 0; r < ranks; ++r) {
      VllmV1CoreConfig core;
      core.limits = {2048, 256};
      core.block_tokens = 16;
      core.num_blocks = 256;
      core.max_context_tokens = 4096;
      core.output_token_first = 100;
      core.output_token_last = 30000;
      ReplicaConfig config;
      config.replica_index = r;
      config.check_invariants = true;
      config.output_token_first = 100;
      config.output_token_last = 30000;
      group.push_back(std::make_unique<Replica>(simulator_, config, std::make_unique<VllmV1Core>(core),
                                                model, recorder_));
    }
    auto dp = std::make_unique<DataParallelGroup>(simulator_, std::move(group), lockstep, model, routing);
    dp->set_step_observer(&recorder_);
    return dp;
  }

  static ClientRequest Tokens(uint64_t id, int64_t length, TokenId first, int64_t output) {
    return TokenRequest(id, length, first, output);
  }

  Simulator simulator_;
  RowsLatency latency_;
  Recorder recorder_;
};

TEST_F(DataParallelGroupTest, RequestsGoToTheRankWithTheLowestScore) {
  auto group = MakeGroup(3, /*lockstep=*/true);
  EXPECT_EQ(group->PickRank(), 0u);
  group->Submit(Tokens(1, 100, 1000, 4));  // rank 0: one waiting, score 4
  EXPECT_EQ(group->PickRank(), 1u);
  group->Submit(Tokens(2, 100, 2000, 4));
  group->Submit(Tokens(3, 100, 3000, 4));
  EXPECT_EQ(group->PickRank(), 0u);  // all tied at 4: the first
  EXPECT_EQ(group->outstanding_requests(), 3);
  simulator_.Run();
  // Each rank stepped: its own record index.
  std::vector<int32_t> ranks;
  for (const StepRecord& step : recorder_.steps) ranks.push_back(step.replica);
  for (int32_t r : {0, 1, 2}) EXPECT_NE(std::find(ranks.begin(), ranks.end(), r), ranks.end()) << r;
  EXPECT_TRUE(group->idle());
  EXPECT_TRUE(group->kv_all_free());
}

TEST_F(DataParallelGroupTest, VllmRoutesByCountsUpTo100MsOld) {
  auto group = MakeGroup(2, /*lockstep=*/true);
  const TimePoint start = simulator_.Now();
  auto send = [&](uint64_t id) { group->Submit(Tokens(id, 100, static_cast<TokenId>(1000 * id), 2)); };
  // Request 1 finishes within a few ms; at 50 ms the front end still counts
  // it waiting on rank 0 (its own increment), so request 2 goes to rank 1.
  // At 150 ms fresh counts show both ranks idle: rank 0 again.
  At first(simulator_, start, [&] { send(1); });
  At second(simulator_, start + Milliseconds(50), [&] { send(2); });
  At third(simulator_, start + Milliseconds(150), [&] { send(3); });
  simulator_.Run();
  ASSERT_EQ(recorder_.finished.size(), 3u);
  EXPECT_LT(recorder_.Finished(1).finish, start + Milliseconds(50));
  // The rank each request went to, from its steps (one request at a time).
  std::vector<int32_t> rank_of(4, -1);
  for (const StepRecord& step : recorder_.steps) {
    const int64_t ms = ToNanoseconds(step.start - start) / 1000000;
    rank_of[ms < 50 ? 1 : ms < 150 ? 2 : 3] = step.replica;
  }
  EXPECT_EQ(rank_of[1], 0);
  EXPECT_EQ(rank_of[2], 1);
  EXPECT_EQ(rank_of[3], 0);
}

TEST_F(DataParallelGroupTest, SglangRoutesRoundRobinWhateverTheLoad) {
  auto group = MakeGroup(3, /*lockstep=*/true, nullptr, DataParallelRouting::kSglangRoundRobin);
  std::vector<size_t> picked;
  for (uint64_t id = 1; id <= 4; ++id) {
    picked.push_back(group->PickRank());
    group->Submit(Tokens(id, 100, static_cast<TokenId>(1000 * id), 2));
  }
  // Rank 0 already holds a waiting request when the fourth comes: still its turn.
  EXPECT_EQ(picked, (std::vector<size_t>{0, 1, 2, 0}));
  simulator_.Run();
  EXPECT_EQ(recorder_.finished.size(), 4u);
}

TEST_F(DataParallelGroupTest, LockstepRanksEndEveryStepWithTheSlowest) {
  auto group = MakeGroup(2, /*lockstep=*/true);
  group->Submit(Tokens(1, 400, 1000, 3));  // rank 0
  group->Submit(Tokens(2, 10, 5000, 3));   // rank 1
  simulator_.Run();
  // The first step: both ranks padded to 400 rows, 1 ms + 4 ms.
  EXPECT_EQ(recorder_.Finished(1).ttft(), Milliseconds(5));
  EXPECT_EQ(recorder_.Finished(2).ttft(), Milliseconds(5));
  // Then decodes of one row each: 1.01 ms.
  EXPECT_EQ(recorder_.Finished(2).e2e(), Milliseconds(5) + 2 * Microseconds(1010));
  // The padding rows are in each rank's own cost here, so no record waits.
  for (const StepRecord& step : recorder_.steps) {
    EXPECT_EQ(step.end - step.start, step.cost.Total());
  }
  EXPECT_EQ(group->dummy_steps(), 0);
  EXPECT_EQ(group->Counters().steps, 6);  // three group steps, two ranks each
}

TEST_F(DataParallelGroupTest, AnIdleRankRunsADummyBatchAndTheStepWaitsForIt) {
  auto group = MakeGroup(2, /*lockstep=*/true);
  group->Submit(Tokens(1, 100, 1000, 2));
  simulator_.Run();
  // Rank 1 had nothing: each of the two steps had a dummy batch.
  EXPECT_EQ(group->dummy_steps(), 2);
  EXPECT_EQ(recorder_.steps.size(), 2u);  // dummy batches write no record
  EXPECT_EQ(recorder_.Finished(1).ttft(), Milliseconds(2));  // 1 ms + 100 rows
}

TEST_F(DataParallelGroupTest, WaitingForASlowerRankCountsAsCommunication) {
  // A latency model that prices the group's rows for the MoE part only:
  // the rank with fewer rows finishes its own work early and waits.
  class OwnRowsLatency : public RowsLatency {
   public:
    StepCost PredictInGroup(std::span<const SequenceWork> batch, int64_t) const override {
      return RowsLatency::PredictInGroup(batch, 0);
    }
  };
  OwnRowsLatency own;
  auto group = MakeGroup(2, /*lockstep=*/true, &own);
  group->Submit(Tokens(1, 400, 1000, 1));
  group->Submit(Tokens(2, 10, 5000, 1));
  simulator_.Run();
  ASSERT_EQ(recorder_.steps.size(), 2u);
  const StepRecord& fast = recorder_.steps[0].replica == 1 ? recorder_.steps[0] : recorder_.steps[1];
  EXPECT_EQ(fast.end - fast.start, Milliseconds(5));
  EXPECT_EQ(fast.cost.gemm, Microseconds(100));
  EXPECT_EQ(fast.cost.communication, Milliseconds(5) - Microseconds(1100));
}

TEST_F(DataParallelGroupTest, WithoutLockstepRanksStepOnTheirOwn) {
  auto group = MakeGroup(2, /*lockstep=*/false);
  group->Submit(Tokens(1, 400, 1000, 3));
  group->Submit(Tokens(2, 10, 5000, 3));
  simulator_.Run();
  EXPECT_EQ(recorder_.Finished(1).ttft(), Milliseconds(5));
  EXPECT_EQ(recorder_.Finished(2).ttft(), Microseconds(1100));
  EXPECT_EQ(group->dummy_steps(), 0);
}

TEST_F(DataParallelGroupTest, CancelReachesTheRankThatHoldsTheRequest) {
  auto group = MakeGroup(2, /*lockstep=*/true);
  group->Submit(Tokens(1, 100, 1000, 50));
  group->Submit(Tokens(2, 100, 2000, 50));
  group->Cancel(2);  // before any step: at once
  group->Cancel(99);  // unknown: nothing
  simulator_.Run();
  ASSERT_EQ(recorder_.cancelled.size(), 1u);
  EXPECT_EQ(recorder_.cancelled[0].request_id, 2u);
  EXPECT_EQ(recorder_.finished.size(), 1u);
  EXPECT_TRUE(group->kv_all_free());
}

}  // namespace
}  // namespace efimsim
