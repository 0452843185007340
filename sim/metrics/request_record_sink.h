#pragma once
// Where a run's request records go when they are streamed instead of kept
// (ExperimentConfig::record_sink): one call per finished or cancelled
// request, in request-id order.

#include "sim/metrics/request_record.h"

namespace efimsim {

class RequestRecordSink {
 public:
  virtual ~RequestRecordSink() = default;
  virtual void Add(const RequestRecord& record) = 0;
};

}  // namespace efimsim
