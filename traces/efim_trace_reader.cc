#include "traces/efim_trace_reader.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "traces/skipped_line_head.h"
#include "traces/trace_io.h"

namespace efimsim {
namespace {

bool IsBlank(const std::string& line) {
  return line.find_first_not_of(" \t\r") == std::string::npos;
}

std::string LoadTextFile(const std::string& trace_path, const SessionStart& session,
                         int64_t max_bytes, int64_t line) {
  const std::filesystem::path base = std::filesystem::path(trace_path).parent_path();
  const std::filesystem::path path = base / session.text_file;
  std::error_code error;
  const auto size = std::filesystem::file_size(path, error);
  if (error) {
    throw InputError(trace_path, line, "text_file",
                     "cannot read '" + path.string() + "': " + error.message());
  }
  if (static_cast<int64_t>(size) > max_bytes) {
    throw InputError(trace_path, line, "text_file",
                     "'" + path.string() + "' is larger than the maximum of " +
                         std::to_string(max_bytes) + " bytes");
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  if (!in && !in.eof()) {
    throw InputError(trace_path, line, "text_file", "cannot read '" + path.string() + "'");
  }
  return content.str();
}

}  // namespace

EfimTraceReader::EfimTraceReader(const std::string& path, int64_t max_line_bytes,
                                 LongLinePolicy long_lines)
    : lines_(path, max_line_bytes, long_lines) {
  if (!lines_.Next(line_)) throw InputError(path, 1, "", "empty file: expected a header line");
  header_ = ParseTraceHeaderLine(line_, path, 1);
}

std::optional<TraceRecord> EfimTraceReader::SkipLine() {
  const int64_t line = lines_.line_number();
  const SkippedLineHead head = ReadSkippedLineHead(line_);
  const bool is_request = head.type == "request";
  if (!is_request && (!(head.type == "session" || head.type == "edit") || !head.session_id)) {
    throw InputError(lines_.path(), line, "",
                     "line longer than the maximum of " + std::to_string(lines_.max_line_bytes()) +
                         " bytes, and its first " + std::to_string(kSkippedLineHeadBytes) +
                         " bytes do not say which request or session it belongs to (raise the "
                         "max line length if the file is right)");
  }
  if (is_request) {
    NoteSkippedLine(line, "a request");
    return std::nullopt;
  }
  const std::string& session_id = *head.session_id;
  const bool already_cut = !cut_sessions_.insert(session_id).second;
  if (head.type == "session" || already_cut) {
    NoteSkippedLine(line, "session '" + session_id + "' (its later events dropped)");
    return std::nullopt;
  }
  NoteSkippedLine(line, "an edit of session '" + session_id + "' (the session ends there)");
  EditEvent end;
  end.session_id = session_id;
  end.kind = EditKind::kEnd;
  end.time_ns = std::max(head.time_ns.value_or(0), order_.last_time_ns());
  // Cannot fail (the time is at least the last one); it makes the end's
  // time the one later records are checked against.
  order_.Check(end.time_ns, lines_.path(), line, "time_ns");
  return end;
}

std::optional<TraceRecord> EfimTraceReader::ReadNext() {
  while (true) {
    const LineRead read = lines_.Read(line_);
    if (read == LineRead::kEndOfFile) return std::nullopt;
    if (read == LineRead::kTooLong) {
      if (std::optional<TraceRecord> in_place = SkipLine()) return in_place;
      continue;
    }
    if (IsBlank(line_)) continue;
    const int64_t line = lines_.line_number();
    TraceRecord record = ParseTraceRecordLine(line_, lines_.path(), line);
    if (!cut_sessions_.empty() && !std::holds_alternative<TraceRequest>(record)) {
      const std::string& session_id = std::holds_alternative<SessionStart>(record)
                                          ? std::get<SessionStart>(record).session_id
                                          : std::get<EditEvent>(record).session_id;
      if (cut_sessions_.count(session_id)) {
        ++skipped_.dependent_records;
        continue;
      }
    }
    if (auto* session = std::get_if<SessionStart>(&record); session && !session->text_file.empty()) {
      session->text = LoadTextFile(lines_.path(), *session, lines_.max_line_bytes(), line);
    }
    if (const std::optional<FieldProblem> problem = ValidateRecord(record)) {
      throw InputError(lines_.path(), line, problem->field, problem->problem);
    }
    order_.Check(RecordTimeNs(record), lines_.path(), line,
                 std::holds_alternative<TraceRequest>(record) ? "arrival_ns" : "time_ns");
    return record;
  }
}

}  // namespace efimsim
