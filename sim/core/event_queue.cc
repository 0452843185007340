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

bool EventQueue::AdvanceToNextInstant(Node& only) {
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

    if (level == 0) {
      // A level-0 digit agrees with last_time_ns_ on every bit above it:
      // its events are at one time, the next instant.
      const Node& first = level_zero_[static_cast<size_t>(digit)];
      last_time_ns_ = first.time_ns;
      uint64_t& more = level_zero_has_more_[static_cast<size_t>(word)];
      const uint64_t bit = uint64_t{1} << (digit % 64);
      if ((more & bit) == 0) [[likely]] {
        only = first;
        return true;
      }
      more &= ~bit;
      std::vector<Node>& rest = level_zero_more_[static_cast<size_t>(digit)];
      current_.push_back(first);
      current_.insert(current_.end(), rest.begin(), rest.end());
      rest.clear();
      return false;
    }
    std::vector<Node>& from = buckets_[static_cast<size_t>(level * kDigits + digit)];
    if (from.size() == 1) {
      // A bucket of one event holds the earliest event.
      last_time_ns_ = from.front().time_ns;
      only = from.front();
      from.clear();
      return true;
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
      } else if ((node.time_ns ^ last_time_ns_) >> kDigitBits == 0) {
        PushLevelZero(node);
      } else {
        PushBucket(node);
      }
    }
    from.clear();
    if (!current_.empty()) return false;
  }
}

Event EventQueue::PopSlow() {
  EFIMSIM_CHECK(size_ > 0, "Pop on an empty event queue");
  if (current_.empty()) {
    Node only;
    // The common case: one event at the next instant, popped in place.
    if (AdvanceToNextInstant(only)) return TakeNode(only);
    std::make_heap(current_.begin(), current_.end(), PopsAfterAtSameTime);
  }
  std::pop_heap(current_.begin(), current_.end(), PopsAfterAtSameTime);
  const Node top = current_.back();
  current_.pop_back();
  return TakeNode(top);
}


}  // namespace efimsim
