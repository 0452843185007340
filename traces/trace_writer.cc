#include "traces/trace_writer.h"

#include "sim/base/errors.h"
#include "traces/trace_io.h"

namespace efimsim {

TraceWriter::TraceWriter(std::ostream& out, const TraceHeader& header) : out_(out) {
  if (header.schema_version != kTraceSchemaVersion) {
    throw OutputError("trace writer: schema_version must be " +
                      std::to_string(kTraceSchemaVersion));
  }
  out_ << FormatTraceHeaderLine(header) << '\n';
}

void TraceWriter::Write(const TraceRecord& record) {
  const std::string where = "trace writer: record " + std::to_string(records_written_ + 1);
  if (const std::optional<FieldProblem> problem = ValidateRecord(record)) {
    throw OutputError(where + ": field '" + problem->field + "': " + problem->problem);
  }
  const int64_t time_ns = RecordTimeNs(record);
  if (time_ns < last_time_ns_) {
    throw OutputError(where + ": time " + std::to_string(time_ns) +
                      " ns is before the previous record's " + std::to_string(last_time_ns_) +
                      " ns; records must be sorted by time");
  }
  last_time_ns_ = time_ns;
  out_ << FormatTraceRecordLine(record) << '\n';
  if (!out_) throw OutputError(where + ": write failed");
  ++records_written_;
}

}  // namespace efimsim
