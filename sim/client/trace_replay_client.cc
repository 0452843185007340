#include "sim/client/trace_replay_client.h"

#include <algorithm>

#include "sim/base/check.h"
#include "sim/base/errors.h"
#include "sim/core/random.h"

namespace efimsim {
namespace {
// Event payloads: the record pump, or a session timer (slot << 32 | generation).
constexpr uint64_t kPumpPayload = UINT64_MAX;
uint64_t TimerPayload(uint32_t slot, uint32_t generation) {
  return (static_cast<uint64_t>(slot) << 32) | generation;
}
}  // namespace

struct TraceReplayClient::Session {
  Session(const SessionStart& start, int64_t user) : id(start.session_id), user_index(user),
                                                     document(start) {}
  std::string id;
  int64_t user_index;
  EditedDocument document;
  TextPromptState prompt_state;
  uint64_t in_flight = kNoRequest;  // the latest request sent, until it is done
  bool dirty = false;               // single-in-flight: an edit is waiting for a send
  bool ended = false;
  TimePoint last_edit = TimePoint::min();
  double gap_ewma_ms = -1;          // adaptive debounce
  int64_t requests = 0;
  int64_t text_edits = 0;           // the output-length model's request identity
};

TraceReplayClient::TraceReplayClient(Simulator& simulator, TraceReader& reader, RequestSink& sink,
                                     const TextPromptBuilder* builder,
                                     CompletionClientConfig config, std::string trace_name,
                                     TimePoint stop_sending_at)
    : simulator_(simulator), reader_(reader), sink_(sink), builder_(builder), config_(config),
      trigger_(ParseCompletionTrigger(config.trigger)), trace_name_(std::move(trace_name)),
      stop_sending_at_(stop_sending_at),
      chains_(simulator, [this] { return next_request_id_++; },
              [this](ClientRequest request) { sink_.Submit(std::move(request)); },
              stop_sending_at) {
  if (config_.debounce_ms < 0 || config_.retry_ms < 0 || config_.adaptive_min_ms < 0 ||
      config_.adaptive_max_ms < config_.adaptive_min_ms) {
    throw UsageError("completion client: debounce, retry and adaptive bounds must be >= 0 "
                     "(and adaptive max >= min)");
  }
  if (config_.max_output_tokens < 1) throw UsageError("--max-tokens: must be at least 1");
}

TraceReplayClient::~TraceReplayClient() = default;

void TraceReplayClient::Start() { PumpNext(); }

void TraceReplayClient::PumpNext() {
  next_record_ = reader_.Next();
  if (!next_record_) return;
  const TimePoint at{Nanoseconds(RecordTimeNs(*next_record_))};
  if (at > stop_sending_at_) {
    next_record_.reset();  // the rest of the trace is beyond the run
    return;
  }
  simulator_.Schedule(std::max(at, simulator_.Now()), EventClass::kRequestArrival, this,
                      kPumpPayload);
}

void TraceReplayClient::HandleEvent(const Event& event) {
  if (event.payload == kPumpPayload) {
    TraceRecord record = std::move(*next_record_);
    next_record_.reset();
    Apply(std::move(record));
    PumpNext();
    return;
  }
  const uint32_t slot = static_cast<uint32_t>(event.payload >> 32);
  const uint32_t generation = static_cast<uint32_t>(event.payload & 0xffffffffULL);
  if (slot >= sessions_.size() || !sessions_[slot]) return;
  if (slot_generation_[slot] != generation || At(slot).ended) return;  // superseded
  Send(slot);
}

void TraceReplayClient::Apply(TraceRecord record) {
  if (auto* request = std::get_if<TraceRequest>(&record)) {
    ApplyRequest(*request);
  } else if (const auto* start = std::get_if<SessionStart>(&record)) {
    StartSession(*start);
  } else {
    ApplyEdit(std::get<EditEvent>(record));
  }
}

void TraceReplayClient::ApplyRequest(TraceRequest& request) {
  ClientRequest out;
  out.user = -1;
  if (!request.session_id.empty()) {
    out.user = user_index_.try_emplace(request.session_id,
                                       static_cast<int64_t>(user_index_.size())).first->second;
  }
  out.prompt = std::move(request.token_ids);
  out.prompt_length = request.prompt_tokens;
  out.prompt_block_keys = std::move(request.block_keys);
  out.block_key_tokens = static_cast<int32_t>(request.block_key_tokens);
  // A trace's request generates its recorded output length (at least one
  // token: an engine always samples one). A trace records no cap, so that
  // length is the cap as well.
  out.max_tokens = std::max<int64_t>(1, request.output_tokens);
  out.output_length = out.max_tokens;
  ++stats_.request_records;
  if (request.think_time_ns) {
    // Closed loop: its session's previous request decides when it goes.
    ++stats_.closed_loop_records;
    chains_.Add(out.user, std::move(out), simulator_.Now(), Nanoseconds(*request.think_time_ns));
    return;
  }
  if (!request.session_id.empty()) {
    // Open loop, but a later closed-loop request of its session waits for it.
    chains_.SendNow(out.user, std::move(out));
    return;
  }
  out.request_id = next_request_id_++;
  out.sent = simulator_.Now();
  sink_.Submit(std::move(out));
}

void TraceReplayClient::StartSession(const SessionStart& start) {
  if (builder_ == nullptr && builder_source_) {
    builder_ = builder_source_();
    builder_source_ = nullptr;
  }
  if (builder_ == nullptr) {
    throw InputError(trace_name_, 0, "session",
                     "editing sessions need the tokenizer (run scripts/fetch-tokenizer or give "
                     "--tokenizer FILE)");
  }
  if (session_slots_.count(start.session_id)) {
    throw InputError(trace_name_, 0, "session_id",
                     "session '" + start.session_id + "' started twice");
  }
  const int64_t user = user_index_.try_emplace(start.user_id,
                                               static_cast<int64_t>(user_index_.size())).first->second;
  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<uint32_t>(sessions_.size());
    sessions_.emplace_back();
    slot_generation_.push_back(0);
  }
  try {
    sessions_[slot] = std::make_unique<Session>(start, user);
  } catch (const InvalidEdit& invalid) {
    free_slots_.push_back(slot);
    throw InputError(trace_name_, 0, invalid.field(),
                     "session '" + start.session_id + "': " + invalid.what());
  }
  Session& session = At(slot);
  builder_->BeginSession(WindowPrefix(session.document.prefix(), config_.context_lines_before),
                         session.prompt_state);
  session_slots_.emplace(start.session_id, slot);
  ++stats_.sessions;
}

