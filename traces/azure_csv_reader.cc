#include "traces/azure_csv_reader.h"

#include <algorithm>
#include <charconv>

#include "traces/civil_time.h"
#include "traces/trace_limits.h"

namespace efimsim {
namespace {

int64_t ParseCount(const std::string& text, const std::string& file, int64_t line,
                   const std::string& column) {
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || value < 0) {
    throw InputError(file, line, column, "'" + text + "' is not a non-negative integer");
  }
  return value;
}

}  // namespace

AzureCsvReader::AzureCsvReader(const std::string& path, int64_t max_line_bytes,
                               LongLinePolicy long_lines)
    : csv_(path, max_line_bytes, long_lines) {
  if (!csv_.Next(fields_)) throw InputError(path, 1, "", "empty file: expected a CSV header");
  const auto column = [&](const char* name) {
    const int64_t index = CsvColumnIndex(fields_, name);
    if (index < 0) throw InputError(path, 1, name, "column missing from the CSV header");
    return index;
  };
  timestamp_column_ = column("TIMESTAMP");
  context_column_ = column("ContextTokens");
  generated_column_ = column("GeneratedTokens");
  header_.source = "azure-llm-csv";
  header_.description = "imported from " + path;
}

std::optional<TraceRecord> AzureCsvReader::ReadNext() {
  while (true) {
    const LineRead read = csv_.Read(fields_);
    if (read == LineRead::kEndOfFile) return std::nullopt;
    if (read == LineRead::kLine) break;
    NoteSkippedLine(csv_.record_line(), "a request");
  }
  const std::string& file = csv_.path();
  const int64_t line = csv_.record_line();
  const int64_t needed = std::max({timestamp_column_, context_column_, generated_column_}) + 1;
  if (static_cast<int64_t>(fields_.size()) < needed) {
    throw InputError(file, line, "", "row has " + std::to_string(fields_.size()) +
                                         " fields, the header " + std::to_string(needed) + " or more");
  }
  const std::string& stamp = fields_[static_cast<size_t>(timestamp_column_)];
  const std::optional<int64_t> time_ns = ParseCivilTimeNs(stamp);
  if (!time_ns) {
    throw InputError(file, line, "TIMESTAMP",
                     "'" + stamp + "' is not a time like 2023-11-16 18:17:03.9799600");
  }
  if (!first_time_ns_) first_time_ns_ = *time_ns;
  TraceRequest request;
  if (__builtin_sub_overflow(*time_ns, *first_time_ns_, &request.arrival_ns)) {
    throw InputError(file, line, "TIMESTAMP", "more than 292 years after the first row");
  }
  // Also rejects a time at or beyond kMaxTraceTimeNs after the first row.
  order_.Check(request.arrival_ns, file, line, "TIMESTAMP");
  request.prompt_tokens = CheckedTraceTokens(
      ParseCount(fields_[static_cast<size_t>(context_column_)], file, line, "ContextTokens"), 1,
      file, line, "ContextTokens");
  request.output_tokens = CheckedTraceTokens(
      ParseCount(fields_[static_cast<size_t>(generated_column_)], file, line, "GeneratedTokens"), 0,
      file, line, "GeneratedTokens");
  return request;
}

}  // namespace efimsim
