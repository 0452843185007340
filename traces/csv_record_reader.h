#pragma once
// Streaming CSV (RFC 4180) record reader: comma-separated fields, fields in
// double quotes may hold commas, newlines and "" (an escaped quote). A "\r"
// before a record's end of line is dropped; inside quotes it is kept.
// Blank lines between records are skipped. Memory is bounded by the maximum
// record size.

#include <cstdint>
#include <string>
#include <vector>

#include "traces/line_reader.h"

namespace efimsim {

class CsvRecordReader {
 public:
  // max_record_bytes bounds one record, all its lines together;
  // `long_records` decides what Read does with a longer one.
  CsvRecordReader(std::string path, int64_t max_record_bytes = kDefaultMaxLineBytes,
                  LongLinePolicy long_records = LongLinePolicy::kFail);

  // Reads the next record's fields (unquoted). Returns false at end of file.
  // Throws InputError(path, line, "", ...) for an unterminated quoted field,
  // a quote inside an unquoted field, text after a closing quote, or a
  // record longer than the maximum (whatever the policy: readers take
  // header rows with Next).
  bool Next(std::vector<std::string>& fields);

  // As Next, but with LongLinePolicy::kSkip a record longer than the
  // maximum (one line of it, or all its lines together) is skipped: its
  // lines are streamed past, following the quotes to the record's end, and
  // kTooLong is returned with `fields` empty and record_line() its first
  // line. A record that opens a quoted field and never closes it still
  // throws, as in Next. With kFail it throws as Next does.
  LineRead Read(std::vector<std::string>& fields);

  // 1-based line on which the record last returned by Next starts.
  int64_t record_line() const { return record_line_; }
  const std::string& path() const { return lines_.path(); }

 private:
  // Gives up the too-long record being read, whose last line read ended
  // inside a quoted field iff `in_quotes`: throws with kFail; with kSkip
  // clears `fields`, reads lines until one ends outside quotes (throwing
  // for a quoted field left open at end of file) and returns kTooLong.
  LineRead AbandonRecord(bool in_quotes, std::vector<std::string>& fields);
  // The InputError for the record at record_line_.
  InputError TooLongError() const;

  LineReader lines_;  // always kSkip: a long line is followed to its record's end
  int64_t max_record_bytes_;
  LongLinePolicy long_records_;
  int64_t record_line_ = 0;
  std::string line_;
};

// Index of `name` in a header row, or -1.
int64_t CsvColumnIndex(const std::vector<std::string>& header, const std::string& name);

}  // namespace efimsim
