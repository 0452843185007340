#include "traces/efim_trace_reader.h"

#include <filesystem>
#include <fstream>
#include <sstream>

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

EfimTraceReader::EfimTraceReader(const std::string& path, int64_t max_line_bytes)
    : lines_(path, max_line_bytes) {
  if (!lines_.Next(line_)) throw InputError(path, 1, "", "empty file: expected a header line");
  header_ = ParseTraceHeaderLine(line_, path, 1);
}

std::optional<TraceRecord> EfimTraceReader::Next() {
  do {
    if (!lines_.Next(line_)) return std::nullopt;
  } while (IsBlank(line_));
  const int64_t line = lines_.line_number();
  TraceRecord record = ParseTraceRecordLine(line_, lines_.path(), line);
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

}  // namespace efimsim
