// The vLLM core's reuse of a user's previous prompt keys
// (ClientRequest::prompt_tokens_shared_with_previous_round, RoundKeyMemo):
// the keys are those hashing would give, and a wrong claim stops the run.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <numeric>
#include <vector>

#include "sim/base/errors.h"
#include "sim/engine/vllm/block_key.h"
#include "sim/engine/vllm/vllm_v1_core.h"

namespace efimsim {
namespace {

constexpr int32_t kBlock = 16;

class RoundKeysTest : public ::testing::Test {
 protected:
  RoundKeysTest() {
    VllmV1CoreConfig config;
    config.limits = {2048, 256};
    config.block_tokens = kBlock;
    config.num_blocks = 256;
    config.output_token_first = 1000;
    config.output_token_last = 30000;
    core_ = std::make_unique<VllmV1Core>(config);
  }

  // The next request: `user`'s round `round`, claiming `shared` tokens.
  ClientRequest Next(int64_t user, int64_t round, const TokenVector& prompt, int64_t shared) {
    ClientRequest client;
    client.request_id = next_id_++;
    client.user = user;
    client.round = round;
    client.prompt = prompt;
    client.max_tokens = 20;  // a block and a bit of output: keys past the prompt's
    client.prompt_tokens_shared_with_previous_round = shared;
    return client;
  }

  // Sends a request and runs steps until it finishes.
  std::unique_ptr<Request> Run(int64_t user, int64_t round, const TokenVector& prompt,
                               int64_t shared, bool next_round_follows) {
    ClientRequest client = Next(user, round, prompt, shared);
    client.next_round_follows = next_round_follows;
    std::unique_ptr<Request> request = core_->Add(client, TimePoint{});
    for (int step = 0; step < 100 && request->state != RequestState::kFinished; ++step) {
      StepPlan plan;
      core_->Schedule(plan, TimePoint{});
      std::vector<Request*> finished;
      TokenEmitter emitter(draw_, TimePoint{}, finished);
      core_->AfterStep(plan, emitter);
    }
    EXPECT_EQ(request->state, RequestState::kFinished);
    return request;
  }

  static TokenVector Tokens(TokenId first, size_t count) {
    TokenVector tokens(count);
    std::iota(tokens.begin(), tokens.end(), first);
    return tokens;
  }
  // `first` with `typed` appended: the next round of a user who typed.
  static TokenVector Appended(const TokenVector& first, const TokenVector& typed) {
    TokenVector next = first;
    next.insert(next.end(), typed.begin(), typed.end());
    return next;
  }
  static std::vector<BlockKey> Hashed(const TokenVector& prompt) {
    std::vector<BlockKey> keys;
    AppendBlockKeys(prompt, kBlock, 0, keys);
    return keys;
  }