void TraceReplayClient::ApplyEdit(const EditEvent& edit) {
  const auto it = session_slots_.find(edit.session_id);
  if (it == session_slots_.end()) {
    throw InputError(trace_name_, 0, "session_id",
                     "edit at " + std::to_string(edit.time_ns) + " ns names session '" +
                         edit.session_id + "', which is not open");
  }
  const uint32_t slot = it->second;
  Session& session = At(slot);
  if (edit.kind == EditKind::kEnd) {
    session.ended = true;
    ++slot_generation_[slot];
    session_slots_.erase(it);
    MaybeClose(slot);
    return;
  }
  EditEffect effect;
  try {
    effect = session.document.Apply(edit);
  } catch (const InvalidEdit& invalid) {
    throw InputError(trace_name_, 0, invalid.field(),
                     "session '" + edit.session_id + "' at " + std::to_string(edit.time_ns) +
                         " ns: " + invalid.what());
  }
  if (effect.text_changed) {
    ++stats_.edits;
    ++session.text_edits;
    OnTextChanged(slot);
  }
}

void TraceReplayClient::OnTextChanged(uint32_t slot) {
  Session& session = At(slot);
  const TimePoint now = simulator_.Now();
  switch (trigger_) {
    case CompletionTrigger::kEveryEdit:
      Send(slot);
      break;
    case CompletionTrigger::kDebounce:
      ArmTimer(slot, FromSeconds(config_.debounce_ms / 1000.0));
      break;
    case CompletionTrigger::kAdaptiveDebounce: {
      if (session.last_edit != TimePoint::min()) {
        const double gap_ms = ToMilliseconds(now - session.last_edit);
        session.gap_ewma_ms =
            session.gap_ewma_ms < 0 ? gap_ms : 0.7 * session.gap_ewma_ms + 0.3 * gap_ms;
      }
      const double wait_ms =
          session.gap_ewma_ms < 0
              ? config_.adaptive_max_ms
              : std::clamp(2.0 * session.gap_ewma_ms, config_.adaptive_min_ms,
                           config_.adaptive_max_ms);
      ArmTimer(slot, FromSeconds(wait_ms / 1000.0));
      break;
    }
    case CompletionTrigger::kSingleInFlight:
      if (session.in_flight == kNoRequest) {
        Send(slot);
      } else {
        session.dirty = true;
      }
      break;
  }
  session.last_edit = now;
}

