#pragma once
// Importer of HumanEval infilling tasks (openai/human-eval-infilling,
// *.jsonl or *.jsonl.gz): `task_id`, `prompt` (the prefix), `suffix`,
// `canonical_solution` (the middle); other fields (`test`, ...) are ignored
// and never executed. Each task becomes one editing session:
//   - SessionStart: text = prompt + suffix, cursor_bytes = prompt's size,
//     session_id = document_id = task_id, user_id = "humaneval-<lane>",
//     text_to_type = canonical_solution (not written by `convert`);
//   - the middle is typed at the cursor, one `insert` per code point, every
//     1 / chars_per_second seconds (rounded to ns), the first one interval
//     after the session starts;
//   - `end` session_gap_ns after the last insert (the user stays to read the
//     suggestion, so a debouncing client still asks for one).
// Tasks are dealt to `users` lanes in file order: each lane types its tasks
// one after another, the next starting when the previous ended; all lanes
// start at time 0. Records of concurrent lanes are merged
// by (time, lane). Memory: one task per lane.

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "traces/trace_reader.h"

namespace efimsim {

struct HumanEvalTask {
  std::string task_id;
  std::string prompt;
  std::string suffix;
  std::string canonical_solution;
};
// The JSON half (humaneval_line_io.cc). Throws InputError(file, line, field, ...).
HumanEvalTask ParseHumanEvalLine(std::string_view line, const std::string& file,
                                 int64_t line_number);

struct HumanEvalImportOptions {
  double chars_per_second = 6.0;                 // > 0, and 1 / it < 2^62 ns
  int64_t users = 1;                             // concurrent typists, 1..kMaxHumanEvalUsers
  int64_t session_gap_ns = 1000000000;           // in [0, 2^62), last keystroke -> end of the task
};
// Each lane holds a task's records; a million lanes is far more typists than
// HumanEval's 1,033 tasks can keep busy.
inline constexpr int64_t kMaxHumanEvalUsers = 1000000;

class HumanEvalReader : public TraceReader {
 public:
  // Throws UsageError for bad options, InputError when the file cannot be opened.
  // A line over max_line_bytes with LongLinePolicy::kSkip is one task
  // skipped (counted in skipped_lines): its session never starts.
  HumanEvalReader(const std::string& path, HumanEvalImportOptions options = {},
                  int64_t max_line_bytes = kDefaultMaxLineBytes,
                  LongLinePolicy long_lines = LongLinePolicy::kFail);

  const TraceHeader& header() const override { return header_; }
  std::optional<TraceRecord> ReadNext() override;

 private:
  struct Lane {
    std::deque<TraceRecord> records;  // one task's records, in time order
    int64_t free_at_ns = 0;           // when its current task ends
    bool exhausted = false;
  };
  // Loads the next task of the file into `lane`; false at end of file.
  bool LoadTask(Lane& lane, int64_t lane_index);

  LineReader lines_;
  TraceHeader header_;
  HumanEvalImportOptions options_;
  int64_t interval_ns_ = 0;
  std::vector<Lane> lanes_;
  std::string line_;
  bool file_done_ = false;
};

}  // namespace efimsim
