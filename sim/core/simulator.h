#pragma once
// The simulator object: a clock and an event queue. No singletons: each run
// owns its Simulator, so runs can execute side by side on threads.
//
// Preconditions (checked): events are never scheduled in the past; Run() is
// not re-entered from a handler.

#include <atomic>
#include <cstdint>
#include <functional>

#include "sim/core/event_queue.h"

namespace efimsim {

class Simulator {
 public:
  TimePoint Now() const { return now_; }

  // Schedules `handler->HandleEvent` at `time` (>= Now()) in `event_class`.
  void Schedule(TimePoint time, EventClass event_class, EventHandler* handler,
                uint64_t payload = 0);
  // UsageError when Now() + delay passes the clock's end (int64 ns, 292
  // years): only absurd settings get there (step overheads, think times).
  void ScheduleAfter(Duration delay, EventClass event_class, EventHandler* handler,
                     uint64_t payload = 0) {
    if (delay > TimePoint::max() - now_) ThrowClockOverflow(delay);
    Schedule(now_ + delay, event_class, handler, payload);
  }

  // Runs until the queue is empty (or the interrupt flag is raised).
  // Returns the number of events handled by this call.
  uint64_t Run();
  // When set, Run() throws Interrupted soon after *flag becomes true (it is
  // polled every few thousand events, and before Run() returns, so a short
  // run stops too). The flag must outlive the run.
  void set_interrupt_flag(const std::atomic<bool>* flag) { interrupt_ = flag; }
  // Called from Run() every few thousand events, between events: for
  // host-side work such as progress reports. It must not schedule events or
  // touch simulation state. Empty: none.
  void set_periodic_hook(std::function<void()> hook) { periodic_hook_ = std::move(hook); }

  uint64_t events_handled() const { return events_handled_; }
  size_t pending_events() const { return queue_.size(); }

 private:
  [[noreturn]] void ThrowClockOverflow(Duration delay) const;
  [[noreturn]] void ThrowInterrupted();

  EventQueue queue_;
  TimePoint now_ = kTimeZero;
  uint64_t events_handled_ = 0;
  bool running_ = false;
  const std::atomic<bool>* interrupt_ = nullptr;
  std::function<void()> periodic_hook_;
};

}  // namespace efimsim
