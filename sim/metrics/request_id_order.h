#pragma once
// Puts request records back into request-id order as requests end in any
// order, so that streamed outputs have the rows that sorting all records
// would give.
//
// Contract: request ids are 0, 1, 2, ... (clients number them in sending
// order) and every id ends exactly once, as a record (Add) or as a request
// that never ran (Skip: rejected at submission). A record is passed on as
// soon as every lower id has ended, so memory is bounded by the span of ids
// still in flight, not by the run's length.

#include <cstdint>
#include <deque>

#include "sim/metrics/request_record_sink.h"

namespace efimsim {

class RequestIdOrder {
 public:
  explicit RequestIdOrder(RequestRecordSink& sink) : sink_(sink) {}

  void Add(const RequestRecord& record);
  void Skip(uint64_t request_id);
  // Ids ended but held back behind a lower one still in flight.
  int64_t held() const { return static_cast<int64_t>(pending_.size()); }
  // Checks that nothing is held back (every id below the highest ended).
  void Finish() const;

 private:
  enum class Slot : uint8_t { kOpen, kRecord, kSkipped };
  struct Entry {
    Slot slot = Slot::kOpen;
    RequestRecord record;
  };
  Entry& At(uint64_t request_id);
  void Drain();

  RequestRecordSink& sink_;
  uint64_t next_id_ = 0;       // the lowest id not yet passed on
  std::deque<Entry> pending_;  // pending_[i] is id next_id_ + i
};

}  // namespace efimsim
