#pragma once
// A trace already in memory: its header and records, read in the given
// order. The records are shared, not copied, by every reader of them (a
// sweep's or capacity search's runs each open one). For runs whose
// requests a command holds already (validate-serving replays a real run's
// requests) and for tests of what consumes a TraceReader.

#include <cstddef>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "traces/trace_reader.h"

namespace efimsim {

struct TraceInMemory {
  TraceHeader header;
  std::vector<TraceRecord> records;  // in non-decreasing RecordTimeNs order
};

class ListedTraceReader : public TraceReader {
 public:
  explicit ListedTraceReader(std::shared_ptr<const TraceInMemory> trace)
      : trace_(std::move(trace)) {}
  // A trace of `records` with a default header.
  explicit ListedTraceReader(std::vector<TraceRecord> records)
      : trace_(std::make_shared<const TraceInMemory>(TraceInMemory{{}, std::move(records)})) {}

  const TraceHeader& header() const override { return trace_->header; }

 protected:
  std::optional<TraceRecord> ReadNext() override {
    if (next_ == trace_->records.size()) return std::nullopt;
    return trace_->records[next_++];
  }

 private:
  std::shared_ptr<const TraceInMemory> trace_;
  size_t next_ = 0;
};

}  // namespace efimsim