  TokenDraw draw_{1000, 30000};
  std::unique_ptr<VllmV1Core> core_;
  uint64_t next_id_ = 0;
};

TEST_F(RoundKeysTest, ANextRoundGetsTheKeysHashingWouldGive) {
  const TokenVector first = Tokens(100, 100);
  Run(5, 0, first, 0, true);
  const TokenVector second = Appended(first, Tokens(500, 40));
  ClientRequest client = Next(5, 1, second, static_cast<int64_t>(first.size()));
  const std::unique_ptr<Request> request = core_->Add(client, TimePoint{});
  EXPECT_EQ(static_cast<VllmRequest&>(*request).block_keys, Hashed(second));
}

TEST_F(RoundKeysTest, AClaimTheTokensBelieStopsTheRun) {
  const TokenVector first = Tokens(100, 100);
  Run(6, 0, first, 0, true);
  TokenVector second = first;
  second[90] = 7;  // in the last block the claim covers (tokens 80..95)
  EXPECT_THROW(Run(6, 1, second, static_cast<int64_t>(first.size()), false), InternalError);
}

TEST_F(RoundKeysTest, ANegativeClaimTakesNothing) {
  const TokenVector first = Tokens(100, 100);
  Run(8, 0, first, 0, true);
  TokenVector second = first;
  second[90] = 7;  // would fail the check if the kept keys were taken
  const std::unique_ptr<Request> request = Run(8, 1, second, -5, false);
  std::vector<BlockKey> prompt_keys = static_cast<VllmRequest&>(*request).block_keys;
  prompt_keys.resize(second.size() / kBlock);
  EXPECT_EQ(prompt_keys, Hashed(second));
}

TEST_F(RoundKeysTest, NoKeysAreKeptForAUserWithoutANextRound) {
  const TokenVector first = Tokens(100, 100);
  Run(7, 0, first, 0, false);
  TokenVector second = first;
  second[90] = 7;  // would fail the check if keys had been kept
  const std::unique_ptr<Request> request = Run(7, 1, second, static_cast<int64_t>(first.size()), false);
  // The keys were hashed from this prompt: its own block 5 (tokens 80..95).
  std::vector<BlockKey> prompt_keys = static_cast<VllmRequest&>(*request).block_keys;
  prompt_keys.resize(second.size() / kBlock);
  EXPECT_EQ(prompt_keys, Hashed(second));
}

// The engine says which ids it will not read: every shared block but the
// last (6 full blocks kept of a 100-token prompt: 5 unread, 80 tokens).
TEST_F(RoundKeysTest, UnreadTokensAreTheKeptBlocksButTheLast) {
  const TokenVector first = Tokens(100, 100);
  EXPECT_EQ(core_->UnreadPromptTokens(9, 1, 100), 0);  // nothing kept yet
  Run(9, 0, first, 0, true);
  EXPECT_EQ(core_->UnreadPromptTokens(9, 1, 100), 80);
  EXPECT_EQ(core_->UnreadPromptTokens(9, 1, 40), 16);   // 2 shared blocks: 1 unread
  EXPECT_EQ(core_->UnreadPromptTokens(9, 1, 20), 0);    // 1 shared block: it is read
  EXPECT_EQ(core_->UnreadPromptTokens(9, 2, 100), 0);   // keys are of round 0
  EXPECT_EQ(core_->UnreadPromptTokens(10, 1, 100), 0);  // another user
}

// Unmade ids where the engine said it would not read them: the keys are
// those of the whole prompt all the same.
TEST_F(RoundKeysTest, IdsLeftUnmadeWhereUnreadGiveTheSameKeys) {
  const TokenVector first = Tokens(100, 100);
  Run(11, 0, first, 0, true);
  const TokenVector second = Appended(first, Tokens(500, 40));
  ClientRequest client = Next(11, 1, second, static_cast<int64_t>(first.size()));
  std::fill(client.prompt.begin() + 10, client.prompt.begin() + 80, 7);  // "unmade"
  client.prompt_unmade_begin = 10;
  client.prompt_unmade_end = 80;
  ASSERT_EQ(core_->UnreadPromptTokens(11, 1, 100), 80);
  const std::unique_ptr<Request> request = core_->Add(client, TimePoint{});
  EXPECT_EQ(static_cast<VllmRequest&>(*request).block_keys, Hashed(second));
}

// Unmade ids in the block the engine checks stop the run, never a wrong key.
TEST_F(RoundKeysTest, IdsLeftUnmadeWhereReadStopTheRun) {
  const TokenVector first = Tokens(100, 100);
  Run(12, 0, first, 0, true);
  const TokenVector second = Appended(first, TokenVector(40, 600));
  ClientRequest client = Next(12, 1, second, static_cast<int64_t>(first.size()));
  client.prompt_unmade_begin = 10;
  client.prompt_unmade_end = 81;  // one id into block 5, which is read
  EXPECT_THROW(core_->Add(client, TimePoint{}), InternalError);
}

}  // namespace
}  // namespace efimsim
