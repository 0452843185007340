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
//   ... the latency model prices the step; at its completion the driver
//   draws one token for every sequence whose prompt is fully computed,
//   advances num_tokens / output_tokens, and marks requests that reached
//   their length kFinished, then:
//   AfterStep(plan, tokens, finished)   the core appends the tokens to its
//                              sequences and frees the finished requests' KV
// Cost contract: the driver calls a core's virtuals once per step or once
// per request event (submit, cancel), never once per sequence of a step.

#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/client/client_request.h"
#include "sim/metrics/summary.h"
#include "sim/serving/request.h"

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
  bool empty() const { return sequences.empty(); }
  void Clear() {
    sequences.clear();
    total_tokens = 0;
    preempted = 0;
    admitted = 0;
    kind = StepKind::kMixed;
    wake_at = TimePoint::max();
    retry = false;
  }
};

// KV held by requests (or pinned for them), in blocks of the engine's
// block size: what step records and peak_kv_usage report.
struct KvUsage {
  int64_t used_blocks = 0;
  int64_t total_blocks = 0;
};

// tokens[i] of AfterStep: the token emitted by plan.sequences[i], or
// kNoEmittedToken for a prefill chunk that emitted none.
inline constexpr TokenId kNoEmittedToken = -1;

// The driver's live requests, by id.
using LiveRequests = std::unordered_map<uint64_t, std::unique_ptr<Request>>;

class EngineCore {
 public:
  virtual ~EngineCore() = default;
  // Why the engine can never serve `request` (empty: it can). Called for a
  // request with a non-empty prompt.
  virtual std::string RejectReason(const ClientRequest& request) const = 0;
  // Makes the engine's request for an accepted one (its lifecycle fields
  // from InitRequest) and queues it. May take the prompt's tokens.
  virtual std::unique_ptr<Request> Add(ClientRequest& request, TimePoint now) = 0;
  // Fills `plan` (cleared first) with the next step.
  virtual void Schedule(StepPlan& plan, TimePoint now) = 0;
  // After the step of `plan` completed and the driver emitted `tokens`
  // (one per sequence, kNoEmittedToken where none): appends them to the engine's
  // sequences and frees the KV of `finished` (in plan order; already
  // kFinished) and drops them from the scheduler.
  virtual void AfterStep(const StepPlan& plan, std::span<const TokenId> tokens,
                         std::span<Request* const> finished) = 0;
  // Frees an aborted request's KV (it stays cached where the engine caches
  // it) and drops it from the scheduler. The driver then marks it cancelled.
  virtual void Release(Request& request) = 0;
  // True when the scheduler holds any request (waiting, running, chunked).
  virtual bool has_work() const = 0;
  virtual KvUsage kv_usage() const = 0;
  // True when no request holds KV (end-of-run check).
  virtual bool kv_all_free() const = 0;
  // The engine's counters (the driver adds steps, tokens, rejections and
  // peak KV).
  virtual EngineCounters Counters() const = 0;
  // Verifies the engine's KV and queue invariants against the driver's
  // live requests. Throws on violation.
  virtual void CheckInvariants(const LiveRequests& live) const = 0;
};

}  // namespace efimsim
