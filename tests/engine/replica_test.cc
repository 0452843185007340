// The replica's request lifecycle (the step driver around the vLLM v1
// core): submission, rejection, cancellation, prompts given as block keys.
// A fixed-duration latency model keeps the timing arithmetic obvious.
#include "sim/engine/replica.h"

#include "sim/engine/sglang/sglang_core.h"
#include "sim/engine/vllm/vllm_v1_core.h"

#include <gtest/gtest.h>

#include "tests/engine/fixed_latency_model.h"
#include "tests/engine/replica_test_support.h"

#include <functional>
#include <numeric>

namespace efimsim {
namespace {

constexpr Duration kStep = Milliseconds(10);

class FixedLatency : public testing_support::FixedLatencyModel {
 public:
  FixedLatency() : FixedLatencyModel(kStep) {}
};

using testing_support::Recorder;

using testing_support::At;

class ReplicaTest : public ::testing::Test {
 protected:
  ReplicaTest() {
    VllmV1CoreConfig core;
    core.limits = {2048, 256};
    core.block_tokens = 16;
    core.num_blocks = 64;
    core.max_context_tokens = 4096;
    core.output_token_first = 100;
    core.output_token_last = 30000;
    config_.check_invariants = true;
    config_.output_token_first = 100;
    config_.output_token_last = 30000;
    auto engine = std::make_unique<VllmV1Core>(core);
    core_ = engine.get();
    replica_ = std::make_unique<Replica>(simulator_, config_, std::move(engine), latency_,
                                         recorder_);
  }

  static ClientRequest Tokens(uint64_t id, int64_t length, TokenId first, int64_t output = 4) {
    return testing_support::TokenRequest(id, length, first, output);
  }

