#include "traces/humaneval_reader.h"

#include <algorithm>

#include <cmath>

#include "traces/trace_limits.h"
#include "traces/utf8_text.h"

namespace efimsim {

HumanEvalReader::HumanEvalReader(const std::string& path, HumanEvalImportOptions options,
                                 int64_t max_line_bytes, LongLinePolicy long_lines)
    : lines_(path, max_line_bytes, long_lines), options_(options) {
  if (!(options_.chars_per_second > 0) || !std::isfinite(options_.chars_per_second)) {
    throw UsageError("HumanEval typing speed must be > 0 characters per second");
  }
  if (options_.users < 1) throw UsageError("HumanEval users must be >= 1");
  if (options_.session_gap_ns < 0) throw UsageError("HumanEval session gap must be >= 0");
  if (options_.users > kMaxHumanEvalUsers) {
    throw UsageError("HumanEval users must be <= " + std::to_string(kMaxHumanEvalUsers));
  }
  if (options_.session_gap_ns >= kMaxTraceTimeNs) {
    throw UsageError("HumanEval session gap must be < 2^62 ns (about 146 years)");
  }
  const double interval_ns = 1e9 / options_.chars_per_second;
  if (!(interval_ns < static_cast<double>(kMaxTraceTimeNs))) {
    throw UsageError("HumanEval typing speed is too slow: one character every 2^62 ns or more");
  }
  interval_ns_ = std::max<int64_t>(1, std::llround(interval_ns));
  header_.source = "humaneval-infilling";
  header_.description = "imported from " + path + "; middle typed at " +
                        std::to_string(options_.chars_per_second) + " chars/s by " +
                        std::to_string(options_.users) + " user(s)";
  lanes_.resize(static_cast<size_t>(options_.users));
}

bool HumanEvalReader::LoadTask(Lane& lane, int64_t lane_index) {
  if (file_done_) return false;
  if (!ReadNonBlankLine(lines_, line_, "a task")) {
    file_done_ = true;
    return false;
  }
  const int64_t line = lines_.line_number();
  const HumanEvalTask task = ParseHumanEvalLine(line_, lines_.path(), line);
  for (const auto& [field, text] : {std::pair{"prompt", &task.prompt}, std::pair{"suffix", &task.suffix},
                                    std::pair{"canonical_solution", &task.canonical_solution}}) {
    if (!IsValidUtf8(*text)) throw InputError(lines_.path(), line, field, "not valid UTF-8");
  }
  if (task.task_id.empty()) throw InputError(lines_.path(), line, "task_id", "must not be empty");

  int64_t time = lane.free_at_ns;
  SessionStart session;
  session.time_ns = time;
  session.session_id = task.task_id;
  session.user_id = "humaneval-" + std::to_string(lane_index);
  session.document_id = task.task_id;
  session.text = task.prompt + task.suffix;
  session.cursor_bytes = static_cast<int64_t>(task.prompt.size());
  session.text_to_type = task.canonical_solution;
  lane.records.push_back(std::move(session));
  int64_t offset = static_cast<int64_t>(task.prompt.size());
  const std::string& middle = task.canonical_solution;
  for (size_t i = 0; i < middle.size();) {
    const size_t length = Utf8SequenceLength(middle, i);
    time = CheckedTraceTimeSum(time, interval_ns_, lines_.path(), line, "canonical_solution");
    EditEvent insert;
    insert.time_ns = time;
    insert.session_id = task.task_id;
    insert.kind = EditKind::kInsert;
    insert.offset_bytes = offset;
    insert.text = middle.substr(i, length);
    lane.records.push_back(std::move(insert));
    offset += static_cast<int64_t>(length);
    i += length;
  }
  // The user stays on the task for session_gap_ns after the last keystroke
  // (long enough for a debouncing client to ask for a completion), then
  // moves to the lane's next task.
  EditEvent end;
  end.time_ns = CheckedTraceTimeSum(time, options_.session_gap_ns, lines_.path(), line,
                                    "canonical_solution");
  end.session_id = task.task_id;
  end.kind = EditKind::kEnd;
  lane.records.push_back(std::move(end));
  lane.free_at_ns = end.time_ns;
  return true;
}

std::optional<TraceRecord> HumanEvalReader::ReadNext() {
  Lane* best = nullptr;
  int64_t best_time = 0;
  for (size_t i = 0; i < lanes_.size(); ++i) {
    Lane& lane = lanes_[i];
    if (lane.records.empty() && !lane.exhausted) {
      lane.exhausted = !LoadTask(lane, static_cast<int64_t>(i));
    }
    if (lane.records.empty()) continue;
    const int64_t time = RecordTimeNs(lane.records.front());
    if (best == nullptr || time < best_time) {
      best = &lane;
      best_time = time;
    }
  }
  if (best == nullptr) return std::nullopt;
  TraceRecord record = std::move(best->records.front());
  best->records.pop_front();
  return record;
}

}  // namespace efimsim
