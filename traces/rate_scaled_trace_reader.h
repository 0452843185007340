#pragma once
// Open-loop load for traces: the same trace at another arrival rate
// (`efimsim --rate-scale X`). X > 1 compresses arrivals (X times the rate),
// X < 1 stretches them.
//
// What is scaled, exactly (integer nanoseconds):
//   - a request record's arrival_ns and a session's time_ns (the moments
//     something arrives) become ScaleTimeNs(t, X) = llround(t / X), the
//     quotient computed in IEEE double: exact whenever t / X is an integer
//     and t < 2^53 ns (104 days); otherwise within 0.5 ns of t / X, so a gap
//     between two arrivals is within 1 ns of the gap / X;
//   - an edit of a session keeps its offset from its session's start:
//     edit' = start' + (edit - start), exactly, so typing speed, pauses and
//     idle durations are those recorded (sessions keep their internal
//     timing); an edit naming no open session is scaled like an arrival
//     (the consumer then reports the unknown session).
// Time 0 stays 0 (traces start at 0). Request records are arrivals even
// when they carry a session_id.
//
// Order: scaled arrivals and unscaled in-session offsets can overtake each
// other, so records are re-sorted by (scaled time, input order) through a
// buffer that releases a record once no later input can come before it:
// the bound is min(ScaleTimeNs(T), T + min over open sessions of
// (start' - start)) for T the time of the last record read. Memory: the
// open sessions plus the records between that bound and the input; with
// X >= 1 and sessions that end (an `end` event) this stays small; a
// stretched trace whose sessions never end buffers more as it goes.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

#include "traces/trace_reader.h"

namespace efimsim {

// llround(time_ns / rate_scale) in double; throws UsageError when the
// result does not fit in int64.
int64_t ScaleTimeNs(int64_t time_ns, double rate_scale);

class RateScaledTraceReader : public TraceReader {
 public:
  // rate_scale > 0 and finite (UsageError naming --rate-scale otherwise).
  RateScaledTraceReader(std::unique_ptr<TraceReader> inner, double rate_scale);

  const TraceHeader& header() const override { return inner_->header(); }
  std::optional<TraceRecord> ReadNext() override;
  int64_t current_line() const override { return current_line_; }

 private:
  struct Pending {
    int64_t time_ns;
    uint64_t sequence;  // input order, for ties
    int64_t line;
    TraceRecord record;
  };
  struct Later {
    bool operator()(const Pending& a, const Pending& b) const {
      return a.time_ns != b.time_ns ? a.time_ns > b.time_ns : a.sequence > b.sequence;
    }
  };
  // No record read later can have a scaled time below this.
  int64_t ReleaseBound() const;
  void Read(TraceRecord record);

  std::unique_ptr<TraceReader> inner_;
  double rate_scale_;
  std::priority_queue<Pending, std::vector<Pending>, Later> pending_;
  // Open sessions: session id -> start' - start (ns), and those shifts
  // counted, for their minimum.
  std::unordered_map<std::string, int64_t> session_shift_ns_;
  std::map<int64_t, int64_t> shift_counts_;
  int64_t input_time_ns_ = 0;  // time of the last record read
  uint64_t sequence_ = 0;
  int64_t current_line_ = 0;
  bool input_done_ = false;
};

}  // namespace efimsim
