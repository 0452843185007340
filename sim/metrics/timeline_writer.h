#pragma once
// A run's timeline as a Chrome trace-event JSON file (opens in Perfetto,
// ui.perfetto.dev, and chrome://tracing).
//
// Layout: process 1 "replicas" has one track (thread) per replica with one
// complete ("X") event per engine step, args: tokens, prefill and decode
// sequence counts, preempted requests, KV blocks used/total and usage.
// Process 2 "sessions" has one track per user (session) with one "X" event
// per request from its arrival at the engine to its last token (or its
// abort, marked "cancelled": true). Timestamps are microseconds with
// nanosecond precision (three decimals), taken from integer ns.
//
// Events are streamed to the file as they happen (memory is bounded by the
// number of tracks, not the run's length) and the file appears under its
// name only at Commit() (sim/base/atomic_file.h); destroyed without
// Commit(), nothing is left behind. Same events in the same order give the
// same bytes.

#include <cstdint>
#include <memory>
#include <set>
#include <string>

#include "sim/base/atomic_file.h"
#include "sim/base/time.h"
#include "sim/metrics/request_record.h"

namespace efimsim {

struct TimelineStep {
  int32_t replica = 0;
  TimePoint start;
  TimePoint end;
  int64_t tokens = 0;
  int64_t prefill_sequences = 0;
  int64_t decode_sequences = 0;
  int64_t preempted = 0;
  int64_t kv_used_blocks = 0;
  int64_t kv_total_blocks = 0;
};

class TimelineWriter {
 public:
  // Opens the temporary file and names `replicas` replica tracks. Throws
  // OutputError naming the path when it cannot be created.
  TimelineWriter(const std::string& path, int32_t replicas);
  ~TimelineWriter();
  TimelineWriter(const TimelineWriter&) = delete;
  TimelineWriter& operator=(const TimelineWriter&) = delete;

  void AddStep(const TimelineStep& step);
  // A finished or cancelled request (its user is its session track).
  void AddRequest(const RequestRecord& request);
  // Closes the JSON document and renames the file into place.
  void Commit();

 private:
  void BeginEvent();
  void NameTrack(int pid, int64_t tid, const std::string& name);

  AtomicOutputFile file_;
  std::set<int64_t> named_sessions_;
  bool first_event_ = true;
};

}  // namespace efimsim
