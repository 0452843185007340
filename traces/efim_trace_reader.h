#pragma once
// Streaming reader of the efimsim trace format (JSON Lines, traces/FORMAT.md).
// Memory: one line (<= max_line_bytes) plus one session's text_file.

#include <memory>
#include <string>

#include "traces/trace_reader.h"

namespace efimsim {

class EfimTraceReader : public TraceReader {
 public:
  // Opens `path` (plain or gzip) and reads its header line. Throws
  // InputError when the file cannot be opened or its first line is not a
  // valid header.
  explicit EfimTraceReader(const std::string& path, int64_t max_line_bytes = kDefaultMaxLineBytes);

  const TraceHeader& header() const override { return header_; }
  // Blank lines are skipped. Each record is validated (ValidateRecord),
  // time order is checked, and a session's text_file is loaded (relative to
  // the trace's directory, at most max_line_bytes).
  std::optional<TraceRecord> Next() override;
  int64_t current_line() const override { return lines_.line_number(); }

 private:
  LineReader lines_;
  TraceHeader header_;
  TimeOrderCheck order_;
  std::string line_;
};

}  // namespace efimsim
