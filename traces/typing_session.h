#pragma once
// One simulated user typing part of a real source file (the typing
// generator's session model, typing_workload.h).
//
// Session: a region of whole lines, about chars_per_session code points
// from a random line start, is removed from the file; the session starts
// with the rest of the file and the cursor where the region was, and the
// user types the region back, so the prefix grows at the cursor and the
// suffix is the real rest of the file (the SessionStart's text_to_type is
// the region, so a client knows what is still to be typed). Per step, with the session's random
// stream, in this order:
//   1. region fully typed: `end`.
//   2. at a line start, with accept_probability: a completion of the next
//      1..accept_max_lines lines (uniform) is shown one keystroke gap later
//      (`completion_shown`) and accepted accept_delay_s after that
//      (`completion_accepted`, inserted at once at the cursor);
//   3. otherwise, with pause_probability, a pause (`idle`, duration
//      Exponential(pause_mean_s)) comes before the keystroke;
//   4. then, with jump_probability, the cursor jumps to a uniform random
//      character boundary of the document (`move_cursor`), stays there
//      Exponential(jump_dwell_mean_s), and jumps back; or, with
//      typo_probability, a wrong letter is typed and deleted (`insert`,
//      `delete` with backspace semantics); or the next code point of the
//      region is typed (`insert`).
// Keystroke gaps are min_keystroke_gap_s + Exponential(1/chars_per_second -
// min_keystroke_gap_s), so the mean is 1/chars_per_second.

#include <cstdint>
#include <deque>
#include <string>

#include "sim/core/random.h"
#include "traces/trace_records.h"

namespace efimsim {

struct TypingBehavior {
  double chars_per_second = 6.0;     // mean typing speed (people: 5-8, docs/semantics.md §6)
  double min_keystroke_gap_s = 0.03;
  double pause_probability = 0.03;   // per keystroke
  double pause_mean_s = 2.0;
  double typo_probability = 0.03;    // per keystroke
  double jump_probability = 0.003;   // per keystroke
  double jump_dwell_mean_s = 3.0;
  double accept_probability = 0.2;   // per line start
  int64_t accept_max_lines = 3;
  double accept_delay_s = 0.4;
  int64_t chars_per_session = 400;   // code points to type, rounded up to whole lines
};

// Throws UsageError naming the first bad field.
void ValidateTypingBehavior(const TypingBehavior& behavior);

class TypingSession {
 public:
  // `document` is the whole source file (valid UTF-8, non-empty); the
  // region is drawn from `rng`, which the session keeps using.
  TypingSession(const TypingBehavior& behavior, RandomStream& rng, std::string document,
                SessionStart start);

  // The SessionStart record (initial text and cursor filled in).
  const SessionStart& start() const { return start_; }
  // Appends the next step's records (one or more, in time order, none
  // earlier than the previous step's) to `out`. Precondition: !finished().
  void Step(std::deque<TraceRecord>& out);
  // True once `end` has been produced.
  bool finished() const { return finished_; }
  // Time of the last record produced.
  int64_t now_ns() const { return now_ns_; }

 private:
  int64_t KeystrokeGapNs();
  int64_t Cursor() const { return static_cast<int64_t>(region_begin_ + typed_); }
  int64_t DocumentSize() const;
  bool IsBoundaryOfCurrentText(int64_t offset) const;
  EditEvent MakeEvent(EditKind kind) const;

  const TypingBehavior& behavior_;
  RandomStream& rng_;
  std::string document_;  // the full target file
  size_t region_begin_ = 0;
  size_t region_end_ = 0;
  size_t typed_ = 0;  // bytes of the region typed so far
  SessionStart start_;
  int64_t now_ns_ = 0;
  bool finished_ = false;
};

}  // namespace efimsim
