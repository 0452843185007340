#pragma once
// Replays a trace (traces/trace_reader.h) open loop: request records are
// sent at their arrival times (those with think_time_ns closed loop: think
// time after the previous request of their session ends, not before their
// arrival time; session_chains.h); editing sessions are replayed edit by edit
// and turned into completion requests by a client model
// (completion_trigger.h) that builds text prompts (text_prompt_builder.h).
// A completion's reference output is the text its session will still type
// at the cursor (EditedDocument::text_to_type: known for typing and
// HumanEval sessions; empty for sessions read from trace files, whose
// future edits are not read ahead).
//
// Memory stays bounded by the open sessions and requests in flight: the
// trace is pulled one record at a time, each scheduled at its own time.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/client/client.h"
#include "sim/client/client_request.h"
#include "sim/client/completion_trigger.h"
#include "sim/client/output_length.h"
#include "sim/client/session_chains.h"
#include "sim/client/text_prompt_builder.h"
#include "sim/core/simulator.h"
#include "traces/edited_document.h"
#include "traces/trace_reader.h"

namespace efimsim {

struct TraceReplayStats {
  int64_t request_records = 0;   // request-level records sent as they are
  int64_t closed_loop_records = 0;  // of which with think_time_ns (session_chains.h)
  int64_t closed_loop_dropped = 0;  // closed-loop records whose send fell after the stop
  int64_t sessions = 0;
  int64_t edits = 0;             // text-changing edits
  int64_t completion_requests = 0;
  int64_t cancel_requests = 0;   // stale requests the client aborted
  int64_t efim_rebases = 0;
};

class TraceReplayClient : public Client, public EventHandler {
 public:
  // `builder` may be null when the trace has no editing sessions (an
  // InputError is thrown at the first session otherwise). `trace_name`
  // names the trace in errors. Nothing is sent after `stop_sending_at`
  // (records after it are not read), so a run can cover the first minutes
  // of a long trace. All references must outlive the client.
  TraceReplayClient(Simulator& simulator, TraceReader& reader, RequestSink& sink,
                    const TextPromptBuilder* builder, CompletionClientConfig config,
                    std::string trace_name, TimePoint stop_sending_at = TimePoint::max());
  ~TraceReplayClient() override;

  void Start() override;
  // Where the builder comes from when none was given: called at the first
  // editing session (so a trace of request records never loads a
  // tokenizer); a null result is the missing-tokenizer InputError. Must
  // outlive the client, like the builder it returns.
  void set_builder_source(std::function<const TextPromptBuilder*()> source) {
    builder_source_ = std::move(source);
  }
  // The engine is done with `request_id` (finished, cancelled or rejected).
  void OnRequestDone(uint64_t request_id);
  void OnRequestEnded(uint64_t request_id, int64_t /*user*/) override { OnRequestDone(request_id); }
  // No request is still waiting for an answer.
  void CheckDrained(int64_t ended) const override;
  int64_t efim_rebases() const override { return stats().efim_rebases; }
  void HandleEvent(const Event& event) override;
  // Optional (null: every completion runs to its cap,
  // config.max_output_tokens): draws each completion's output_length, keyed
  // by (session id, text edits applied so far); the cap stays. Request
  // records keep their recorded lengths. Must outlive the client.
  void set_output_length(const OutputLengthModel* model) override { output_length_ = model; }

  // Counters; efim_rebases includes sessions still open.
  TraceReplayStats stats() const;
  int64_t requests_in_flight() const { return static_cast<int64_t>(owner_.size()); }

 private:
  struct Session;
  static constexpr uint64_t kNoRequest = UINT64_MAX;

  void PumpNext();
  void Apply(TraceRecord record);
  void ApplyRequest(TraceRequest& request);
  void StartSession(const SessionStart& start);
  void ApplyEdit(const EditEvent& edit);
  void OnTextChanged(uint32_t slot);
  void ArmTimer(uint32_t slot, Duration wait);
  void Send(uint32_t slot);
  void MaybeClose(uint32_t slot);
  Session& At(uint32_t slot) { return *sessions_[slot]; }

  Simulator& simulator_;
  TraceReader& reader_;
  RequestSink& sink_;
  const TextPromptBuilder* builder_;
  std::function<const TextPromptBuilder*()> builder_source_;
  CompletionClientConfig config_;
  CompletionTrigger trigger_;
  std::string trace_name_;
  TimePoint stop_sending_at_;

  std::optional<TraceRecord> next_record_;
  std::vector<std::unique_ptr<Session>> sessions_;  // by slot; null when free
  std::vector<uint32_t> free_slots_;
  // Timer generations per slot; they outlive a slot's session so a timer
  // armed for a closed session never fires for the next one in that slot.
  std::vector<uint32_t> slot_generation_;
  std::unordered_map<std::string, uint32_t> session_slots_;
  std::unordered_map<std::string, int64_t> user_index_;
  std::unordered_map<uint64_t, uint32_t> owner_;  // in-flight completion -> session slot
  uint64_t next_request_id_ = 0;
  TraceReplayStats stats_;
  const OutputLengthModel* output_length_ = nullptr;
  SessionChains chains_;  // request records with think_time_ns
};

}  // namespace efimsim
