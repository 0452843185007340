#pragma once
// What an engine (vLLM v1, SGLang) brings to the one step driver (Replica,
// replica.h): its scheduler and KV cache. The driver owns everything the
// engines share: the kSchedule / kStepComplete event pair, the requests'
// lifecycle, deferred aborts, token draws, step records and the generic
// counters. A core owns its engine's per-request state by deriving its
// request type from Request (request.h) and allocating it in Add.
//
// One step, as the driver calls it:
//   Schedule(plan, now)        the core fills `plan` (requests, new tokens,
//                              context) and advances progress; KV is
//                              allocated and registered at schedule time
//   ... the latency model prices the step; at its completion:
//   AfterStep(plan, emitter)   the core walks the plan once: for each
//                              sequence the driver's TokenEmitter draws its
//                              token (if its prompt is computed), advances
//                              num_tokens / output_tokens and finishes it at
//                              its length; the core appends the token to its
//                              own sequence state; then it frees the KV of
//                              the finished requests
// Cost contract: the driver calls a core's virtuals once per step or once
// per request event (submit, cancel), never once per sequence of a step.

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/client/client_request.h"
#include "sim/metrics/summary.h"
#include "sim/engine/remote_kv_read.h"
#include "sim/engine/request.h"
#include "sim/engine/token_draw.h"

namespace efimsim {

struct ScheduledSequence {
  Request* request = nullptr;
  int64_t new_tokens = 0;
  int64_t context_tokens = 0;  // num_computed_tokens before this step
};

// How a step's sequences count in step records (prefill or decode).
enum class StepKind : uint8_t {
  kMixed,    // per sequence: prefill if it computes prompt positions or more than one token
  kPrefill,  // every sequence is prefill (a prefill-only batch)
  kDecode,   // every sequence is decode
};

struct StepPlan {
  std::vector<ScheduledSequence> sequences;
  int64_t total_tokens = 0;
  int64_t preempted = 0;  // requests preempted (retracted) while building the step
  int64_t admitted = 0;
  StepKind kind = StepKind::kMixed;
  // With no sequences: when the core can make progress again although it
  // has work (a KV load completes then); TimePoint::max() when it cannot
  // say. `retry`: the core changed its state and wants another try now.
  TimePoint wake_at = TimePoint::max();
  bool retry = false;
  // Speculative decoding's drafting after this step's forward, for the
  // sequences that emit (vLLM proposes the next step's drafts within the
  // step): host time of n-gram or suffix lookups, and the passes of a
  // draft head, each priced by the driver as `draft_head_layer_share` of a
  // target decode step over those sequences plus its lm_head.
  Duration draft_host{0};
  int32_t draft_head_passes = 0;
  double draft_head_layer_share = 0;
  // A separate draft model's forwards (vLLM's draft_model), priced by the
  // driver with the draft model's latency model: the first over the step's
  // own tokens, each further one a decode of the emitting sequences.
  int32_t draft_model_passes = 0;
  bool empty() const { return sequences.empty(); }
  void Clear() {
    sequences.clear();
    total_tokens = 0;
    preempted = 0;
    admitted = 0;
    kind = StepKind::kMixed;
    wake_at = TimePoint::max();
    retry = false;
    draft_host = Duration{0};
    draft_head_passes = 0;
    draft_head_layer_share = 0;
    draft_model_passes = 0;
  }
};

// KV held by requests (or pinned for them), in blocks of the engine's
// block size: what step records and peak_kv_usage report.
struct KvUsage {
  int64_t used_blocks = 0;
  int64_t total_blocks = 0;
};

// What TokenEmitter::Emit returns for a prefill chunk (no token yet).
inline constexpr TokenId kNoEmittedToken = -1;

// The driver's token emission for one completed step, handed to the core
// so that emission and the engine's own bookkeeping are one pass over the
// step (inline: it runs for every sequence).
class TokenEmitter {
 public:
  TokenEmitter(const TokenDraw& draw, TimePoint now, std::vector<Request*>& finished)
      : draw_(draw), now_(now), finished_(finished) {}

