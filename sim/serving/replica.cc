#include "sim/serving/replica.h"

#include <algorithm>
#include <optional>
#include <span>
#include <string>

#include "sim/base/check.h"
#include "sim/base/uint128.h"
#include "sim/core/random.h"

namespace efimsim {
namespace {
// Event payloads of this handler.
constexpr uint64_t kPayloadSchedule = 0;
constexpr uint64_t kPayloadStepComplete = 1;
constexpr uint64_t kPayloadLoadDone = 2;  // a CPU KV load completes while the replica is idle
}  // namespace

Replica::Replica(Simulator& simulator, ReplicaConfig config, const LatencyModel& latency,
                 RequestObserver& observer)
    : simulator_(simulator), config_(config), latency_(latency), observer_(observer),
      cache_(config.num_blocks, config.block_tokens, config.prefix_caching),
      scheduler_(config.limits, cache_) {
  EFIMSIM_CHECK(config_.output_token_first <= config_.output_token_last,
                "empty output token range");
  if (config_.cpu_kv_blocks > 0 && config_.prefix_caching) {
    cpu_tier_ = std::make_unique<CpuKvTier>(config_.cpu_kv_blocks, config_.kv_bytes_per_block,
                                            config_.offload_bytes_per_s, config_.offload_latency);
    cache_.set_cpu_tier(cpu_tier_.get());
    scheduler_.set_cpu_tier(cpu_tier_.get());
  }
}

Replica::~Replica() = default;

void Replica::Submit(ClientRequest client_request) {
  const int64_t prompt = client_request.prompt_tokens();
  const int64_t longest = prompt + client_request.max_output_tokens;
  const int64_t blocks_needed = (longest + config_.block_tokens - 1) / config_.block_tokens;
  std::string reason;
  if (prompt <= 0) {
    reason = "empty prompt";
  } else if (!client_request.prompt_block_keys.empty() &&
             client_request.block_key_tokens != config_.block_tokens) {
    reason = "block keys cover " + std::to_string(client_request.block_key_tokens) +
             " tokens each, the engine's blocks " + std::to_string(config_.block_tokens);
  } else if (config_.max_context_tokens > 0 && longest > config_.max_context_tokens) {
    reason = "prompt + max output tokens (" + std::to_string(longest) +
             ") exceeds the model's context (" + std::to_string(config_.max_context_tokens) + ")";
  } else if (blocks_needed > config_.num_blocks) {
    reason = "needs " + std::to_string(blocks_needed) + " KV blocks, the cache has " +
             std::to_string(config_.num_blocks);
  }
  if (!reason.empty()) {
    ++rejected_;
    observer_.OnRequestRejected(client_request, reason);
    return;
  }

  auto request = std::make_unique<Request>();
  request->id = client_request.request_id;
  request->user = client_request.user;
  request->round = client_request.round;
  request->prompt_tokens = prompt;
  request->num_tokens = prompt;
  request->max_output_tokens = client_request.max_output_tokens;
  request->arrival = simulator_.Now();
  request->tracks_block_keys = config_.prefix_caching;
  // Room for the longest sequence the request can reach (prompt + every
  // output token), so its vectors never regrow.
  request->kv.blocks.reserve(static_cast<size_t>(blocks_needed));
  if (request->tracks_block_keys) {
    request->block_keys.reserve(static_cast<size_t>(blocks_needed));
    request->tail_tokens.reserve(static_cast<size_t>(config_.block_tokens));
    FillPrompt(client_request, *request);
  }
  scheduler_.AddWaiting(request.get());
  const uint64_t id = request->id;
  EFIMSIM_CHECK(live_.emplace(id, std::move(request)).second, "request id submitted twice");
  RequestSchedule();
}

TokenId Replica::TextToken(uint64_t draw) const {
  const uint64_t span = static_cast<uint64_t>(config_.output_token_last) -
                        static_cast<uint64_t>(config_.output_token_first) + 1;
  // The high word of draw * span: `draw` scaled into [0, span), without a
  // 64-bit division (one per generated token; tens of cycles each).
  const uint64_t offset = static_cast<uint64_t>((static_cast<Uint128>(draw) * span) >> 64);
  return static_cast<TokenId>(config_.output_token_first + static_cast<int64_t>(offset));
}

TokenId Replica::SyntheticPromptToken(uint64_t request_id, int64_t position) const {
  return TextToken(Mix64(Mix64(request_id ^ 0x5bd1e995ULL) + static_cast<uint64_t>(position)));
}

// Block keys and the partial last block of the prompt. Token ids when the
// client sent them; otherwise the trace's block keys (equal keys, equal
// blocks) and, past them, tokens unique to this request (no reuse).
void Replica::FillPrompt(const ClientRequest& client_request, Request& request) const {
  const int64_t block = config_.block_tokens;
  if (!client_request.prompt.empty()) {
    AppendBlockKeys(client_request.prompt, config_.block_tokens, 0, request.block_keys);
    const size_t full = request.block_keys.size() * static_cast<size_t>(block);
    request.tail_tokens.assign(client_request.prompt.begin() + static_cast<int64_t>(full),
                               client_request.prompt.end());
    return;
  }
  const int64_t length = client_request.prompt_length;
  const int64_t full_blocks = length / block;
  const int64_t given = std::min<int64_t>(
      full_blocks, static_cast<int64_t>(client_request.prompt_block_keys.size()));
  request.block_keys.assign(client_request.prompt_block_keys.begin(),
                            client_request.prompt_block_keys.begin() + given);
  TokenVector tokens(static_cast<size_t>(block));
  for (int64_t b = given; b < full_blocks; ++b) {
    for (int64_t i = 0; i < block; ++i) {
      tokens[static_cast<size_t>(i)] = SyntheticPromptToken(request.id, b * block + i);
    }
    const BlockKey parent = request.block_keys.empty() ? kRootBlockKey : request.block_keys.back();
    request.block_keys.push_back(HashBlock(parent, tokens));
  }
  for (int64_t position = full_blocks * block; position < length; ++position) {
    request.tail_tokens.push_back(SyntheticPromptToken(request.id, position));
  }
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
  if (request.state == RequestState::kRunning || request.state == RequestState::kLoadingKv) {
    cache_.Free(request.kv);
  }
  scheduler_.Remove(&request);
  request.finish = simulator_.Now();
  request.TransitionTo(RequestState::kCancelled);
  const RequestRecord record = request.ToRecord();
  live_.erase(request.id);
  observer_.OnRequestCancelled(record);
}

void Replica::RequestSchedule() {
  if (step_in_flight_ || schedule_pending_) return;
  schedule_pending_ = true;
  simulator_.Schedule(simulator_.Now(), EventClass::kSchedule, this, kPayloadSchedule);
}

void Replica::HandleEvent(const Event& event) {
  if (event.payload == kPayloadSchedule) {
    schedule_pending_ = false;
    StartStep();
  } else if (event.payload == kPayloadLoadDone) {
    if (!step_in_flight_) RequestSchedule();
  } else {
    EFIMSIM_CHECK(event.payload == kPayloadStepComplete, "unknown replica event");
    CompleteStep();
  }
}

void Replica::StartStep() {
  EFIMSIM_CHECK(!step_in_flight_, "a step started while another is in flight");
  scheduler_.Schedule(plan_, simulator_.Now());
  if (plan_.empty()) {
    if (cpu_tier_ != nullptr && HandleLoadWait()) return;
    // Every waiting request was checked to fit an empty cache at Submit, so
    // an empty plan means there is no work at all.
    EFIMSIM_CHECK(scheduler_.waiting().empty() && scheduler_.running().empty(),
                  "no step could be scheduled although requests are pending");
    return;
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
    work[i] = {seq.new_tokens, seq.context_tokens, r.num_computed_tokens == r.num_tokens};
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
  peak_used_blocks_ = std::max<int64_t>(peak_used_blocks_, cache_.pool().num_used_blocks());
  const StepCost cost = latency_.Predict(work_);
  const Duration duration = cost.Total();
  EFIMSIM_CHECK(duration > Duration{0}, "a step must take time");
  step_in_flight_ = true;
  ++steps_;
  if (step_observer_ != nullptr) {
    StepRecord step;
    step.replica = config_.replica_index;
    step.start = simulator_.Now();
    step.end = step.start + duration;
    step.sequences = static_cast<int64_t>(plan_.sequences.size());
    for (const ScheduledSequence& seq : plan_.sequences) {
      const bool prefill = seq.context_tokens < seq.request->prompt_tokens || seq.new_tokens > 1;
      step.prefill_sequences += prefill ? 1 : 0;
      step.decode_sequences += prefill ? 0 : 1;
    }
    step.tokens = plan_.total_tokens;
    step.kv_used_blocks = cache_.pool().num_used_blocks();
    step.kv_total_blocks = cache_.pool().num_blocks();
    step.preempted = plan_.preempted;
    step.cost = cost;
    step_observer_->OnStep(step);
  }
  simulator_.ScheduleAfter(duration, EventClass::kStepComplete, this, kPayloadStepComplete);
}

bool Replica::HandleLoadWait() {
  const TimePoint now = simulator_.Now();
  if (const std::optional<TimePoint> done = scheduler_.NextLoadDone(now)) {
    simulator_.Schedule(*done, EventClass::kSchedule, this, kPayloadLoadDone);
    return true;
  }
  // Nothing runs and no load is pending, yet nothing fits: requests whose
  // loads are done hold the blocks a request ahead of them needs.
  if (scheduler_.ReleaseLoadedBlocks(now) > 0) {
    RequestSchedule();
    return true;
  }
  return false;
}

TokenId Replica::GeneratedToken(const Request& request) const {
  return TextToken(Mix64(request.id * 0x9e3779b97f4a7c15ULL + static_cast<uint64_t>(request.num_tokens)));
}

void Replica::CompleteStep() {
  step_in_flight_ = false;
  const TimePoint now = simulator_.Now();
  std::vector<uint64_t>& finished_ids = finished_ids_scratch_;
  finished_ids.clear();
  const std::vector<ScheduledSequence>& sequences = plan_.sequences;
  for (size_t i = 0; i < sequences.size(); ++i) {
    if (i + kRequestPrefetchDistance < sequences.size()) {
      sequences[i + kRequestPrefetchDistance].request->Prefetch();
    }
    Request& r = *sequences[i].request;
    if (r.num_computed_tokens != r.num_tokens) continue;  // a prefill chunk: no token yet
    r.AppendToken(GeneratedToken(r), config_.block_tokens);
    ++r.output_tokens;
    if (r.first_token == TimePoint::max()) r.first_token = now;
    if (r.output_tokens >= r.max_output_tokens) {
      r.finish = now;
      r.TransitionTo(RequestState::kFinished);
      cache_.Free(r.kv);
      finished_ids.push_back(r.id);
    }
  }
  if (!finished_ids.empty()) {
    scheduler_.RemoveFinished();
    // Records in request-id order within one instant; observers may send
    // new requests (closed loop), which join the waiting queue now.
    std::sort(finished_ids.begin(), finished_ids.end());
    for (const uint64_t id : finished_ids) {
      const auto node = live_.extract(id);
      observer_.OnRequestFinished(node.mapped()->ToRecord());
    }
  }
  // Aborts that arrived while the step was in flight.
  std::vector<uint64_t> cancels;
  cancels.swap(pending_cancels_);
  for (const uint64_t id : cancels) Cancel(id);
  if (config_.check_invariants) CheckInvariants();
  if (!scheduler_.waiting().empty() || !scheduler_.running().empty()) RequestSchedule();
}

bool Replica::idle() const {
  return !step_in_flight_ && scheduler_.waiting().empty() && scheduler_.running().empty();
}

EngineCounters Replica::Counters() const {
  EngineCounters c;
  c.steps = steps_;
  c.prefix_cache_lookups = cache_.stats().lookups;
  c.prefix_cache_query_tokens = cache_.stats().query_tokens;
  c.prefix_cache_hit_tokens = cache_.stats().hit_tokens;
  c.preemptions = scheduler_.preemptions();
  c.evictions = cache_.pool().evictions();
  c.kv_blocks_total = cache_.pool().num_blocks();
  c.kv_blocks_peak_used = peak_used_blocks_;
  c.rejected_requests = rejected_;
  c.prefill_tokens_computed = prefill_tokens_;
  c.decode_tokens_computed = decode_tokens_;
  if (cpu_tier_ != nullptr) {
    const CpuKvTierStats& t = cpu_tier_->stats();
    c.cpu_kv_blocks_total = cpu_tier_->capacity_blocks();
    c.cpu_kv_lookups = t.lookups;
    c.cpu_kv_hit_blocks = t.hit_blocks;
    c.cpu_kv_loads = t.loads;
    c.cpu_kv_loaded_tokens = t.loaded_blocks * config_.block_tokens;
    c.cpu_kv_loaded_bytes = t.loaded_blocks * cpu_tier_->bytes_per_block();
    c.cpu_kv_stored_blocks = t.stored_blocks;
    c.cpu_kv_stored_bytes = t.stored_blocks * cpu_tier_->bytes_per_block();
    c.cpu_kv_evictions = t.evictions;
    c.cpu_kv_load_time_ns = ToNanoseconds(t.load_time);
  }
  return c;
}

void Replica::CheckInvariants() const {
  const KvBlockPool& pool = cache_.pool();
  pool.CheckInvariants();
  std::vector<int32_t> references(static_cast<size_t>(pool.num_blocks()), 0);
  for (const auto& [id, request] : live_) {
    const RequestState state = request->state;
    const bool holds_blocks =
        state == RequestState::kRunning || state == RequestState::kLoadingKv;
    EFIMSIM_CHECK(holds_blocks || request->kv.blocks.empty(),
                  "a request that is not running holds blocks");
    for (const BlockId block : request->kv.blocks) ++references[block];
  }
  for (BlockId b = 0; b < pool.num_blocks(); ++b) {
    EFIMSIM_CHECK(references[b] == pool.ref_count(b),
                  "block " + std::to_string(b) + " reference count " +
                      std::to_string(pool.ref_count(b)) + " but " +
                      std::to_string(references[b]) + " requests hold it");
  }
  size_t running = 0, waiting = 0;
  for (const auto& [id, request] : live_) {
    running += request->state == RequestState::kRunning ? 1 : 0;
    waiting += (request->state == RequestState::kWaiting ||
                request->state == RequestState::kPreempted ||
                request->state == RequestState::kLoadingKv) ? 1 : 0;
  }
  EFIMSIM_CHECK(running == scheduler_.running().size(), "running list disagrees with states");
  EFIMSIM_CHECK(waiting == scheduler_.waiting().size(), "waiting queue disagrees with states");
  for (const Request* r : scheduler_.running()) {
    EFIMSIM_CHECK(r->state == RequestState::kRunning, "a non-running request in the running list");
  }
  for (const Request* r : scheduler_.waiting()) {
    EFIMSIM_CHECK(r->state == RequestState::kWaiting || r->state == RequestState::kPreempted ||
                      r->state == RequestState::kLoadingKv,
                  "a running request in the waiting queue");
  }
  // The host tier conserves its blocks too (held + free == capacity). A
  // key may be held in both tiers at once (write-through).
  if (cpu_tier_ != nullptr) cpu_tier_->CheckInvariants();
}

}  // namespace efimsim
