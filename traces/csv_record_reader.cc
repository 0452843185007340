#include "traces/csv_record_reader.h"

#include <algorithm>

#include "sim/base/errors.h"

namespace efimsim {

CsvRecordReader::CsvRecordReader(std::string path, int64_t max_record_bytes,
                                 LongLinePolicy long_records)
    : lines_(std::move(path), max_record_bytes, LongLinePolicy::kSkip),
      max_record_bytes_(max_record_bytes),
      long_records_(long_records) {}

bool CsvRecordReader::Next(std::vector<std::string>& fields) {
  switch (Read(fields)) {
    case LineRead::kLine: return true;
    case LineRead::kEndOfFile: return false;
    case LineRead::kTooLong: break;
  }
  throw TooLongError();
}

InputError CsvRecordReader::TooLongError() const {
  return InputError(path(), record_line_, "",
                    "record longer than the maximum of " + std::to_string(max_record_bytes_) +
                        " bytes (raise the max line length if the file is right)");
}

namespace {

// Whether a quoted field is open after a line holding `quotes` '"' bytes,
// given whether one was open before it: every '"' toggles that (an escaped
// "" toggles it twice).
bool QuotesOpenAfter(bool open_before, int64_t quotes) { return open_before != (quotes % 2 != 0); }

}  // namespace

LineRead CsvRecordReader::AbandonRecord(bool in_quotes, std::vector<std::string>& fields) {
  if (long_records_ == LongLinePolicy::kFail) throw TooLongError();
  fields.clear();
  while (in_quotes) {
    switch (lines_.Read(line_)) {
      case LineRead::kEndOfFile:
        throw InputError(path(), record_line_, "", "unterminated quoted field");
      case LineRead::kTooLong:
        in_quotes = QuotesOpenAfter(true, lines_.skipped_line_quotes());
        break;
      case LineRead::kLine:
        in_quotes = QuotesOpenAfter(true, std::count(line_.begin(), line_.end(), '"'));
        break;
    }
  }
  return LineRead::kTooLong;
}

LineRead CsvRecordReader::Read(std::vector<std::string>& fields) {
  fields.clear();
  LineRead first;
  do {
    first = lines_.Read(line_);
    if (first == LineRead::kEndOfFile) return first;
  } while (first == LineRead::kLine && (line_.empty() || line_ == "\r"));
  record_line_ = lines_.line_number();
  if (first == LineRead::kTooLong) {
    return AbandonRecord(QuotesOpenAfter(false, lines_.skipped_line_quotes()), fields);
  }

  std::string field;
  int64_t record_bytes = static_cast<int64_t>(line_.size());
  bool in_quotes = false;
  bool after_quotes = false;  // a quoted field has closed; only ',' or end may follow
  bool field_was_quoted = false;
  size_t i = 0;
  while (true) {
    if (i == line_.size()) {
      if (in_quotes) {
        // The quoted field goes on on the next line.
        field.push_back('\n');
        const LineRead next = lines_.Read(line_);
        if (next == LineRead::kEndOfFile) {
          throw InputError(path(), record_line_, "", "unterminated quoted field");
        }
        if (next == LineRead::kTooLong) {
          return AbandonRecord(QuotesOpenAfter(true, lines_.skipped_line_quotes()), fields);
        }
        record_bytes += static_cast<int64_t>(line_.size()) + 1;
        if (record_bytes > max_record_bytes_) {
          return AbandonRecord(QuotesOpenAfter(true, std::count(line_.begin(), line_.end(), '"')),
                               fields);
        }
        i = 0;
        continue;
      }
      if (!field_was_quoted && !field.empty() && field.back() == '\r') field.pop_back();
      fields.push_back(std::move(field));
      return LineRead::kLine;
    }
    const char c = line_[i++];
    if (in_quotes) {
      if (c != '"') {
        field.push_back(c);
      } else if (i < line_.size() && line_[i] == '"') {
        field.push_back('"');
        ++i;
      } else {
        in_quotes = false;
        after_quotes = true;
      }
    } else if (c == ',') {
      fields.push_back(std::move(field));
      field.clear();
      after_quotes = false;
      field_was_quoted = false;
    } else if (after_quotes) {
      if (c == '\r' && i == line_.size()) continue;
      throw InputError(path(), lines_.line_number(), "",
                       "text after a closing quote in field " + std::to_string(fields.size() + 1));
    } else if (c == '"') {
      if (!field.empty()) {
        throw InputError(path(), lines_.line_number(), "",
                         "quote inside unquoted field " + std::to_string(fields.size() + 1));
      }
      in_quotes = true;
      field_was_quoted = true;
    } else {
      field.push_back(c);
    }
  }
}

int64_t CsvColumnIndex(const std::vector<std::string>& header, const std::string& name) {
  for (size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return static_cast<int64_t>(i);
  }
  return -1;
}

}  // namespace efimsim
