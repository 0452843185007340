#pragma once
// Importer of TaskTracker snapshot logs (JetBrains-Research task-tracker:
// CSV with `date`, ISO-8601 with zone and ms, and `fragment`, the whole
// file after each change; multi-line quoted fields). One editing session:
//   - the first row gives SessionStart (time 0, text = its fragment,
//     cursor_bytes = 0 since the log has no cursor; session_id
//     "tasktracker", user_id "tasktracker", document_id = the `fileName`
//     column when present, else "document");
//   - each later row whose fragment differs from the previous one gives
//     the SnapshotDiff between them (snapshot_diff.h: one replaced range)
//     as a `delete` (when bytes were removed) then an `insert` (when text
//     was added), both at the row's time; unchanged rows give nothing;
//   - the session ends (`end`) at the last row's time.
// Times are relative to the first row. Memory: two snapshots.

#include <optional>
#include <string>
#include <vector>

#include "traces/csv_record_reader.h"
#include "traces/trace_reader.h"

namespace efimsim {

class TaskTrackerCsvReader : public TraceReader {
 public:
  // Reads the header row; throws InputError when `date` or `fragment` is missing.
  // A row over max_line_bytes with LongLinePolicy::kSkip is one snapshot
  // skipped (counted in skipped_lines): the next snapshot is diffed against
  // the one before it.
  explicit TaskTrackerCsvReader(const std::string& path,
                                int64_t max_line_bytes = kDefaultMaxLineBytes,
                                LongLinePolicy long_lines = LongLinePolicy::kFail);

  const TraceHeader& header() const override { return header_; }
  // Throws InputError(file, line, column, ...) for a bad date, a fragment
  // that is not UTF-8, or rows out of time order.
  std::optional<TraceRecord> ReadNext() override;
  int64_t current_line() const override { return csv_.record_line(); }

  static constexpr const char* kSessionId = "tasktracker";

 private:
  // Reads rows until one yields records (queued in pending_); false at EOF.
  bool ReadRow();

  CsvRecordReader csv_;
  TraceHeader header_;
  int64_t date_column_ = -1;
  int64_t fragment_column_ = -1;
  int64_t file_name_column_ = -1;
  std::optional<int64_t> first_time_ns_;
  int64_t last_time_ns_ = 0;
  std::string previous_;
  bool started_ = false;
  bool ended_ = false;
  TimeOrderCheck order_;
  std::vector<std::string> fields_;
  std::vector<TraceRecord> pending_;  // at most two, returned front first
  size_t pending_pos_ = 0;
};

}  // namespace efimsim
