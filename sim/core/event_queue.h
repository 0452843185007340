#pragma once
// The pending-event set, after ns-3's Scheduler: a small interface with its
// ordering law stated once (EventPopsBefore in event.h).
//
// Laws every implementation keeps:
//  - Pop() returns the pending event that pops before all others.
//  - Push() assigns the next sequence number; sequence numbers of one queue
//    are strictly increasing in push order and never reused.
//  - Peek()/Pop() on an empty queue is a precondition violation (checked).

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/event.h"

namespace efimsim {

// A 4-ary implicit min-heap over Event values: O(log n) push and pop with
// shallow trees and contiguous memory.
class EventQueue {
 public:
  // Returns the sequence number given to the event.
  uint64_t Push(Event event);
  Event Pop();
  const Event& Peek() const;
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  void Reserve(size_t capacity) { heap_.reserve(capacity); }

 private:
  void SiftUp(size_t index);
  void SiftDown(size_t index);

  std::vector<Event> heap_;
  uint64_t next_sequence_ = 0;
};

}  // namespace efimsim
