#include "sim/core/event_queue.h"

#include <algorithm>
#include <bit>

#include "sim/base/check.h"

namespace efimsim {

void EventQueue::PushCurrent(const Node& node) {
  current_.push_back(node);
  std::push_heap(current_.begin(), current_.end(), PopsAfterAtSameTime);
}

void EventQueue::FailPushBeforeLastPop() {
  FailCheck(__FILE__, __LINE__, "event.time >= last popped time",
            "event pushed before the last popped time");
}

std::vector<EventQueue::Node>* EventQueue::AdvanceToNextInstant() {
  while (true) {
    // Buckets of a lower level, and of a lower digit within a level, hold
    // earlier times, so the first non-empty one holds the minimum.
    const int level = std::countr_zero(nonempty_levels_);
    uint64_t& word_bits = nonempty_words_[static_cast<size_t>(level)];
    const int word = std::countr_zero(word_bits);
    uint64_t& bits = nonempty_digits_[static_cast<size_t>(level)][static_cast<size_t>(word)];
    const int digit = word * 64 + std::countr_zero(bits);
    bits &= bits - 1;
    if (bits == 0) {
      word_bits &= word_bits - 1;
      if (word_bits == 0) nonempty_levels_ &= ~(uint32_t{1} << level);
    }
    std::vector<Node>& from = buckets_[static_cast<size_t>(level * kDigits + digit)];

    if (level == 0 || from.size() == 1) {
      // A level-0 bucket agrees with last_time_ns_ on every bit above its
      // digit: all its events are at one time, the next instant. A bucket
      // of one event holds the earliest event.
      last_time_ns_ = from.front().time_ns;
      return &from;
    }
    // Move the clock to the bucket's first possible time (the digits above
    // `level` unchanged, this digit, zeros below): no event is earlier, and
    // every event of the bucket now differs from it below `level`, so each
    // moves down at least one level; events of other buckets keep their
    // place. Only the queue's clock moves: nothing was popped yet, and the
    // caller pops an event at or after it before anyone can push again.
    const int shift = level * kDigitBits;
    const uint64_t above_mask =
        shift + kDigitBits >= 64 ? 0 : ~((uint64_t{1} << (shift + kDigitBits)) - 1);
    last_time_ns_ = (last_time_ns_ & above_mask) | (static_cast<uint64_t>(digit) << shift);
    for (const Node& node : from) {
      if (node.time_ns == last_time_ns_) {
        current_.push_back(node);
      } else {
        PushBucket(node);
      }
    }
    from.clear();
    if (!current_.empty()) return &current_;
  }
}

Event EventQueue::Pop() {
  EFIMSIM_CHECK(size_ > 0, "Pop on an empty event queue");
  if (current_.empty()) {
    std::vector<Node>* next = AdvanceToNextInstant();
    if (next->size() == 1) {
      // The common case: one event at the next instant, popped in place.
      const Node only = next->back();
      next->pop_back();
      return TakeNode(only);
    }
    if (next != &current_) {
      current_.assign(next->begin(), next->end());
      next->clear();
    }
    std::make_heap(current_.begin(), current_.end(), PopsAfterAtSameTime);
  }
  std::pop_heap(current_.begin(), current_.end(), PopsAfterAtSameTime);
  const Node top = current_.back();
  current_.pop_back();
  return TakeNode(top);
}

Event EventQueue::TakeNode(const Node& node) {
  --size_;
  Event event;
  event.time = TimePoint{Nanoseconds(static_cast<int64_t>(node.time_ns))};
  event.event_class = static_cast<EventClass>(node.order >> kSequenceBits);
  event.sequence = node.order & ((uint64_t{1} << kSequenceBits) - 1);
  event.handler = node.handler;
  event.payload = node.payload;
  return event;
}

}  // namespace efimsim
