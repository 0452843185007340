#include "sim/core/event_queue.h"

#include <utility>

#include "sim/base/check.h"

namespace efimsim {
namespace {
constexpr size_t kArity = 4;
}

uint64_t EventQueue::Push(Event event) {
  event.sequence = next_sequence_++;
  heap_.push_back(event);
  SiftUp(heap_.size() - 1);
  return event.sequence;
}

const Event& EventQueue::Peek() const {
  EFIMSIM_CHECK(!heap_.empty(), "Peek on an empty event queue");
  return heap_.front();
}

Event EventQueue::Pop() {
  EFIMSIM_CHECK(!heap_.empty(), "Pop on an empty event queue");
  Event top = heap_.front();
  heap_.front() = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) SiftDown(0);
  return top;
}

void EventQueue::SiftUp(size_t index) {
  Event moving = heap_[index];
  while (index > 0) {
    const size_t parent = (index - 1) / kArity;
    if (!EventPopsBefore(moving, heap_[parent])) break;
    heap_[index] = heap_[parent];
    index = parent;
  }
  heap_[index] = moving;
}

void EventQueue::SiftDown(size_t index) {
  const size_t count = heap_.size();
  Event moving = heap_[index];
  while (true) {
    const size_t first_child = index * kArity + 1;
    if (first_child >= count) break;
    size_t best = first_child;
    const size_t last_child = first_child + kArity < count ? first_child + kArity : count;
    for (size_t child = first_child + 1; child < last_child; ++child) {
      if (EventPopsBefore(heap_[child], heap_[best])) best = child;
    }
    if (!EventPopsBefore(heap_[best], moving)) break;
    heap_[index] = heap_[best];
    index = best;
  }
  heap_[index] = moving;
}

}  // namespace efimsim
