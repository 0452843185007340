#include "sim/serving/sglang_replica.h"

#include <algorithm>
#include <span>
#include <string>

#include "sim/base/check.h"
#include "sim/base/uint128.h"
#include "sim/core/random.h"

namespace efimsim {
namespace {
constexpr uint64_t kPayloadSchedule = 0;
constexpr uint64_t kPayloadStepComplete = 1;
}  // namespace

SglangReplica::SglangReplica(Simulator& simulator, SglangReplicaConfig config,
                             const LatencyModel& latency, RequestObserver& observer)
    : simulator_(simulator), config_(config), latency_(latency), observer_(observer),
      cache_(static_cast<int64_t>(config.num_blocks) * config.block_tokens, config.page_size,
             config.prefix_caching),
      scheduler_(config.limits, cache_) {
  EFIMSIM_CHECK(config_.output_token_first <= config_.output_token_last,
                "empty output token range");
}

SglangReplica::~SglangReplica() = default;

TokenId SglangReplica::TextToken(uint64_t draw) const {
  const uint64_t span = static_cast<uint64_t>(config_.output_token_last) -
                        static_cast<uint64_t>(config_.output_token_first) + 1;
  const uint64_t offset = static_cast<uint64_t>((static_cast<Uint128>(draw) * span) >> 64);
  return static_cast<TokenId>(config_.output_token_first + static_cast<int64_t>(offset));
}

void SglangReplica::FillPrompt(const ClientRequest& client_request, SglangRequest& request) const {
  TokenVector& tokens = request.tokens;
  if (!client_request.prompt.empty()) {
    tokens.assign(client_request.prompt.begin(), client_request.prompt.end());
    return;
  }
  tokens.reserve(static_cast<size_t>(client_request.prompt_length + client_request.max_output_tokens));
  const int64_t length = client_request.prompt_length;
  const int64_t per_key = std::max<int32_t>(client_request.block_key_tokens, 1);
  const int64_t keys = std::min<int64_t>(length / per_key,
                                         static_cast<int64_t>(client_request.prompt_block_keys.size()));
  for (int64_t k = 0; k < keys; ++k) {
    const uint64_t key = client_request.prompt_block_keys[static_cast<size_t>(k)];
    for (int64_t i = 0; i < per_key; ++i) {
      tokens.push_back(static_cast<TokenId>(Mix64(key + 0x9e3779b97f4a7c15ULL * static_cast<uint64_t>(i + 1))));
    }
  }
  for (int64_t position = keys * per_key; position < length; ++position) {
    tokens.push_back(static_cast<TokenId>(
        Mix64(Mix64(request.base.id ^ 0x5bd1e995ULL) + static_cast<uint64_t>(position))));
  }
}

void SglangReplica::Submit(ClientRequest client_request) {
  const int64_t prompt = client_request.prompt_tokens();
  const int64_t longest = prompt + client_request.max_output_tokens;
  const int64_t slots = cache_.num_slots();
  std::string reason;
  if (prompt <= 0) {
    reason = "empty prompt";
  } else if (config_.max_context_tokens > 0 && longest > config_.max_context_tokens) {
    reason = "prompt + max output tokens (" + std::to_string(longest) +
             ") exceeds the model's context (" + std::to_string(config_.max_context_tokens) + ")";
  } else if (longest > slots) {
    reason = "needs " + std::to_string(longest) + " KV token slots, the cache has " +
             std::to_string(slots);
  }
  if (!reason.empty()) {
    ++rejected_;
    observer_.OnRequestRejected(client_request, reason);
    return;
  }
  auto request = std::make_unique<SglangRequest>();
  Request& base = request->base;
  base.id = client_request.request_id;
  base.user = client_request.user;
  base.round = client_request.round;
  base.prompt_tokens = prompt;
  base.num_tokens = prompt;
  base.max_output_tokens = client_request.max_output_tokens;
  base.arrival = simulator_.Now();
  base.tracks_block_keys = false;
  request->slots.reserve(static_cast<size_t>(longest));
  if (!client_request.prompt.empty()) {
    // Taken, not copied: the prompt is the request's token stream.
    request->tokens = std::move(client_request.prompt);
  } else {
    FillPrompt(client_request, *request);
  }
  scheduler_.AddWaiting(request.get());
  const uint64_t id = base.id;
  EFIMSIM_CHECK(live_.emplace(id, std::move(request)).second, "request id submitted twice");
  RequestSchedule();
}

void SglangReplica::Cancel(uint64_t request_id) {
  const auto it = live_.find(request_id);
  if (it == live_.end()) return;
  SglangRequest& request = *it->second;
  if (step_in_flight_) {
    for (const SglangScheduled& seq : plan_.sequences) {
      if (seq.request == &request) {
        pending_cancels_.push_back(request_id);
        return;
      }
    }
  }
  Finish(request, /*cancelled=*/true);
}

// Releases KV (inserting computed tokens) and reports the request.
void SglangReplica::Finish(SglangRequest& r, bool cancelled) {
  if (r.base.state == RequestState::kRunning) scheduler_.Release(&r);
  scheduler_.Remove(&r);
  r.base.finish = simulator_.Now();
  r.base.TransitionTo(cancelled ? RequestState::kCancelled : RequestState::kFinished);
  const RequestRecord record = r.base.ToRecord();
  live_.erase(r.base.id);
  if (cancelled) {
    observer_.OnRequestCancelled(record);
  } else {
    observer_.OnRequestFinished(record);
  }
}

void SglangReplica::RequestSchedule() {
  if (step_in_flight_ || schedule_pending_) return;
  schedule_pending_ = true;
  simulator_.Schedule(simulator_.Now(), EventClass::kSchedule, this, kPayloadSchedule);
}

void SglangReplica::HandleEvent(const Event& event) {
  if (event.payload == kPayloadSchedule) {
    schedule_pending_ = false;
    StartStep();
  } else {
    EFIMSIM_CHECK(event.payload == kPayloadStepComplete, "unknown replica event");
    CompleteStep();
  }
}

void SglangReplica::StartStep() {
  EFIMSIM_CHECK(!step_in_flight_, "a step started while another is in flight");
  scheduler_.Schedule(plan_);
  if (plan_.empty()) {
    EFIMSIM_CHECK(scheduler_.waiting().empty() && scheduler_.running().empty() &&
                      scheduler_.chunked() == nullptr,
                  "no step could be scheduled although requests are pending");
    scheduler_.OnIdle();
    return;
  }
  const TimePoint now = simulator_.Now();
  work_.resize(plan_.sequences.size());
  for (size_t i = 0; i < plan_.sequences.size(); ++i) {
    const SglangScheduled& seq = plan_.sequences[i];
    Request& r = seq.request->base;
    work_[i] = {seq.new_tokens, seq.context_tokens, r.num_computed_tokens == r.num_tokens};
    const int64_t end = seq.context_tokens + seq.new_tokens;
    const int64_t generated =
        std::max<int64_t>(0, end - std::max(seq.context_tokens, r.prompt_tokens));
    decode_tokens_ += generated;
    prefill_tokens_ += seq.new_tokens - generated;
    if (r.first_scheduled == TimePoint::max()) r.first_scheduled = now;
  }
  const int64_t used_slots = cache_.num_slots() - cache_.available() - cache_.evictable();
  const int64_t used_blocks = (used_slots + config_.block_tokens - 1) / config_.block_tokens;
  peak_used_blocks_ = std::max(peak_used_blocks_, used_blocks);
  const StepCost cost = latency_.Predict(work_);
  const Duration duration = cost.Total();
  EFIMSIM_CHECK(duration > Duration{0}, "a step must take time");
  step_in_flight_ = true;
  ++steps_;
  if (step_observer_ != nullptr) {
    StepRecord step;
    step.replica = config_.replica_index;
    step.start = now;
    step.end = now + duration;
    step.sequences = static_cast<int64_t>(plan_.sequences.size());
    step.prefill_sequences = plan_.prefill ? step.sequences : 0;
    step.decode_sequences = plan_.prefill ? 0 : step.sequences;
    step.tokens = plan_.total_tokens;
    step.kv_used_blocks = used_blocks;
    step.kv_total_blocks = config_.num_blocks;
    step.preempted = plan_.retracted;
    step.cost = cost;
    step_observer_->OnStep(step);
  }
  simulator_.ScheduleAfter(duration, EventClass::kStepComplete, this, kPayloadStepComplete);
}

void SglangReplica::CompleteStep() {
  step_in_flight_ = false;
  const TimePoint now = simulator_.Now();
  // Prefill results first enter the tree and the running batch
  // (cache_unfinished_req), then tokens are emitted.
  scheduler_.AfterPrefill(plan_);
  finished_ids_.clear();
  for (const SglangScheduled& seq : plan_.sequences) {
    SglangRequest& sr = *seq.request;
    Request& r = sr.base;
    if (r.num_computed_tokens != r.num_tokens) continue;  // a prefill chunk: no token yet
    sr.tokens.push_back(TextToken(
        Mix64(r.id * 0x9e3779b97f4a7c15ULL + static_cast<uint64_t>(r.num_tokens))));
    ++r.num_tokens;
    ++r.output_tokens;
    if (r.first_token == TimePoint::max()) r.first_token = now;
    if (r.output_tokens >= r.max_output_tokens) finished_ids_.push_back(r.id);
  }
  std::sort(finished_ids_.begin(), finished_ids_.end());
  // Observers may send new requests (closed loop) while we iterate.
  std::vector<uint64_t> finished;
  finished.swap(finished_ids_);
  for (const uint64_t id : finished) Finish(*live_.at(id), /*cancelled=*/false);
  finished.clear();
  finished_ids_.swap(finished);
  std::vector<uint64_t> cancels;
  cancels.swap(pending_cancels_);
  for (const uint64_t id : cancels) Cancel(id);
  if (config_.check_invariants) CheckInvariants();
  if (!scheduler_.waiting().empty() || !scheduler_.running().empty() ||
      scheduler_.chunked() != nullptr) {
    RequestSchedule();
  }
}

bool SglangReplica::idle() const {
  return !step_in_flight_ && scheduler_.waiting().empty() && scheduler_.running().empty() &&
         scheduler_.chunked() == nullptr;
}

bool SglangReplica::kv_all_free() const {
  return cache_.protected_size() == 0 &&
         cache_.available() + cache_.evictable() == cache_.num_slots();
}

EngineCounters SglangReplica::Counters() const {
  EngineCounters c;
  c.steps = steps_;
  c.prefix_cache_lookups = scheduler_.counters().lookups;
  c.prefix_cache_query_tokens = scheduler_.counters().query_tokens;
  c.prefix_cache_hit_tokens = scheduler_.counters().hit_tokens;
  c.preemptions = scheduler_.counters().retractions;
  c.evictions = cache_.stats().evicted_tokens;
  c.kv_blocks_total = config_.num_blocks;
  c.kv_blocks_peak_used = peak_used_blocks_;
  c.rejected_requests = rejected_;
  c.prefill_tokens_computed = prefill_tokens_;
  c.decode_tokens_computed = decode_tokens_;
  return c;
}

void SglangReplica::CheckInvariants() const {
  std::vector<const RadixNode*> holders;
  std::vector<std::span<const KvSlot>> private_slots;
  size_t running = 0, waiting = 0;
  for (const auto& [id, request] : live_) {
    const SglangRequest& r = *request;
    const bool holds = r.base.state == RequestState::kRunning;
    EFIMSIM_CHECK(holds || r.slots.empty(), "an sglang request that is not running holds slots");
    EFIMSIM_CHECK(static_cast<int64_t>(r.slots.size()) == (holds ? r.base.num_computed_tokens : 0),
                  "an sglang request's slots disagree with its progress");
    if (holds) {
      holders.push_back(r.last_node);
      private_slots.push_back(std::span<const KvSlot>(r.slots).subspan(
          static_cast<size_t>(r.tree_tokens)));
      ++running;
    } else {
      ++waiting;
    }
  }
  cache_.CheckInvariants(holders, private_slots);
  const size_t chunked = scheduler_.chunked() != nullptr ? 1 : 0;
  EFIMSIM_CHECK(running == scheduler_.running().size() + chunked,
                "sglang running batch disagrees with states");
  EFIMSIM_CHECK(waiting == scheduler_.waiting().size(), "sglang waiting queue disagrees with states");
}

}  // namespace efimsim
