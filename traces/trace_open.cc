#include "traces/trace_open.h"

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include "traces/azure_csv_reader.h"
#include "traces/csv_record_reader.h"
#include "traces/efim_trace_reader.h"
#include "traces/mooncake_reader.h"
#include "traces/sharegpt_reader.h"
#include "traces/tasktracker_csv_reader.h"
#include "traces/trace_io.h"

namespace efimsim {
namespace {

constexpr std::array<std::pair<TraceFormat, std::string_view>, 7> kFormatNames{{
    {TraceFormat::kAuto, "auto"},
    {TraceFormat::kEfimsim, "efimsim"},
    {TraceFormat::kAzureCsv, "azure-csv"},
    {TraceFormat::kMooncakeJsonl, "mooncake-jsonl"},
    {TraceFormat::kTaskTrackerCsv, "tasktracker-csv"},
    {TraceFormat::kHumanEvalInfilling, "humaneval-infilling"},
    {TraceFormat::kShareGptJsonl, "sharegpt-jsonl"},
}};

bool Contains(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

std::string_view TraceFormatName(TraceFormat format) {
  for (const auto& [f, name] : kFormatNames) {
    if (f == format) return name;
  }
  return "?";
}

std::optional<TraceFormat> ParseTraceFormat(std::string_view name) {
  for (const auto& [f, n] : kFormatNames) {
    if (n == name) return f;
  }
  return std::nullopt;
}

std::vector<std::string> TraceFormatNames() {
  std::vector<std::string> names;
  for (const auto& [f, n] : kFormatNames) names.emplace_back(n);
  return names;
}

TraceFormat DetectTraceFormat(const std::string& path, int64_t max_line_bytes) {
  LineReader lines(path, max_line_bytes);
  std::string line;
  do {
    if (!lines.Next(line)) throw InputError(path, 0, "", "empty file: no trace format to detect");
  } while (line.find_first_not_of(" \t\r") == std::string::npos);
  // A line that starts with '{' is JSON Lines, never CSV (a CSV header
  // cannot start with a brace): if it does not parse, the JSON error says
  // where (with file and line), rather than a CSV error about its quotes.
  const size_t first = line.find_first_not_of(" \t\r");
  const bool json_like = line.compare(first, 1, "{") == 0 ||
                         line.compare(first, 4, "\xEF\xBB\xBF{") == 0;  // after a UTF-8 BOM
  if (json_like) {
    const JsonLineShape shape = InspectJsonObjectLine(line, path, lines.line_number());
    if (shape.type == "header") return TraceFormat::kEfimsim;
    if (Contains(shape.keys, "hash_ids")) return TraceFormat::kMooncakeJsonl;
    if (Contains(shape.keys, "canonical_solution")) return TraceFormat::kHumanEvalInfilling;
    if (Contains(shape.keys, "input_toks") && Contains(shape.keys, "arrival_time_ns")) {
      return TraceFormat::kShareGptJsonl;
    }
  } else {
    // Only the header row matters, and it has no quoted newlines.
    CsvRecordReader csv(path, max_line_bytes);
    std::vector<std::string> header;
    if (csv.Next(header)) {
      if (Contains(header, "TIMESTAMP") && Contains(header, "ContextTokens")) {
        return TraceFormat::kAzureCsv;
      }
      if (Contains(header, "date") && Contains(header, "fragment")) {
        return TraceFormat::kTaskTrackerCsv;
      }
    }
  }
  throw InputError(path, lines.line_number(), "",
                   "unrecognized trace format (expected an efimsim trace with a header line, "
                   "Mooncake JSONL, HumanEval infilling JSONL, ShareGPT JSONL (LLMServingSim), Azure LLM "
                   "CSV or TaskTracker CSV)");
}

std::unique_ptr<TraceReader> OpenTrace(const std::string& path, const TraceReadOptions& options) {
  const TraceFormat format = options.format == TraceFormat::kAuto
                                 ? DetectTraceFormat(path, options.max_line_bytes)
                                 : options.format;
  switch (format) {
    case TraceFormat::kEfimsim:
      return std::make_unique<EfimTraceReader>(path, options.max_line_bytes, options.long_lines);
    case TraceFormat::kAzureCsv:
      return std::make_unique<AzureCsvReader>(path, options.max_line_bytes, options.long_lines);
    case TraceFormat::kMooncakeJsonl:
      return std::make_unique<MooncakeReader>(path, options.max_line_bytes,
                                              options.mooncake_block_key_tokens, options.long_lines);
    case TraceFormat::kTaskTrackerCsv:
      return std::make_unique<TaskTrackerCsvReader>(path, options.max_line_bytes, options.long_lines);
    case TraceFormat::kHumanEvalInfilling:
      return std::make_unique<HumanEvalReader>(path, options.humaneval, options.max_line_bytes,
                                               options.long_lines);
    case TraceFormat::kShareGptJsonl:
      return std::make_unique<ShareGptReader>(path, options.max_line_bytes, options.long_lines);
    case TraceFormat::kAuto:
      break;
  }
  throw UsageError("trace format: cannot open a trace as 'auto'");
}

}  // namespace efimsim
