#pragma once
// The interface every trace source implements: the efimsim JSON Lines
// reader, the importers (Azure CSV, Mooncake JSONL, TaskTracker CSV,
// HumanEval infilling JSONL.gz) and the typing generator. A consumer
// (`efimsim replay --trace`, `efimsim convert`) pulls records one at a time;
// no source holds the whole trace in memory.

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

#include "sim/base/errors.h"
#include "traces/line_reader.h"
#include "traces/trace_limits.h"
#include "traces/trace_records.h"

namespace efimsim {

class TraceReader {
 public:
  virtual ~TraceReader() = default;

  // The trace's header (read or synthesized when the reader was opened).
  virtual const TraceHeader& header() const = 0;

  // The next record, or nullopt after the last. Records come in
  // non-decreasing RecordTimeNs order; events of one session in the order
  // they happened. Throws InputError (file, 1-based line, field) on bad input.
  // (Counts the record in records_read(); sources implement ReadNext.)
  std::optional<TraceRecord> Next() {
    std::optional<TraceRecord> record = ReadNext();
    if (record) {
      if (std::holds_alternative<TraceRequest>(*record)) {
        ++counts_.requests;
      } else if (std::holds_alternative<SessionStart>(*record)) {
        ++counts_.sessions;
      } else {
        ++counts_.edits;
      }
    }
    return record;
  }

  // The records Next has returned so far, by kind. After Next returned
  // nullopt, `empty()` says the trace held no record at all: a header-only
  // file, or one whose every line was skipped (skipped_lines()), so a run on
  // it has nothing to measure. (A trace of sessions alone makes requests
  // only if the client model turns its edits into some.)
  struct RecordCounts {
    int64_t requests = 0;
    int64_t sessions = 0;
    int64_t edits = 0;
    bool empty() const { return requests == 0 && sessions == 0 && edits == 0; }
  };
  const RecordCounts& records_read() const { return counts_; }

  // 1-based line (first line of the CSV record) of the input the record
  // last returned by Next came from, for consumers' InputErrors about it
  // (unknown session, edit outside the document); 0 when the source is not
  // a line-based file or cannot say (HumanEval lanes, typing generator).
  virtual int64_t current_line() const { return 0; }

  // Lines (or CSV records) over the maximum length that the reader skipped
  // (LongLinePolicy::kSkip), and the records dropped with them because they
  // depended on a skipped line (the later events of a session whose
  // session or edit line was skipped). Zero with kFail, which throws instead.
  struct SkippedLines {
    int64_t lines = 0;
    int64_t dependent_records = 0;
    int64_t first_line = 0;   // 1-based line of the first skipped line; 0 if none
    std::string first_what;   // what was skipped there, e.g. "a request", "session 'u1-s0'"
  };
  const SkippedLines& skipped_lines() const { return skipped_; }

 protected:
  // The next record of the source (see Next).
  virtual std::optional<TraceRecord> ReadNext() = 0;

  // Reads the next non-blank line of `lines` into `line`, skipping (and
  // counting) lines too long to read, each of which held `what`; false at
  // the end of the file.
  bool ReadNonBlankLine(LineReader& lines, std::string& line, const std::string& what) {
    while (true) {
      const LineRead read = lines.Read(line);
      if (read == LineRead::kEndOfFile) return false;
      if (read == LineRead::kTooLong) {
        NoteSkippedLine(lines.line_number(), what);
        continue;
      }
      if (line.find_first_not_of(" \t\r") != std::string::npos) return true;
    }
  }

  // Counts the skipped line `line`, which held `what`.
  void NoteSkippedLine(int64_t line, const std::string& what) {
    if (skipped_.lines++ == 0) {
      skipped_.first_line = line;
      skipped_.first_what = what;
    }
  }
  SkippedLines skipped_;

 private:
  RecordCounts counts_;
};

// Rejects a time that goes back, or one at or beyond kMaxTraceTimeNs
// (trace_limits.h): every reader checks its records with one.
class TimeOrderCheck {
 public:
  void Check(int64_t time_ns, const std::string& file, int64_t line, const std::string& field) {
    if (std::optional<std::string> problem = TraceTimeProblem(time_ns)) {
      throw InputError(file, line, field, *problem);
    }
    if (time_ns < last_time_ns_) {
      throw InputError(file, line, field,
                       std::to_string(time_ns) + " ns is before the previous record's " +
                           std::to_string(last_time_ns_) +
                           " ns; records must be sorted by time (FORMAT.md)");
    }
    last_time_ns_ = time_ns;
  }
  // The time of the last record checked (0 before the first).
  int64_t last_time_ns() const { return last_time_ns_; }

 private:
  int64_t last_time_ns_ = 0;
};

}  // namespace efimsim
