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
    } else {
      PushBucket(node);
    }
    ++size_;
    return sequence;
  }
  Event Pop();
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
  // Precondition: time_ns > last_time_ns_.
  void PushBucket(const Node& node) {
    const int highest_differing_bit = 63 - std::countl_zero(node.time_ns ^ last_time_ns_);
    const int level = highest_differing_bit / kDigitBits;
    const int digit = static_cast<int>(node.time_ns >> (level * kDigitBits)) & (kDigits - 1);
    buckets_[static_cast<size_t>(level * kDigits + digit)].push_back(node);
    nonempty_levels_ |= uint32_t{1} << level;
    nonempty_digits_[static_cast<size_t>(level)][static_cast<size_t>(digit / 64)] |=
        uint64_t{1} << (digit % 64);
    nonempty_words_[static_cast<size_t>(level)] |= uint64_t{1} << (digit / 64);
  }
  // Throws InternalError (out of line: keeps Push small).
  [[noreturn]] static void FailPushBeforeLastPop();
  void PushCurrent(const Node& node);
  // Moves the clock to the next instant (the earliest pending time) and
  // returns the vector holding every event at it: a level-0 bucket, a bucket
  // of one event, or current_ (not yet in heap order). Events of the bucket
  // it split moved to lower levels. Precondition: current_ empty, size_ > 0.
  std::vector<Node>* AdvanceToNextInstant();
  // Counts `node` out of the queue and returns it as an Event.
  Event TakeNode(const Node& node);

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
  std::array<std::vector<Node>, kLevels * kDigits> buckets_;
};

}  // namespace efimsim
