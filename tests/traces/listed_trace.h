#pragma once
// A trace given as a list of records, read in the given order: for tests of
// what consumes a TraceReader (the trace-replay client, rate scaling).

#include <deque>
#include <optional>
#include <vector>

#include "traces/trace_reader.h"

namespace efimsim::test {

class ListedTrace : public TraceReader {
 public:
  explicit ListedTrace(std::vector<TraceRecord> records) : left_(records.begin(), records.end()) {}
  const TraceHeader& header() const override { return header_; }

 protected:
  std::optional<TraceRecord> ReadNext() override {
    if (left_.empty()) return std::nullopt;
    TraceRecord next = std::move(left_.front());
    left_.pop_front();
    return next;
  }

 private:
  TraceHeader header_;
  std::deque<TraceRecord> left_;
};

}  // namespace efimsim::test
