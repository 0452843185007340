#include "sim/core/simulator.h"

#include "sim/base/check.h"
#include "sim/base/errors.h"

namespace efimsim {

void Simulator::Schedule(TimePoint time, EventClass event_class, EventHandler* handler,
                         uint64_t payload) {
  EFIMSIM_CHECK(time >= now_, "event scheduled in the past");
  EFIMSIM_CHECK(handler != nullptr, "event without a handler");
  Event event;
  event.time = time;
  event.event_class = event_class;
  event.handler = handler;
  event.payload = payload;
  queue_.Push(event);
}

void Simulator::ThrowClockOverflow(Duration delay) const {
  throw UsageError("simulated time would pass 2^63 ns (292 years): an event " +
                   std::to_string(ToSeconds(delay)) + " s after " +
                   std::to_string(ToSeconds(now_.time_since_epoch())) +
                   " s; check the time settings (step overheads, think times, durations)");
}

uint64_t Simulator::Run() {
  EFIMSIM_CHECK(!running_, "Simulator::Run re-entered");
  running_ = true;
  const uint64_t handled_before = events_handled_;
  while (!queue_.empty()) {
    const Event event = queue_.Pop();
    EFIMSIM_CHECK(event.time >= now_, "time went backwards");
    now_ = event.time;
    event.handler->HandleEvent(event);
    ++events_handled_;
    if ((events_handled_ & 4095) != 0) continue;
    if (periodic_hook_) periodic_hook_();
    if (interrupt_ != nullptr && interrupt_->load(std::memory_order_relaxed)) ThrowInterrupted();
  }
  running_ = false;
  // A run shorter than the polling period stops too: its result is dropped.
  if (interrupt_ != nullptr && interrupt_->load(std::memory_order_relaxed)) ThrowInterrupted();
  return events_handled_ - handled_before;
}

void Simulator::ThrowInterrupted() {
  running_ = false;
  throw Interrupted("interrupted at simulated time " +
                    std::to_string(ToSeconds(now_.time_since_epoch())) + " s");
}

}  // namespace efimsim