  Simulator simulator_;
  ReplicaConfig config_;
  FixedLatency latency_;
  Recorder recorder_;
  const VllmV1Core* core_ = nullptr;
  std::unique_ptr<Replica> replica_;
};

TEST_F(ReplicaTest, EachStepEmitsOneTokenPerRunningRequest) {
  replica_->Submit(Tokens(1, 100, 1000, 4));
  simulator_.Run();
  ASSERT_EQ(recorder_.finished.size(), 1u);
  const RequestRecord& r = recorder_.finished[0];
  EXPECT_EQ(r.ttft(), kStep);            // prefill step emits the first token
  EXPECT_EQ(r.e2e(), 4 * kStep);         // then three decode steps
  EXPECT_DOUBLE_EQ(r.tpot_ms(), 10.0);
  EXPECT_TRUE(replica_->idle());
}

TEST_F(ReplicaTest, PromptLongerThanTheContextIsRejectedWithAReason) {
  replica_->Submit(Tokens(1, 4090, 1000, 16));
  EXPECT_EQ(recorder_.rejected, (std::vector<uint64_t>{1}));
  EXPECT_NE(recorder_.last_reason.find("context"), std::string::npos);
  EXPECT_EQ(replica_->Counters().rejected_requests, 1);
}

TEST_F(ReplicaTest, ARequestStopsAtItsDrawnLengthBeforeItsCap) {
  ClientRequest r = Tokens(1, 100, 1000, 8);
  r.output_length = 3;
  replica_->Submit(r);
  simulator_.Run();
  ASSERT_EQ(recorder_.finished.size(), 1u);
  EXPECT_EQ(recorder_.finished[0].output_tokens, 3);
  EXPECT_EQ(recorder_.finished[0].e2e(), 3 * kStep);
}

TEST_F(ReplicaTest, SubmitChecksTheCapNotTheDrawnLength) {
  // 4000 + 100 tokens exceed the 4096-token context although the model
  // would stop after 2: the engine cannot know that.
  ClientRequest r = Tokens(1, 4000, 1000, 100);
  r.output_length = 2;
  replica_->Submit(r);
  EXPECT_EQ(recorder_.rejected, (std::vector<uint64_t>{1}));
  EXPECT_NE(recorder_.last_reason.find("4100"), std::string::npos);
}

TEST_F(ReplicaTest, CancellingAWaitingRequestRemovesIt) {
  replica_->Submit(Tokens(1, 100, 1000));
  replica_->Cancel(1);  // before any step ran
  simulator_.Run();
  ASSERT_EQ(recorder_.cancelled.size(), 1u);
  EXPECT_TRUE(recorder_.cancelled[0].cancelled);
  EXPECT_EQ(recorder_.cancelled[0].output_tokens, 0);
  EXPECT_TRUE(recorder_.finished.empty());
  EXPECT_EQ(core_->cache().pool().num_free_blocks(), 64);
}

TEST_F(ReplicaTest, CancelledRequestsBlocksStayCachedForTheNextRequest) {
  replica_->Submit(Tokens(1, 100, 1000, 50));
  At cancel(simulator_, TimePoint{Milliseconds(25)}, [&] { replica_->Cancel(1); });
  At next(simulator_, TimePoint{Milliseconds(40)}, [&] { replica_->Submit(Tokens(2, 120, 1000)); });
  simulator_.Run();
  ASSERT_EQ(recorder_.cancelled.size(), 1u);
  // Asked at 25 ms, during the step 20-30 ms: aborted when that step completes.
  EXPECT_EQ(recorder_.cancelled[0].finish, TimePoint{Milliseconds(30)});
  EXPECT_EQ(recorder_.cancelled[0].output_tokens, 3);
  ASSERT_EQ(recorder_.finished.size(), 1u);
  EXPECT_EQ(recorder_.finished[0].cached_tokens, 96);  // 6 full prompt blocks of request 1
  EXPECT_EQ(core_->cache().pool().num_free_blocks(), 64);
}

TEST_F(ReplicaTest, CancellingAFinishedOrUnknownRequestIsANoOp) {
  replica_->Submit(Tokens(1, 20, 1000, 1));
  simulator_.Run();
  replica_->Cancel(1);
  replica_->Cancel(99);
  EXPECT_EQ(recorder_.finished.size(), 1u);
  EXPECT_TRUE(recorder_.cancelled.empty());
}

TEST_F(ReplicaTest, PromptsGivenAsBlockKeysShareExactlyTheirCommonKeys) {
  auto keyed = [](uint64_t id, std::vector<uint64_t> keys, int64_t length) {
    ClientRequest r;
    r.request_id = id;
    r.prompt_length = length;
    r.prompt_block_keys = std::move(keys);
    r.block_key_tokens = 16;
    r.max_tokens = 2;
    return r;
  };
  replica_->Submit(keyed(1, {11, 12, 13}, 50));
  At second(simulator_, TimePoint{Milliseconds(100)},
            [&] { replica_->Submit(keyed(2, {11, 12, 99}, 60)); });
  At third(simulator_, TimePoint{Milliseconds(200)},
           [&] { replica_->Submit(keyed(3, {}, 60)); });  // length only: nothing shared
  simulator_.Run();
  ASSERT_EQ(recorder_.finished.size(), 3u);
  EXPECT_EQ(recorder_.finished[0].cached_tokens, 0);
  EXPECT_EQ(recorder_.finished[1].cached_tokens, 32);
  EXPECT_EQ(recorder_.finished[2].cached_tokens, 0);
  EXPECT_EQ(recorder_.finished[1].prompt_tokens, 60);
}

TEST_F(ReplicaTest, BlockKeysForAnotherBlockSizeAreRejected) {
  ClientRequest r;
  r.request_id = 1;
  r.prompt_length = 1024;
  r.prompt_block_keys = {1, 2};
  r.block_key_tokens = 512;
  r.max_tokens = 2;
  replica_->Submit(r);
  EXPECT_EQ(recorder_.rejected.size(), 1u);
}

}  // namespace
}  // namespace efimsim

namespace efimsim {
namespace {

// A prefill leg of disaggregated serving: 100 prompt tokens, one output
// token, its KV held at finish until released.
ClientRequest PrefillLeg(uint64_t id) {
  ClientRequest leg;
  leg.request_id = id;
  leg.prompt.resize(100);
  std::iota(leg.prompt.begin(), leg.prompt.end(), 1000);
  leg.max_tokens = 1;
  leg.hold_kv_until_read = true;
  return leg;
}

// A small SGLang core (64 blocks) and a replica that checks invariants.
SglangCoreConfig SmallSglangCore() {
  SglangCoreConfig core;
  core.limits.chunked_prefill_size = 8192;
  core.limits.max_running_requests = 16;
  core.num_blocks = 64;
  core.max_context_tokens = 4096;
  return core;
}

ReplicaConfig CheckedReplicaConfig() {
  ReplicaConfig config;
  config.check_invariants = true;
  config.output_token_first = 100;
  config.output_token_last = 30000;
  return config;
}

// A replica around SmallSglangCore with its simulator, latency and recorder.
struct SglangReplica {
  Simulator simulator;
  FixedLatency latency;
  Recorder recorder;
  SglangCore* sglang = nullptr;  // owned by the replica
  Replica replica{simulator, CheckedReplicaConfig(), MakeCore(&sglang), latency, recorder};

