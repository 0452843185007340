#include "sim/metrics/request_id_order.h"

#include "sim/base/check.h"

namespace efimsim {

RequestIdOrder::Entry& RequestIdOrder::At(uint64_t request_id) {
  EFIMSIM_CHECK(request_id >= next_id_, "request id ended twice");
  const uint64_t index = request_id - next_id_;
  if (index >= pending_.size()) pending_.resize(index + 1);
  Entry& entry = pending_[index];
  EFIMSIM_CHECK(entry.slot == Slot::kOpen, "request id ended twice");
  return entry;
}

void RequestIdOrder::Add(const RequestRecord& record) {
  Entry& entry = At(record.request_id);
  entry.slot = Slot::kRecord;
  entry.record = record;
  Drain();
}

void RequestIdOrder::Skip(uint64_t request_id) {
  At(request_id).slot = Slot::kSkipped;
  Drain();
}

void RequestIdOrder::Drain() {
  while (!pending_.empty() && pending_.front().slot != Slot::kOpen) {
    if (pending_.front().slot == Slot::kRecord) sink_.Add(pending_.front().record);
    pending_.pop_front();
    ++next_id_;
  }
}

void RequestIdOrder::Finish() const {
  EFIMSIM_CHECK(pending_.empty(), "a request id never ended; records held back");
}

}  // namespace efimsim
