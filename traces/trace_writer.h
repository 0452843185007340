#pragma once
// Writes an efimsim trace (JSON Lines, traces/FORMAT.md): exactly what
// EfimTraceReader reads back. Deterministic: the same records give the same
// bytes (fields in a fixed order, block keys as decimal strings).
//
// Usage, for a file written completely or not at all:
//   AtomicOutputFile file(path);
//   TraceWriter writer(file.stream(), header);
//   while (auto record = reader.Next()) writer.Write(*record);
//   file.Commit();

#include <cstdint>
#include <ostream>

#include "traces/trace_reader.h"
#include "traces/trace_records.h"

namespace efimsim {

class TraceWriter {
 public:
  // Writes the header line at once.
  TraceWriter(std::ostream& out, const TraceHeader& header);

  // Appends one record line. Throws OutputError (naming the record number,
  // field and problem) for a record the reader would reject: one failing
  // ValidateRecord, or one earlier than the previous record. A session with
  // text_file is written as a reference; the writer does not write the file.
  void Write(const TraceRecord& record);

  int64_t records_written() const { return records_written_; }

 private:
  std::ostream& out_;
  int64_t records_written_ = 0;
  int64_t last_time_ns_ = 0;
};

}  // namespace efimsim