  // The token `request` generated in the step, or kNoEmittedToken if its
  // prompt is not computed yet. A request that reached its output length
  // becomes kFinished (with its finish time) and joins finished().
  TokenId Emit(Request& request) {
    if (request.num_computed_tokens != request.num_tokens) return kNoEmittedToken;
    const TokenId token = draw_.Generated(request.id, request.num_tokens);
    CountToken(request);
    return token;
  }
  // Counts the request's next generated token (the core keeps the token
  // ids it needs). A core that emits several tokens in one step
  // (speculative decoding: the accepted drafts and one more) calls it once
  // per token, in order, and stops once it returns true: the request
  // reached its output length and finished.
  bool CountToken(Request& request) {
    ++request.num_tokens;
    ++request.output_tokens;
    if (request.first_token == TimePoint::max()) request.first_token = now_;
    if (request.output_tokens >= request.output_length) {
      request.finish = now_;
      request.TransitionTo(RequestState::kFinished);
      finished_.push_back(&request);
      return true;
    }
    return false;
  }
  // Requests finished in this step, in plan order.
  const std::vector<Request*>& finished() const { return finished_; }

 private:
  const TokenDraw& draw_;
  TimePoint now_;
  std::vector<Request*>& finished_;
};

// The driver's live requests, by id.
using LiveRequests = std::unordered_map<uint64_t, std::unique_ptr<Request>>;

class EngineCore {
 public:
  virtual ~EngineCore() = default;
  // Why the engine can never serve `request` (empty: it can). Called for a
  // request with a non-empty prompt.
  virtual std::string RejectReason(const ClientRequest& request) const = 0;
  // RequestSink::UnreadPromptTokens for a request added next: leading
  // prompt tokens Add would not read. 0, the default: it reads them all.
  virtual int64_t UnreadPromptTokens(int64_t /*user*/, int64_t /*round*/,
                                     int64_t /*shared_tokens*/) const {
    return 0;
  }
  // Makes the engine's request for an accepted one (its lifecycle fields
  // from InitRequest) and queues it. May take the prompt's tokens. Ids the
  // client left unmade (ClientRequest::prompt_unmade_begin) lie within
  // what UnreadPromptTokens said.
  virtual std::unique_ptr<Request> Add(ClientRequest& request, TimePoint now) = 0;
  // Fills `plan` (cleared first) with the next step.
  virtual void Schedule(StepPlan& plan, TimePoint now) = 0;
  // After the step of `plan` completed: calls emitter.Emit once for every
  // sequence of the plan, in plan order, appends each emitted token to the
  // engine's sequence state, then frees the KV of emitter.finished() and
  // drops them from the scheduler.
  virtual void AfterStep(const StepPlan& plan, TokenEmitter& emitter) = 0;
  // Frees an aborted request's KV (it stays cached where the engine caches
  // it) and drops it from the scheduler. The driver then marks it cancelled.
  virtual void Release(Request& request) = 0;
  // True when the scheduler holds any request (waiting, running, chunked).
  virtual bool has_work() const = 0;
  // Requests in the scheduler's waiting queue (for data-parallel routing).
  virtual int64_t waiting_requests() const = 0;
  virtual KvUsage kv_usage() const = 0;
  // True when no request holds KV (end-of-run check).
  virtual bool kv_all_free() const = 0;
  // The engine's counters (the driver adds steps, tokens, rejections and
  // peak KV).
  virtual EngineCounters Counters() const = 0;
  // Verifies the engine's KV and queue invariants against the driver's
  // live requests. Throws on violation.
  virtual void CheckInvariants(const LiveRequests& live) const = 0;

  // Disaggregated serving (remote_kv_read.h); engines without it keep the
  // defaults. Prefill side: requests finished with hold_kv_until_read whose
  // KV the engine still holds, and the release of one (freed as Release
  // frees an aborted request's; unknown ids are ignored).
  virtual int64_t held_kv_requests() const { return 0; }
  virtual bool holds_kv(uint64_t /*request_id*/) const { return false; }
  virtual void ReleaseHeldKv(uint64_t /*request_id*/) {}
  // Decode side: appends the remote reads decided since the last call
  // (pulls started, remote requests admitted without one or removed).
  virtual void TakeRemoteKvReads(std::vector<RemoteKvRead>& /*out*/) {}
};

}  // namespace efimsim
