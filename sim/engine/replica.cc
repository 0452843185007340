#include "sim/engine/replica.h"

#include <algorithm>
#include <span>
#include <string>

#include "sim/base/check.h"

namespace efimsim {
namespace {
// Event payloads of this handler.
constexpr uint64_t kPayloadSchedule = 0;
constexpr uint64_t kPayloadStepComplete = 1;
constexpr uint64_t kPayloadWake = 2;  // the core can make progress again (StepPlan::wake_at)
constexpr uint64_t kPayloadReleaseKv = 3;  // held KV is due to be freed (ReleaseHeldKv)
}  // namespace

Replica::Replica(Simulator& simulator, ReplicaConfig config, std::unique_ptr<EngineCore> core,
                 const LatencyModel& latency, RequestObserver& observer)
    : simulator_(simulator), config_(config),
      draw_(config.output_token_first, config.output_token_last), core_(std::move(core)),
      latency_(latency), observer_(observer) {
  EFIMSIM_CHECK(core_ != nullptr, "a replica needs an engine core");
}

Replica::~Replica() = default;

void Replica::Submit(ClientRequest client_request) {
  const std::string reason =
      client_request.prompt_tokens() <= 0 ? "empty prompt" : core_->RejectReason(client_request);
  if (!reason.empty()) {
    ++rejected_;
    // A decode leg refused here reads nothing: the prefill side may free.
    if (remote_reads_observer_ != nullptr && client_request.remote_prefill_tokens > 0) {
      remote_reads_observer_->OnRemoteKvRead({client_request.request_id, simulator_.Now()});
    }
    observer_.OnRequestRejected(client_request, reason);
    return;
  }
  // A decode leg of disaggregated serving arrived when its client sent it
  // (its prefill ran on another replica); any other request arrives now.
  const TimePoint arrival =
      client_request.remote_prefill_tokens > 0 ? client_request.sent : simulator_.Now();
  std::unique_ptr<Request> request = core_->Add(client_request, arrival);
  const uint64_t id = request->id;
  EFIMSIM_CHECK(live_.emplace(id, std::move(request)).second, "request id submitted twice");
  RequestSchedule();
}

void Replica::Cancel(uint64_t request_id) {
  const auto it = live_.find(request_id);
  if (it == live_.end()) return;  // finished, cancelled or never seen
  Request& request = *it->second;
  if (step_in_flight_) {
    for (const ScheduledSequence& seq : plan_.sequences) {
      if (seq.request == &request) {
        pending_cancels_.push_back(request_id);
        return;
      }
    }
  }
  CancelNow(request);
}

void Replica::CancelNow(Request& request) {
  core_->Release(request);
  ReportRemoteKvReads();
  request.finish = simulator_.Now();
  request.TransitionTo(RequestState::kCancelled);
  const RequestRecord record = request.ToRecord();
  live_.erase(request.id);
  observer_.OnRequestCancelled(record);
}

void Replica::RequestSchedule() {
  if (step_in_flight_ || schedule_pending_) return;
  if (gate_ != nullptr) {
    gate_->RequestGroupStep();
    return;
  }
  schedule_pending_ = true;
  simulator_.Schedule(simulator_.Now(), EventClass::kSchedule, this, kPayloadSchedule);
}

void Replica::HandleEvent(const Event& event) {
  if (event.payload == kPayloadSchedule) {
    schedule_pending_ = false;
    StartStep();
  } else if (event.payload == kPayloadWake) {
    if (!step_in_flight_) RequestSchedule();
  } else if (event.payload == kPayloadReleaseKv) {
    ReleaseDueKv();
  } else {
    EFIMSIM_CHECK(event.payload == kPayloadStepComplete, "unknown replica event");
    CompleteStep();
  }
}

void Replica::StartStep() {
  if (!PlanStep()) return;
  const StepCost cost = PriceStep(0);
  LaunchStep(cost, cost.Total());
}

bool Replica::PlanStep() {
  EFIMSIM_CHECK(!step_in_flight_, "a step started while another is in flight");
  core_->Schedule(plan_, simulator_.Now());
  ReportRemoteKvReads();
  if (plan_.empty()) {
    if (plan_.wake_at != TimePoint::max()) {
      simulator_.Schedule(plan_.wake_at, EventClass::kSchedule, this, kPayloadWake);
    } else if (plan_.retry) {
      RequestSchedule();
    } else {
      // Every waiting request was checked to fit an empty cache at Submit,
      // so an empty plan means there is no work at all, or KV held for a
      // decode replica's read blocks it (its release schedules again).
      EFIMSIM_CHECK(!core_->has_work() || core_->held_kv_requests() > 0,
                    "no step could be scheduled although requests are pending");
    }
    return false;
  }
  // Locals, not members, inside the loop: its stores through request
  // pointers would otherwise make the compiler reload every member.
  const std::span<const ScheduledSequence> sequences = plan_.sequences;
  const size_t count = sequences.size();
  const TimePoint now = simulator_.Now();
  work_.resize(count);
  SequenceWork* const work = work_.data();
  int64_t decode_tokens = 0;
  int64_t prefill_tokens = 0;
  for (size_t i = 0; i < count; ++i) {
    if (i + kRequestPrefetchDistance < count) sequences[i + kRequestPrefetchDistance].request->Prefetch();
    const ScheduledSequence& seq = sequences[i];
    Request& r = *seq.request;
    // It samples when its prompt is computed: one position, or 1 + drafts
    // when it verifies speculative drafts (computed beyond num_tokens).
    const int64_t sampled = r.num_computed_tokens - r.num_tokens + 1;
    work[i] = {seq.new_tokens, seq.context_tokens, sampled >= 1, std::max<int64_t>(sampled, 1)};
    // Positions [context, context + new): those before the prompt's end are
    // prefill (first time or recompute), the rest generated-token positions.
    const int64_t end = seq.context_tokens + seq.new_tokens;
    const int64_t generated = std::max<int64_t>(0, end - std::max(seq.context_tokens, r.prompt_tokens));
    decode_tokens += generated;
    prefill_tokens += seq.new_tokens - generated;
    if (r.first_scheduled == TimePoint::max()) r.first_scheduled = now;
  }
  decode_tokens_ += decode_tokens;
  prefill_tokens_ += prefill_tokens;
  step_kv_ = core_->kv_usage();
  peak_used_blocks_ = std::max<int64_t>(peak_used_blocks_, step_kv_.used_blocks);
  return true;
}

StepCost Replica::PriceStep(int64_t group_rows) {
  StepCost cost = group_rows > 0 ? latency_.PredictInGroup(work_, group_rows) : latency_.Predict(work_);
  if (plan_.draft_host > Duration{0} || plan_.draft_head_passes > 0 || plan_.draft_model_passes > 0) {
    cost.speculation = DraftingTime();
  }
  return cost;
}

void Replica::LaunchStep(StepCost cost, Duration duration) {
  EFIMSIM_CHECK(duration > Duration{0}, "a step must take time");
  EFIMSIM_CHECK(duration >= cost.Total(), "a step cannot end before its own work");
  cost.communication += duration - cost.Total();  // waiting for the group's other ranks
  step_in_flight_ = true;
  ++steps_;
  busy_ += duration;
  if (step_observer_ != nullptr) RecordStep(cost, duration, step_kv_);
  if (gate_ == nullptr) simulator_.ScheduleAfter(duration, EventClass::kStepComplete, this, kPayloadStepComplete);
}

namespace {
// GPU time of a step's cost: the draft model's passes run inside the
// target's step, so its host overheads are the step's, not added again.
Duration GpuTime(const StepCost& cost) {
  return cost.gemm + cost.attention + cost.elementwise + cost.lm_head + cost.communication;
}
}  // namespace

const std::vector<SequenceWork>& Replica::DraftDecodeWork() {
  draft_work_.clear();
  for (const SequenceWork& seq : work_) {
    if (seq.emits_token) draft_work_.push_back({1, seq.context_tokens + seq.new_tokens, true, 1});
  }
  return draft_work_;
}

Duration Replica::DraftingTime() {
  Duration time = plan_.draft_host;
  if (plan_.draft_model_passes > 0) {
    EFIMSIM_CHECK(config_.draft_latency != nullptr, "draft_model passes need the draft model's latency model");
    // vLLM's draft-model proposer: a forward of the draft model over the
    // step's own tokens (so it keeps its KV of every prompt), then one
    // decode pass per further draft token of the emitting sequences.
    time += GpuTime(config_.draft_latency->Predict(work_));
    if (plan_.draft_model_passes > 1) {
      const std::vector<SequenceWork>& decode = DraftDecodeWork();
      if (!decode.empty()) {
        time += GpuTime(config_.draft_latency->Predict(decode)) * (plan_.draft_model_passes - 1);
      }
    }
    return time;
  }
  if (plan_.draft_head_passes == 0) return time;
  // One draft-head pass: every emitting sequence decodes one token over its
  // context, through the head's share of the target's layers, and the
  // head's lm_head. An estimate from the target's own step (docs/
  // speculative-decoding.md).
  const std::vector<SequenceWork>& decode = DraftDecodeWork();
  if (decode.empty()) return time;
  const StepCost pass = latency_.Predict(decode);
  const double layers = static_cast<double>((pass.gemm + pass.attention + pass.elementwise +
                                             pass.communication).count()) *
                        plan_.draft_head_layer_share;
  const Duration one = Duration{static_cast<int64_t>(layers)} + pass.lm_head;
  return time + one * plan_.draft_head_passes;
}

void Replica::RecordStep(const StepCost& cost, Duration duration, const KvUsage& kv) {
  StepRecord step;
  step.replica = config_.replica_index;
  step.start = simulator_.Now();
  step.end = step.start + duration;
  step.sequences = static_cast<int64_t>(plan_.sequences.size());
  if (plan_.kind == StepKind::kMixed) {
    for (const ScheduledSequence& seq : plan_.sequences) {
      const bool prefill = seq.context_tokens < seq.request->prompt_tokens || seq.new_tokens > 1;
      step.prefill_sequences += prefill ? 1 : 0;
      step.decode_sequences += prefill ? 0 : 1;
    }
  } else {
    const bool prefill = plan_.kind == StepKind::kPrefill;
    step.prefill_sequences = prefill ? step.sequences : 0;
    step.decode_sequences = prefill ? 0 : step.sequences;
  }
  step.tokens = plan_.total_tokens;
  step.kv_used_blocks = kv.used_blocks;
  step.kv_total_blocks = kv.total_blocks;
  step.preempted = plan_.preempted;
  step.cost = cost;
  step_observer_->OnStep(step);
}

void Replica::CompleteStep() {
  step_in_flight_ = false;
  finished_.clear();
  TokenEmitter emitter(draw_, simulator_.Now(), finished_);
  core_->AfterStep(plan_, emitter);
  if (!finished_.empty()) {
    finished_ids_.clear();
    for (const Request* r : finished_) finished_ids_.push_back(r->id);
    // Records in request-id order within one instant; observers may send
    // new requests (closed loop), which join the waiting queue now.
    std::sort(finished_ids_.begin(), finished_ids_.end());
    for (const uint64_t id : finished_ids_) {
      const auto node = live_.extract(id);
      observer_.OnRequestFinished(node.mapped()->ToRecord());
    }
  }
  // Aborts that arrived while the step was in flight.
  std::vector<uint64_t> cancels;
  cancels.swap(pending_cancels_);
  for (const uint64_t id : cancels) Cancel(id);
  if (config_.check_invariants) CheckInvariants();
  if (core_->has_work()) RequestSchedule();
}

void Replica::ReportRemoteKvReads() {
  if (remote_reads_observer_ == nullptr) return;
  remote_reads_.clear();
  core_->TakeRemoteKvReads(remote_reads_);
  for (const RemoteKvRead& read : remote_reads_) {
    remote_reads_observer_->OnRemoteKvRead({read.request_id, std::max(read.done, simulator_.Now())});
  }
}

void Replica::ReleaseHeldKv(uint64_t request_id, TimePoint at) {
  const TimePoint when = std::max(at, simulator_.Now());
  pending_releases_.emplace(when, request_id);
  simulator_.Schedule(when, EventClass::kStepComplete, this, kPayloadReleaseKv);
}

void Replica::ReleaseDueKv() {
  bool released = false;
  while (!pending_releases_.empty() && pending_releases_.top().first <= simulator_.Now()) {
    core_->ReleaseHeldKv(pending_releases_.top().second);
    pending_releases_.pop();
    released = true;
  }
  // Freed blocks may admit a waiting request.
  if (released && core_->has_work()) RequestSchedule();
}

EngineCounters Replica::Counters() const {
  EngineCounters c = core_->Counters();
  c.steps = steps_;
  c.kv_blocks_peak_used = peak_used_blocks_;
  c.rejected_requests = rejected_;
  c.prefill_tokens_computed = prefill_tokens_;
  c.decode_tokens_computed = decode_tokens_;
  c.busy = busy_;
  return c;
}

}  // namespace efimsim
