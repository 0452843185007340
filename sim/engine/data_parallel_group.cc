#include "sim/engine/data_parallel_group.h"

#include <algorithm>
#include <array>
#include <limits>

#include "sim/base/check.h"

namespace efimsim {
namespace {
// Event payloads of this handler.
constexpr uint64_t kPayloadSchedule = 0;
constexpr uint64_t kPayloadStepComplete = 1;
// vLLM's DP coordinator publishes the ranks' counts this often while they
// change (coordinator.py, stats_update_interval_ms).
constexpr Duration kPublishInterval = Milliseconds(100);
}  // namespace

DataParallelGroup::DataParallelGroup(Simulator& simulator, std::vector<std::unique_ptr<Replica>> ranks,
                                     bool lockstep, const LatencyModel& latency, DataParallelRouting routing)
    : simulator_(simulator), ranks_(std::move(ranks)), lockstep_(lockstep), latency_(latency),
      routing_(routing), published_(ranks_.size(), {0, 0}) {
  EFIMSIM_CHECK(!ranks_.empty(), "a data-parallel group needs at least one rank");
  for (const auto& rank : ranks_) {
    EFIMSIM_CHECK(rank != nullptr && rank->idle(), "a data-parallel group starts with idle ranks");
    if (lockstep_) rank->set_step_gate(this);
  }
}

DataParallelGroup::~DataParallelGroup() = default;

size_t DataParallelGroup::PickRank() const {
  if (routing_ == DataParallelRouting::kSglangRoundRobin) return next_round_robin_;
  size_t best = 0;
  int64_t best_score = std::numeric_limits<int64_t>::max();
  for (size_t i = 0; i < published_.size(); ++i) {
    const auto [waiting, running] = published_[i];
    const int64_t score = 4 * waiting + running;
    if (score < best_score) {
      best_score = score;
      best = i;
    }
  }
  return best;
}

void DataParallelGroup::Submit(ClientRequest request) {
  if (routing_ == DataParallelRouting::kVllmLoadScore && simulator_.Now() >= next_publish_) {
    for (size_t i = 0; i < ranks_.size(); ++i) {
      const int64_t waiting = ranks_[i]->waiting_requests();
      published_[i] = {waiting, ranks_[i]->outstanding_requests() - waiting};
    }
    next_publish_ = simulator_.Now() + kPublishInterval;
  }
  const size_t rank = PickRank();
  next_round_robin_ = (next_round_robin_ + 1) % ranks_.size();
  ++published_[rank].first;  // the front end counts what it sent as waiting
  ranks_[rank]->Submit(std::move(request));
}

void DataParallelGroup::set_remote_kv_read_observer(RemoteKvReadObserver* observer) {
  for (const auto& rank : ranks_) rank->set_remote_kv_read_observer(observer);
}

void DataParallelGroup::ReleaseHeldKv(uint64_t request_id, TimePoint at) {
  for (const auto& rank : ranks_) {
    if (rank->holds_kv(request_id)) {
      rank->ReleaseHeldKv(request_id, at);
      return;
    }
  }
}

void DataParallelGroup::Cancel(uint64_t request_id) {
  // Unknown ids are a no-op on a rank, so the rank that holds it acts.
  for (const auto& rank : ranks_) rank->Cancel(request_id);
}

void DataParallelGroup::RequestGroupStep() {
  if (step_in_flight_ || schedule_pending_) return;
  schedule_pending_ = true;
  simulator_.Schedule(simulator_.Now(), EventClass::kSchedule, this, kPayloadSchedule);
}

void DataParallelGroup::HandleEvent(const Event& event) {
  if (event.payload == kPayloadSchedule) {
    schedule_pending_ = false;
    StartGroupStep();
  } else {
    EFIMSIM_CHECK(event.payload == kPayloadStepComplete, "unknown data-parallel group event");
    CompleteGroupStep();
  }
}

void DataParallelGroup::StartGroupStep() {
  if (step_in_flight_) return;
  stepping_.clear();
  int64_t rows = 0;  // the group's largest batch, which every rank is padded to
  for (size_t i = 0; i < ranks_.size(); ++i) {
    if (ranks_[i]->PlanStep()) {
      stepping_.push_back(i);
      rows = std::max(rows, ranks_[i]->planned_tokens());
    }
  }
  if (stepping_.empty()) return;
  std::vector<StepCost> costs;
  costs.reserve(stepping_.size());
  Duration duration{0};
  for (const size_t i : stepping_) {
    costs.push_back(ranks_[i]->PriceStep(rows));
    duration = std::max(duration, costs.back().Total());
  }
  if (stepping_.size() < ranks_.size()) {
    // An idle rank's dummy batch: one token, no sampling, padded as the others.
    const std::array<SequenceWork, 1> dummy = {SequenceWork{1, 0, false, 1}};
    duration = std::max(duration, latency_.PredictInGroup(dummy, rows).Total());
    ++dummy_steps_;
  }
  for (size_t k = 0; k < stepping_.size(); ++k) ranks_[stepping_[k]]->LaunchStep(costs[k], duration);
  step_in_flight_ = true;
  simulator_.ScheduleAfter(duration, EventClass::kStepComplete, this, kPayloadStepComplete);
}

void DataParallelGroup::CompleteGroupStep() {
  step_in_flight_ = false;
  // In rank order; a rank with work left asks for the next group step.
  for (const size_t i : stepping_) ranks_[i]->FinishStep();
  stepping_.clear();
  for (const auto& rank : ranks_) {
    if (rank->has_work()) RequestGroupStep();
  }
}

bool DataParallelGroup::idle() const {
  return !step_in_flight_ &&
         std::all_of(ranks_.begin(), ranks_.end(), [](const auto& rank) { return rank->idle(); });
}

EngineCounters DataParallelGroup::Counters() const {
  EngineCounters counters;
  for (const auto& rank : ranks_) counters.Add(rank->Counters());
  return counters;
}

void DataParallelGroup::CheckInvariants() const {
  for (const auto& rank : ranks_) rank->CheckInvariants();
}

void DataParallelGroup::set_step_observer(StepObserver* observer) {
  for (const auto& rank : ranks_) rank->set_step_observer(observer);
}

int64_t DataParallelGroup::outstanding_requests() const {
  int64_t total = 0;
  for (const auto& rank : ranks_) total += rank->outstanding_requests();
  return total;
}

bool DataParallelGroup::kv_all_free() const {
  return std::all_of(ranks_.begin(), ranks_.end(), [](const auto& rank) { return rank->kv_all_free(); });
}

}  // namespace efimsim
