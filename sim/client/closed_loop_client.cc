#include "sim/client/closed_loop_client.h"

#include <cmath>

#include "sim/base/check.h"
#include "sim/core/random.h"

namespace efimsim {

ClosedLoopClient::ClosedLoopClient(Simulator& simulator, RoundPrompter& prompter,
                                   RequestSink& sink, ClosedLoopConfig config)
    : simulator_(simulator), prompter_(prompter), sink_(sink), config_(config),
      next_round_(static_cast<size_t>(prompter.num_users()), 0) {
  EFIMSIM_CHECK(config_.max_output_tokens >= 1, "max_output_tokens must be >= 1");
}

void ClosedLoopClient::Start() {
  for (int64_t user = 0; user < prompter_.num_users(); ++user) {
    const Duration pause = config_.exponential_think_time ? ThinkTime(user, 0) : Duration{0};
    simulator_.Schedule(simulator_.Now() + pause, EventClass::kClientTimer, this,
                        static_cast<uint64_t>(user));
  }
}

Duration ClosedLoopClient::ThinkTime(int64_t user, int64_t round) const {
  if (!config_.exponential_think_time || config_.think_time <= Duration{0}) {
    return config_.think_time;
  }
  RandomStream rng = RandomStream::Derive(
      config_.seed, PairKey(static_cast<uint64_t>(user), static_cast<uint64_t>(round)),
      "think_time");
  return Duration{static_cast<int64_t>(
      std::llround(rng.Exponential(static_cast<double>(config_.think_time.count()))))};
}

void ClosedLoopClient::HandleEvent(const Event& event) {
  SendRound(static_cast<int64_t>(event.payload));
}

void ClosedLoopClient::SendRound(int64_t user) {
  const int64_t round = next_round_[user];
  EFIMSIM_CHECK(round < prompter_.num_rounds(user), "send past a user's last round");
  ClientRequest request;
  request.request_id = next_request_id_++;
  request.user = user;
  request.round = round;
  request.max_tokens = config_.max_output_tokens;
  if (output_length_ != nullptr) {
    request.output_length = output_length_->Draw(
        PairKey(static_cast<uint64_t>(user), static_cast<uint64_t>(round)));
  }
  request.sent = simulator_.Now();
  prompter_.BuildFor(sink_, user, round, request);
  request.next_round_follows = round + 1 < prompter_.num_rounds(user);
  prompter_.BuildReference(user, round, request.max_tokens, request.reference_output);
  sink_.Submit(std::move(request));
}

void ClosedLoopClient::OnResponseComplete(int64_t user) {
  ++next_round_[user];
  if (next_round_[user] >= prompter_.num_rounds(user)) {
    ++users_done_;
    return;
  }
  simulator_.ScheduleAfter(ThinkTime(user, next_round_[user]), EventClass::kClientTimer, this,
                           static_cast<uint64_t>(user));
}

void ClosedLoopClient::CheckDrained(int64_t ended) const {
  EFIMSIM_CHECK(users_done_ == prompter_.num_users(), "a user did not finish");
  EFIMSIM_CHECK(ended == requests_sent(), "finished + rejected != sent");
}

}  // namespace efimsim
