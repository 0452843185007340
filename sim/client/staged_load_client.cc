#include "sim/client/staged_load_client.h"

#include "sim/base/check.h"

namespace efimsim {
namespace {
constexpr uint64_t kArrivalPayload = 0;
constexpr uint64_t kStageStartPayload = 1;
}  // namespace

StagedLoadClient::StagedLoadClient(
    Simulator& simulator, const SharedPrefixData& data, RequestSink& sink, StagedLoadConfig config,
    std::function<TokenId(uint64_t request_id, int64_t position)> generated_token)
    : simulator_(simulator), data_(data), sink_(sink), config_(std::move(config)),
      generated_token_(std::move(generated_token)),
      chains_(simulator, [this] { return next_request_id_++; },
              [this](ClientRequest request) { Submit(std::move(request)); },
              config_.stop_sending_at) {}

void StagedLoadClient::Start() { StartStage(); }

int64_t StagedLoadClient::stage_start_ns(size_t stage) const {
  return stage < stage_start_ns_.size() ? stage_start_ns_[stage] : -1;
}

void StagedLoadClient::StartStage() {
  if (stage_ >= config_.stages.size()) return;
  const LoadStage& stage = config_.stages[stage_];
  stage_start_ns_.push_back(ToNanoseconds(simulator_.Now()));
  RandomStream random = RandomStream::Derive(config_.seed, stage_, "inference-perf.arrivals");
  times_ns_ = InferencePerfStageArrivalsNs(config_.load, stage.rate, stage.duration_s, random);
  next_ = 0;
  ended_in_stage_ = 0;
  users_.assign(static_cast<size_t>(data_.size()), User{});  // conversations restart
  ++stats_.stages_started;
  if (times_ns_.empty()) {
    // int(rate x duration) = 0: nothing to send; on to the next stage.
    ++stage_;
    simulator_.ScheduleAfter(config_.interval + config_.stage_start_delay,
                             EventClass::kClientTimer, this, kStageStartPayload);
    return;
  }
  ScheduleNextArrival();
}

void StagedLoadClient::ScheduleNextArrival() {
  if (next_ >= times_ns_.size()) return;
  const TimePoint at{Nanoseconds(stage_start_ns_.back() + times_ns_[next_])};
  if (at > config_.stop_sending_at) {
    stage_stopped_ = true;  // the run ends within this stage
    return;
  }
  simulator_.Schedule(at, EventClass::kRequestArrival, this, kArrivalPayload);
}

void StagedLoadClient::HandleEvent(const Event& event) {
  if (event.payload == kStageStartPayload) {
    StartStage();
    return;
  }
  Arrive();
  ScheduleNextArrival();
}

void StagedLoadClient::Arrive() {
  const auto k = static_cast<int64_t>(next_++);
  const int64_t i = k % data_.size();
  ClientRequest request;
  request.max_tokens = data_.output_len(i);
  request.output_length = request.max_tokens;
  if (data_.config().enable_multi_turn_chat) {
    request.user = i;  // its prompt is built when its turn goes (BuildTurn)
    chains_.Add(i, std::move(request), simulator_.Now(), Duration::zero());
    return;
  }
  request.user = -1;
  request.prompt = data_.prompt(i);
  request.request_id = next_request_id_++;
  request.sent = simulator_.Now();
  Submit(std::move(request));
}

void StagedLoadClient::BuildTurn(ClientRequest& request) {
  User& user = users_[static_cast<size_t>(request.user)];
  TokenVector prompt;
  if (user.has_turn) {
    prompt = std::move(user.history);
    const auto base = static_cast<int64_t>(prompt.size());
    for (int64_t k = 0; k < user.last_output; ++k) {
      prompt.push_back(generated_token_(user.last_request, base + k));
    }
  }
  const TokenVector& question = data_.prompt(request.user);
  prompt.insert(prompt.end(), question.begin(), question.end());
  user.history = prompt;
  user.last_request = request.request_id;
  user.last_output = request.max_tokens;
  request.round = user.turns++;
  user.has_turn = true;
  request.prompt = std::move(prompt);
}

void StagedLoadClient::Submit(ClientRequest request) {
  if (data_.config().enable_multi_turn_chat) BuildTurn(request);
  ++in_flight_;
  ++stats_.requests_sent;
  sink_.Submit(std::move(request));
}

void StagedLoadClient::OnRequestEnded(uint64_t request_id, int64_t /*user*/) {
  --in_flight_;
  chains_.OnEnded(request_id);
  ++ended_in_stage_;
  if (stage_stopped_ || next_ < times_ns_.size() ||
      ended_in_stage_ < static_cast<int64_t>(times_ns_.size())) {
    return;
  }
  // Every request of the stage ended: the next starts after the interval.
  ++stage_;
  if (stage_ < config_.stages.size()) {
    simulator_.ScheduleAfter(config_.interval + config_.stage_start_delay,
                             EventClass::kClientTimer, this, kStageStartPayload);
  }
}

void StagedLoadClient::CheckDrained(int64_t /*ended*/) const {
  EFIMSIM_CHECK(in_flight_ == 0, "an inference-perf request was never answered");
  EFIMSIM_CHECK(chains_.outstanding() == 0, "an inference-perf turn was never sent or answered");
}

}  // namespace efimsim