void TraceReplayClient::ArmTimer(uint32_t slot, Duration wait) {
  const uint32_t generation = ++slot_generation_[slot];
  simulator_.ScheduleAfter(wait, EventClass::kClientTimer, this, TimerPayload(slot, generation));
}

void TraceReplayClient::Send(uint32_t slot) {
  if (simulator_.Now() > stop_sending_at_) return;
  Session& session = At(slot);
  EFIMSIM_CHECK(builder_ != nullptr, "Send without a prompt builder");
  ClientRequest request;
  request.request_id = next_request_id_++;
  request.user = session.user_index;
  request.round = session.requests++;
  request.max_tokens = config_.max_output_tokens;
  if (output_length_ != nullptr) {
    int64_t rest_of_line = 1;
    if (output_length_->needs_line_context()) {
      rest_of_line = RestOfLineTokens(session.document.prefix(), [&](std::string_view text) {
        return builder_->tokenizer()
            .Encode(text, tokenizer::AddedTokenText::kAsPlainText)
            .size();
      });
    }
    request.output_length = output_length_->Draw(
        PairKey(HashName(session.id), static_cast<uint64_t>(session.text_edits)),
        rest_of_line);
  }
  request.sent = simulator_.Now();
  builder_->Build(WindowPrefix(session.document.prefix(), config_.context_lines_before),
                  WindowSuffix(session.document.suffix(), config_.context_lines_after),
                  session.prompt_state, request.prompt);
  builder_->EncodeReference(session.document.text_to_type(), request.max_tokens,
                            request.reference_output);
  session.dirty = false;
  const uint64_t stale = session.in_flight;
  session.in_flight = request.request_id;
  owner_.emplace(request.request_id, slot);
  ++stats_.completion_requests;
  if (stale != kNoRequest && config_.cancel_stale) {
    ++stats_.cancel_requests;
    sink_.Cancel(stale);
  }
  sink_.Submit(std::move(request));
}

void TraceReplayClient::OnRequestDone(uint64_t request_id) {
  if (chains_.OnEnded(request_id)) return;  // a closed-loop request record
  const auto it = owner_.find(request_id);
  if (it == owner_.end()) return;  // a request-level record
  const uint32_t slot = it->second;
  owner_.erase(it);
  Session& session = At(slot);
  if (session.in_flight != request_id) return;  // superseded by a newer request
  session.in_flight = kNoRequest;
  if (session.ended) {
    MaybeClose(slot);
  } else if (trigger_ == CompletionTrigger::kSingleInFlight && session.dirty) {
    ArmTimer(slot, FromSeconds(config_.retry_ms / 1000.0));
  }
}

TraceReplayStats TraceReplayClient::stats() const {
  TraceReplayStats stats = stats_;
  stats.closed_loop_dropped = chains_.dropped();
  for (const auto& session : sessions_) {
    if (session) stats.efim_rebases += session->prompt_state.rebases;
  }
  return stats;
}

void TraceReplayClient::MaybeClose(uint32_t slot) {
  Session& session = At(slot);
  if (!session.ended) return;
  // Wait for every request the session still has in flight.
  for (const auto& [id, owner] : owner_) {
    if (owner == slot) return;
  }
  stats_.efim_rebases += session.prompt_state.rebases;
  sessions_[slot].reset();
  free_slots_.push_back(slot);
}

void TraceReplayClient::CheckDrained(int64_t /*ended*/) const {
  EFIMSIM_CHECK(requests_in_flight() == 0, "a trace request was never answered");
  EFIMSIM_CHECK(chains_.outstanding() == 0, "a closed-loop trace request was never sent or answered");
}

}  // namespace efimsim
