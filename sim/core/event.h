#pragma once
// Events of the discrete-event core, after gem5's eventq.hh: a handler, a
// time, and a named class whose place in the order carries a reason.
//
// Ordering law (EventOrder below): events pop by (time, class, sequence).
// `sequence` is assigned by the queue at insertion, strictly increasing, so
// same-time same-class events pop in insertion (FIFO) order. Nothing is ever
// ordered by pointer value or by hash-map iteration.

#include <cstdint>

#include "sim/base/time.h"

namespace efimsim {

// The order of classes at one instant. Each value states why it is there.
enum class EventClass : uint8_t {
  // A step completing emits tokens, finishes requests and frees their KV
  // blocks before anything else at the same instant looks at the engine.
  kStepComplete = 0,
  // Client timers (think time, debounce) fire after completions so that a
  // request finishing at t can be followed by a send at the same t.
  kClientTimer = 1,
  // Arrivals join the waiting queue before the scheduler runs at that
  // instant, so a request arriving at t is eligible for the step started at t.
  kRequestArrival = 2,
  // The scheduler runs after all completions and arrivals of the instant and
  // sees the engine's final state for that instant.
  kSchedule = 3,
  // Run-level bookkeeping (time limits, progress) observes the settled state.
  kSimulationControl = 4,
};
inline constexpr int kEventClassCount = 5;

class EventHandler;

struct Event {
  TimePoint time;
  EventClass event_class = EventClass::kSimulationControl;
  uint64_t sequence = 0;        // set by the queue; unique per queue
  EventHandler* handler = nullptr;
  uint64_t payload = 0;         // handler-defined (an id or an index)
};

// Strict weak order: true if `a` pops before `b`.
inline bool EventPopsBefore(const Event& a, const Event& b) {
  if (a.time != b.time) return a.time < b.time;
  if (a.event_class != b.event_class) return a.event_class < b.event_class;
  return a.sequence < b.sequence;
}

// Whatever reacts to events implements this. Handlers must outlive every
// event they are the target of.
class EventHandler {
 public:
  virtual ~EventHandler() = default;
  virtual void HandleEvent(const Event& event) = 0;
};

}  // namespace efimsim
