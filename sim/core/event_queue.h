#pragma once
// The pending-event set, after ns-3's Scheduler: a small interface with its
// ordering law stated once (EventPopsBefore in event.h).
//
// Laws every implementation keeps:
//  - Pop() returns the pending event that pops before all others.
//  - Push() assigns the next sequence number; sequence numbers of one queue
//    are strictly increasing in push order and never reused.
//  - Push() requires event.time >= the time of the last popped event
//    (simulated time never goes backwards; the Simulator guarantees it).
//    A violation, and Pop() on an empty queue, are checked precondition
//    violations (InternalError).
//
// Implementation: a monotone radix heap on the time (Ahuja, Mehlhorn, Orlin
// and Tarjan 1990) with 256-way digits, in front of a small binary heap for
// the current instant. A discrete-event simulator pops times in
// non-decreasing order, which is exactly the radix heap's precondition. An
// event whose time first differs from the last popped time at 8-bit digit L
// waits in bucket (L, that digit); a push is O(1) (one count-leading-zeros),
// and each event moves down at most once per level (spans below 2^24 ns use
// three levels) before it reaches the current instant. Events at the current
// instant (time == the last popped time) live in `current_`, ordered by
// (class, sequence), so the full EventPopsBefore order is kept.
//
// Level 0 (one nanosecond per digit) is one contiguous array of 256 events,
// one per digit, with the rare further events at the same nanosecond in a
// side list per digit. A level-0 digit holds 0 or 1 events in the common
// case, and when each was a vector of its own, the 256 vectors scattered
// those events over memory and pops waited on cache misses
// (BM_EventQueuePushPop at 10^5 pending).

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/event.h"

namespace efimsim {

class EventQueue {
 public:
  // Returns the sequence number given to the event. Inline: the hot path.
  uint64_t Push(const Event& event) {
    const int64_t time_ns = ToNanoseconds(event.time);
    if (time_ns < 0 || static_cast<uint64_t>(time_ns) < last_time_ns_) [[unlikely]] {
      FailPushBeforeLastPop();
    }
    // 2^56 sequence numbers: centuries of pushes at 10^9 per second.
    const uint64_t sequence = next_sequence_++;
    const Node node{static_cast<uint64_t>(time_ns),
                    static_cast<uint64_t>(event.event_class) << kSequenceBits | sequence,
                    event.handler, event.payload};
    if (node.time_ns == last_time_ns_) {
      PushCurrent(node);
    } else if ((node.time_ns ^ last_time_ns_) >> kDigitBits == 0) {
      PushLevelZero(node);
    } else {
      PushBucket(node);
    }
    ++size_;
    return sequence;
  }
  // Inline for the common case: the next instant is a level-0 digit with
  // one event.
  Event Pop() {
    if (current_.empty() && (nonempty_levels_ & 1) != 0) {
      const int word = std::countr_zero(nonempty_words_[0]);
      uint64_t& bits = nonempty_digits_[0][static_cast<size_t>(word)];
      const uint64_t lowest = bits & (~bits + 1);
      if ((level_zero_has_more_[static_cast<size_t>(word)] & lowest) == 0) [[likely]] {
        const int digit = word * 64 + std::countr_zero(bits);
        bits ^= lowest;
        if (bits == 0) {
          nonempty_words_[0] &= nonempty_words_[0] - 1;
          if (nonempty_words_[0] == 0) nonempty_levels_ &= ~uint32_t{1};
        }
        const Node& node = level_zero_[static_cast<size_t>(digit)];
        last_time_ns_ = node.time_ns;
        return TakeNode(node);
      }
    }
    return PopSlow();
  }
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }

 private:
  static constexpr int kDigitBits = 8;
  static constexpr int kDigits = 1 << kDigitBits;            // buckets per level
  static constexpr int kLevels = (64 + kDigitBits - 1) / kDigitBits;
  static constexpr int kSequenceBits = 56;

  // An event as stored: 32 bytes (Event is 40), class and sequence packed
  // so that comparing `order` compares (class, sequence).
  struct Node {
    uint64_t time_ns;
    uint64_t order;  // class << kSequenceBits | sequence
    EventHandler* handler;
    uint64_t payload;
  };

