#pragma once
// Importer of the Azure LLM inference trace CSV (Splitwise, ISCA 2024;
// AzurePublicDataset AzureLLMInferenceTrace_{code,conv}.csv): header
// TIMESTAMP,ContextTokens,GeneratedTokens (any column order), one request a
// row. Yields RequestRecords: arrival_ns = TIMESTAMP - first row's
// TIMESTAMP (wall clock "YYYY-MM-DD HH:MM:SS.fffffff", 100 ns resolution),
// prompt_tokens = ContextTokens, output_tokens = GeneratedTokens; no
// sessions, no token ids, no block keys (open-loop replay).

#include <optional>
#include <string>
#include <vector>

#include "traces/csv_record_reader.h"
#include "traces/trace_reader.h"

namespace efimsim {

class AzureCsvReader : public TraceReader {
 public:
  // Reads the header row; throws InputError naming a missing column.
  // A row over max_line_bytes with LongLinePolicy::kSkip is one request
  // skipped (counted in skipped_lines).
  explicit AzureCsvReader(const std::string& path, int64_t max_line_bytes = kDefaultMaxLineBytes,
                          LongLinePolicy long_lines = LongLinePolicy::kFail);

  const TraceHeader& header() const override { return header_; }
  // Throws InputError(file, line, column, ...) for a bad timestamp or count,
  // or rows out of time order.
  std::optional<TraceRecord> ReadNext() override;
  int64_t current_line() const override { return csv_.record_line(); }

 private:
  CsvRecordReader csv_;
  TraceHeader header_;
  int64_t timestamp_column_ = -1;
  int64_t context_column_ = -1;
  int64_t generated_column_ = -1;
  std::optional<int64_t> first_time_ns_;
  TimeOrderCheck order_;
  std::vector<std::string> fields_;
};

}  // namespace efimsim
