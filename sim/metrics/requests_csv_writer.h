#pragma once
// requests.csv written row by row as records arrive (RequestRecordSink),
// for runs too long to keep their records: the same bytes as
// WriteRequestsCsv over the same records in the same order, and, like
// every output, a file that appears under its name only at Commit()
// (destroyed without Commit(), nothing is left behind).

#include <string>

#include "sim/base/atomic_file.h"
#include "sim/metrics/request_record.h"
#include "sim/metrics/request_record_sink.h"

namespace efimsim {

class RequestsCsvWriter : public RequestRecordSink {
 public:
  // Throws OutputError naming the path if it cannot be created.
  explicit RequestsCsvWriter(const std::string& path, RequestColumns columns = {});
  void Add(const RequestRecord& record) override;
  void Commit();

 private:
  void Flush();

  AtomicOutputFile file_;
  RequestColumns columns_;
  std::string buffer_;  // rows not yet handed to the stream
};

}  // namespace efimsim