  // Heap order of current_ for std::push_heap/pop_heap (a max-heap of this
  // "less"): true if `a` pops after `b`. Both are at the same time.
  static bool PopsAfterAtSameTime(const Node& a, const Node& b) { return a.order > b.order; }
  // Sets bit `digit` of level `level` in the non-empty bitmaps.
  void MarkNonEmpty(int level, int digit) {
    nonempty_levels_ |= uint32_t{1} << level;
    nonempty_digits_[static_cast<size_t>(level)][static_cast<size_t>(digit / 64)] |=
        uint64_t{1} << (digit % 64);
    nonempty_words_[static_cast<size_t>(level)] |= uint64_t{1} << (digit / 64);
  }
  // Precondition: time_ns > last_time_ns_, and they agree above the lowest
  // digit. The digit's slot takes the event, or the digit's side list if
  // the slot holds one already (then both are at the same nanosecond).
  void PushLevelZero(const Node& node) {
    const int digit = static_cast<int>(node.time_ns) & (kDigits - 1);
    uint64_t& word = nonempty_digits_[0][static_cast<size_t>(digit / 64)];
    const uint64_t bit = uint64_t{1} << (digit % 64);
    if ((word & bit) == 0) [[likely]] {
      level_zero_[static_cast<size_t>(digit)] = node;
      MarkNonEmpty(0, digit);
    } else {
      level_zero_more_[static_cast<size_t>(digit)].push_back(node);
      level_zero_has_more_[static_cast<size_t>(digit / 64)] |= bit;
    }
  }
  // Precondition: time_ns > last_time_ns_, differing above the lowest digit.
  void PushBucket(const Node& node) {
    const int highest_differing_bit = 63 - std::countl_zero(node.time_ns ^ last_time_ns_);
    const int level = highest_differing_bit / kDigitBits;
    const int digit = static_cast<int>(node.time_ns >> (level * kDigitBits)) & (kDigits - 1);
    buckets_[static_cast<size_t>(level * kDigits + digit)].push_back(node);
    MarkNonEmpty(level, digit);
  }
  // Throws InternalError (out of line: keeps Push small).
  [[noreturn]] static void FailPushBeforeLastPop();
  void PushCurrent(const Node& node);
  // Moves the clock to the next instant (the earliest pending time). Returns
  // true with the only event at it in `only`, or false with every event at
  // it in current_ (not yet in heap order). Events of the bucket it split
  // moved to lower levels. Precondition: current_ empty, size_ > 0.
  bool AdvanceToNextInstant(Node& only);
  // Counts `node` out of the queue and returns it as an Event.
  Event TakeNode(const Node& node) {
    --size_;
    Event event;
    event.time = TimePoint{Nanoseconds(static_cast<int64_t>(node.time_ns))};
    event.event_class = static_cast<EventClass>(node.order >> kSequenceBits);
    event.sequence = node.order & ((uint64_t{1} << kSequenceBits) - 1);
    event.handler = node.handler;
    event.payload = node.payload;
    return event;
  }
  // Pop when the inline case does not apply.
  Event PopSlow();

  uint64_t last_time_ns_ = 0;  // time of the last popped instant
  size_t size_ = 0;
  uint64_t next_sequence_ = 0;
  uint32_t nonempty_levels_ = 0;                    // bit L: level L has events
  static constexpr int kWordsPerLevel = kDigits / 64;
  static_assert(kWordsPerLevel >= 1 && kWordsPerLevel <= 64);
  // Bit d % 64 of word [L][d / 64]: bucket (L, d) has events. Bit w of
  // nonempty_words_[L]: word [L][w] is non-zero.
  std::array<std::array<uint64_t, kWordsPerLevel>, kLevels> nonempty_digits_{};
  std::array<uint64_t, kLevels> nonempty_words_{};
  std::vector<Node> current_;                        // binary min-heap by `order`
  // Bucket (L, d) at index L * kDigits + d, for L >= 1.
  std::array<std::vector<Node>, kLevels * kDigits> buckets_;
  // Level 0: the event of digit d, valid where bit d of nonempty_digits_[0]
  // is set; further events of digit d (same nanosecond) in
  // level_zero_more_[d], flagged by bit d of level_zero_has_more_. Those
  // lists are rarely used, so their scattered memory costs nothing.
  std::array<Node, kDigits> level_zero_{};
  std::array<std::vector<Node>, kDigits> level_zero_more_;
  std::array<uint64_t, kWordsPerLevel> level_zero_has_more_{};
};

}  // namespace efimsim
