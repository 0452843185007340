#pragma once
// Streaming reader of the efimsim trace format (JSON Lines, traces/FORMAT.md).
// Memory: one line (<= max_line_bytes) plus one session's text_file.

#include <memory>
#include <string>
#include <unordered_set>

#include "traces/trace_reader.h"

namespace efimsim {

class EfimTraceReader : public TraceReader {
 public:
  // Opens `path` (plain or gzip) and reads its header line. Throws
  // InputError when the file cannot be opened or its first line is not a
  // valid header.
  explicit EfimTraceReader(const std::string& path, int64_t max_line_bytes = kDefaultMaxLineBytes,
                           LongLinePolicy long_lines = LongLinePolicy::kFail);

  const TraceHeader& header() const override { return header_; }
  // Blank lines are skipped. Each record is validated (ValidateRecord),
  // time order is checked, and a session's text_file is loaded (relative to
  // the trace's directory, at most max_line_bytes).
  //
  // A line over max_line_bytes with LongLinePolicy::kSkip (the header line
  // excepted: it always throws) is skipped, and what its first bytes
  // (ReadSkippedLineHead) say it held decides what goes with it:
  //  - a request: nothing else;
  //  - a session: every later record naming that session is dropped;
  //  - an edit: the session ends there (an `end` event is returned in its
  //    place, at its time when the head gives one and it is in order, else
  //    at the previous record's time), and later records naming it are
  //    dropped.
  // A line whose head does not say its type, or a session's or edit's
  // session_id, throws InputError as with kFail.
  std::optional<TraceRecord> ReadNext() override;
  int64_t current_line() const override { return lines_.line_number(); }

 private:
  // The record in place of the skipped line in line_ (its head), if any;
  // nullopt when it is skipped without a trace. Throws when the head says
  // too little.
  std::optional<TraceRecord> SkipLine();

  LineReader lines_;
  TraceHeader header_;
  TimeOrderCheck order_;
  std::string line_;
  // Sessions cut by a skipped line: their later records are dropped.
  std::unordered_set<std::string> cut_sessions_;
};

}  // namespace efimsim
