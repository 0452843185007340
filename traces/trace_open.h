#pragma once
// Opening any supported trace file behind one TraceReader, so
// `efimsim replay --trace FILE` and `efimsim convert` accept them all.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>
#include <string>
#include <string_view>

#include "traces/humaneval_reader.h"
#include "traces/trace_reader.h"

namespace efimsim {

enum class TraceFormat {
  kAuto,                // detect from the first line (DetectTraceFormat)
  kEfimsim,             // traces/FORMAT.md
  kAzureCsv,            // azure_csv_reader.h
  kMooncakeJsonl,       // mooncake_reader.h
  kTaskTrackerCsv,      // tasktracker_csv_reader.h
  kHumanEvalInfilling,  // humaneval_reader.h
  kShareGptJsonl,       // sharegpt_reader.h (LLMServingSim's ShareGPT workloads)
};

// "auto", "efimsim", "azure-csv", "mooncake-jsonl", "tasktracker-csv",
// "humaneval-infilling", "sharegpt-jsonl" (for a --trace-format option) and back.
std::string_view TraceFormatName(TraceFormat format);
std::optional<TraceFormat> ParseTraceFormat(std::string_view name);
std::vector<std::string> TraceFormatNames();  // every name, "auto" first

struct TraceReadOptions {
  TraceFormat format = TraceFormat::kAuto;
  int64_t max_line_bytes = kDefaultMaxLineBytes;  // one line / CSV record / text_file
  LongLinePolicy long_lines = LongLinePolicy::kFail;  // for a longer line or record
  int64_t mooncake_block_key_tokens = 16;         // divides 512
  HumanEvalImportOptions humaneval;
};

// The format of `path` (plain or gzip), from its first non-empty line:
//   JSON object with "type":"header"            -> kEfimsim
//   JSON object with "hash_ids"                 -> kMooncakeJsonl
//   JSON object with "canonical_solution"       -> kHumanEvalInfilling
//   JSON object with input_toks, arrival_time_ns -> kShareGptJsonl
//   CSV header with TIMESTAMP, ContextTokens    -> kAzureCsv
//   CSV header with date and fragment           -> kTaskTrackerCsv
// The file name is not looked at. Throws InputError(path, line, "", ...)
// naming the formats it knows when none matches.
TraceFormat DetectTraceFormat(const std::string& path,
                              int64_t max_line_bytes = kDefaultMaxLineBytes);

// A reader for `path` in options.format (detected when kAuto).
std::unique_ptr<TraceReader> OpenTrace(const std::string& path,
                                       const TraceReadOptions& options = {});

}  // namespace efimsim
