#include "traces/tasktracker_csv_reader.h"

#include <algorithm>

#include "traces/civil_time.h"
#include "traces/snapshot_diff.h"
#include "traces/utf8_text.h"

namespace efimsim {

TaskTrackerCsvReader::TaskTrackerCsvReader(const std::string& path, int64_t max_line_bytes,
                                           LongLinePolicy long_lines)
    : csv_(path, max_line_bytes, long_lines) {
  if (!csv_.Next(fields_)) throw InputError(path, 1, "", "empty file: expected a CSV header");
  date_column_ = CsvColumnIndex(fields_, "date");
  fragment_column_ = CsvColumnIndex(fields_, "fragment");
  file_name_column_ = CsvColumnIndex(fields_, "fileName");
  if (date_column_ < 0) throw InputError(path, 1, "date", "column missing from the CSV header");
  if (fragment_column_ < 0) {
    throw InputError(path, 1, "fragment", "column missing from the CSV header");
  }
  header_.source = "tasktracker-csv";
  header_.description = "imported from " + path +
                        "; edits are common-prefix/suffix diffs of consecutive snapshots";
}

bool TaskTrackerCsvReader::ReadRow() {
  while (true) {
    const LineRead read = csv_.Read(fields_);
    if (read == LineRead::kEndOfFile) return false;
    if (read == LineRead::kLine) break;
    NoteSkippedLine(csv_.record_line(), "a snapshot (the next one is diffed against the one before)");
  }
  const std::string& file = csv_.path();
  const int64_t line = csv_.record_line();
  if (static_cast<int64_t>(fields_.size()) <= std::max(date_column_, fragment_column_)) {
    throw InputError(file, line, "", "row has only " + std::to_string(fields_.size()) + " fields");
  }
  const std::string& date = fields_[static_cast<size_t>(date_column_)];
  const std::optional<int64_t> time = ParseCivilTimeNs(date);
  if (!time) {
    throw InputError(file, line, "date",
                     "'" + date + "' is not an ISO-8601 time like 2019-12-20T13:47:36.596+03:00");
  }
  if (!first_time_ns_) first_time_ns_ = *time;
  int64_t time_ns = 0;
  if (__builtin_sub_overflow(*time, *first_time_ns_, &time_ns)) {
    throw InputError(file, line, "date", "more than 292 years after the first snapshot");
  }
  order_.Check(time_ns, file, line, "date");
  last_time_ns_ = time_ns;
  std::string& fragment = fields_[static_cast<size_t>(fragment_column_)];
  if (!IsValidUtf8(fragment)) throw InputError(file, line, "fragment", "not valid UTF-8");

  pending_.clear();
  pending_pos_ = 0;
  if (!started_) {
    started_ = true;
    SessionStart session;
    session.time_ns = time_ns;
    session.session_id = kSessionId;
    session.user_id = kSessionId;
    session.document_id = "document";
    if (file_name_column_ >= 0 && static_cast<int64_t>(fields_.size()) > file_name_column_ &&
        !fields_[static_cast<size_t>(file_name_column_)].empty()) {
      if (!IsValidUtf8(fields_[static_cast<size_t>(file_name_column_)])) {
        throw InputError(file, line, "fileName", "not valid UTF-8");
      }
      session.document_id = fields_[static_cast<size_t>(file_name_column_)];
    }
    session.text = fragment;
    pending_.push_back(std::move(session));
  } else {
    SnapshotDiff diff = DiffSnapshots(previous_, fragment);
    if (diff.deleted_bytes > 0) {
      EditEvent del;
      del.time_ns = time_ns;
      del.session_id = kSessionId;
      del.kind = EditKind::kDelete;
      del.offset_bytes = diff.offset_bytes;
      del.length_bytes = diff.deleted_bytes;
      pending_.push_back(std::move(del));
    }
    if (!diff.inserted.empty()) {
      EditEvent insert;
      insert.time_ns = time_ns;
      insert.session_id = kSessionId;
      insert.kind = EditKind::kInsert;
      insert.offset_bytes = diff.offset_bytes;
      insert.text = std::move(diff.inserted);
      pending_.push_back(std::move(insert));
    }
  }
  previous_ = std::move(fragment);
  return true;
}

std::optional<TraceRecord> TaskTrackerCsvReader::ReadNext() {
  while (pending_pos_ == pending_.size()) {
    if (!ReadRow()) {
      if (!started_ || ended_) return std::nullopt;
      ended_ = true;
      EditEvent end;
      end.time_ns = last_time_ns_;
      end.session_id = kSessionId;
      end.kind = EditKind::kEnd;
      return end;
    }
  }
  return std::move(pending_[pending_pos_++]);
}

}  // namespace efimsim
