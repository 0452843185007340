#pragma once
// A request inside an engine replica: the lifecycle every engine shares,
// read and written by the step driver (replica.h). Each engine derives its
// own request type from it for its per-request state (vLLM v1: VllmRequest,
// its KV blocks and block keys; SGLang: SglangRequest, its token stream and
// KV slots) and allocates it (EngineCore::Add).

#include <cstddef>
#include <cstdint>

#include "sim/base/time.h"
#include "sim/client/client_request.h"
#include "sim/metrics/request_record.h"

namespace efimsim {

// Lifecycle; every change goes through Request::TransitionTo (checked).
//   kWaiting -> kRunning            first admission
//   kRunning -> kPreempted          preempted or retracted (KV freed)
//   kPreempted -> kRunning          re-admission (recompute)
//   kRunning -> kFinished           last token emitted
//   kWaiting | kPreempted -> kLoadingKv  KV taken, waiting for a transfer
//                                   into it (vLLM's CPU KV tier hit)
//   kLoadingKv -> kRunning          admitted after its load completed
//   kLoadingKv -> kPreempted        KV given back to break a stall (see
//                                   VllmV1Scheduler::ReleaseLoadedBlocks)
//   kWaiting | kRunning | kPreempted | kLoadingKv -> kCancelled   the client aborted it
// (A request that can never fit is rejected at submission and never
// becomes a Request.)
enum class RequestState : uint8_t {
  kWaiting, kRunning, kPreempted, kFinished, kCancelled,
  kLoadingKv,  // holds KV, waits in the waiting queue for a transfer into it
};
const char* RequestStateName(RequestState state);

// How many requests ahead loops over running requests call Prefetch.
inline constexpr size_t kRequestPrefetchDistance = 4;

// The fields that every step reads or writes for every running request
// come first: the scheduler, the step start and the step completion each
// walk all running requests, and a request's first touch in a step is
// usually a cache miss. (Aligning the struct to a cache line measured
// slower: aligned allocation.) Virtual only for its destructor: the driver
// owns requests an engine allocated.
struct Request {
  virtual ~Request() = default;

  int64_t num_tokens = 0;           // prompt + output so far
  int64_t num_computed_tokens = 0;  // tokens whose KV is (being) computed
  int64_t output_tokens = 0;
  int64_t max_output_tokens = 0;    // the client's cap (max_tokens): what schedulers read
  // When the model stops by itself (<= max_output_tokens). Read only by the
  // driver's token emission: an engine cannot know it in advance.
  int64_t output_length = 0;
  int64_t prompt_tokens = 0;
  RequestState state = RequestState::kWaiting;
  TimePoint first_scheduled = TimePoint::max();
  TimePoint first_token = TimePoint::max();
  uint64_t id = 0;

  int64_t user = 0;
  int64_t round = 0;
  int64_t cached_tokens = -1;       // hit at first admission; -1 before it
  int64_t preemptions = 0;
  TimePoint arrival;
  TimePoint finish = TimePoint::max();
  RequestPartFigures parts;  // the engine's optional parts' figures, copied into the record

  // Starts loading the fields a step touches (a hint; changes nothing):
  // the shared fields and the first engine fields after them, in the four
  // lines from `this` on. Loops over running requests call it a few
  // requests ahead. Always inline: GCC deletes the call of a function
  // whose only effect is a prefetch.
  [[gnu::always_inline]] void Prefetch() const {
    const char* base = reinterpret_cast<const char*>(this);
    __builtin_prefetch(base);
    __builtin_prefetch(base + 64);
    __builtin_prefetch(base + 128);
    __builtin_prefetch(base + 192);
  }

  void TransitionTo(RequestState next);
  RequestRecord ToRecord() const;
};

// Fills the lifecycle fields of a new request from what the client sent.
void InitRequest(const ClientRequest& client, TimePoint arrival, Request& request);

}  // namespace efimsim