  static std::unique_ptr<EngineCore> MakeCore(SglangCore** out) {
    auto core = std::make_unique<SglangCore>(SmallSglangCore());
    *out = core.get();
    return core;
  }
};

// The same driver around the SGLang core: a prefill batch, then decode
// batches; aborts of a request in the step in flight wait for its end, and
// its computed tokens stay in the radix tree.
TEST(ReplicaWithSglangCore, DrivesPrefillThenDecodeAndDefersAborts) {
  SglangReplica fixture;
  Simulator& simulator = fixture.simulator;
  Recorder& recorder = fixture.recorder;
  Replica& replica = fixture.replica;
  const SglangCore* sglang = fixture.sglang;
  auto tokens = [](uint64_t id, int64_t length, int64_t max_tokens) {
    ClientRequest r;
    r.request_id = id;
    r.prompt.resize(static_cast<size_t>(length));
    std::iota(r.prompt.begin(), r.prompt.end(), 1000);
    r.max_tokens = max_tokens;
    return r;
  };
  replica.Submit(tokens(1, 100, 4));
  replica.Submit(tokens(2, 100, 50));
  At cancel(simulator, TimePoint{Milliseconds(25)}, [&] { replica.Cancel(2); });
  simulator.Run();
  ASSERT_EQ(recorder.finished.size(), 1u);
  EXPECT_EQ(recorder.finished[0].e2e(), 4 * kStep);  // one prefill + three decode steps
  ASSERT_EQ(recorder.cancelled.size(), 1u);
  EXPECT_EQ(recorder.cancelled[0].finish, TimePoint{Milliseconds(30)});
  EXPECT_EQ(recorder.cancelled[0].output_tokens, 3);
  EXPECT_TRUE(replica.idle());
  EXPECT_TRUE(replica.kv_all_free());
  EXPECT_GT(sglang->cache().evictable(), 0);  // the prompts stay cached
  EXPECT_EQ(replica.Counters().steps, 4);
}

// Disaggregated serving, prefill side: a request sent with
// hold_kv_until_read finishes, but its KV stays allocated (the replica is
// idle yet not all free) until ReleaseHeldKv's time, when it is freed.
TEST(ReplicaWithSglangCore, HoldsAFinishedPrefillLegsKvUntilReleased) {
  SglangReplica fixture;
  Simulator& simulator = fixture.simulator;
  Recorder& recorder = fixture.recorder;
  Replica& replica = fixture.replica;
  replica.Submit(PrefillLeg(7));
  bool held_after_finish = false;
  At check(simulator, TimePoint{Milliseconds(15)}, [&] {
    held_after_finish = recorder.finished.size() == 1 && !replica.kv_all_free();
    replica.CheckInvariants();
    replica.ReleaseHeldKv(7, TimePoint{Milliseconds(40)});
  });
  bool still_held = false;
  At before(simulator, TimePoint{Milliseconds(39)}, [&] { still_held = !replica.kv_all_free(); });
  simulator.Run();
  EXPECT_TRUE(held_after_finish);
  EXPECT_TRUE(still_held);
  EXPECT_TRUE(replica.kv_all_free());
  replica.CheckInvariants();
}

TEST_F(ReplicaTest, VllmHoldsAFinishedPrefillLegsKvUntilReleased) {
  replica_->Submit(PrefillLeg(9));
  bool held_after_finish = false;
  At check(simulator_, TimePoint{Milliseconds(15)}, [&] {
    held_after_finish = recorder_.finished.size() == 1 && !replica_->kv_all_free();
    replica_->CheckInvariants();
    replica_->ReleaseHeldKv(9, TimePoint{});  // at once (a time already past)
  });
  simulator_.Run();
  EXPECT_TRUE(held_after_finish);
  EXPECT_TRUE(replica_->kv_all_free());
}

}  // namespace
}  // namespace efimsim
