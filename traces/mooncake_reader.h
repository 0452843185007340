#pragma once
// Importer of Mooncake request traces (FAST 2025; kvcache-ai/Mooncake
// FAST25-release/traces/*.jsonl): one JSON object a line with `timestamp`
// (integer ms from the trace start), `input_length`, `output_length`
// (tokens) and `hash_ids` (chained ids of consecutive 512-token blocks; the
// last, usually partial, block has one too). Yields RequestRecords:
// arrival_ns = timestamp * 1e6, prompt_tokens = input_length,
// output_tokens = output_length, block keys of 16-token blocks expanded
// from hash_ids (mooncake_block_keys.h). No sessions.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "traces/trace_reader.h"

namespace efimsim {

// One parsed line (mooncake_line_io.cc, the JSON half).
struct MooncakeRow {
  int64_t timestamp_ms = 0;
  int64_t input_length = 0;
  int64_t output_length = 0;
  std::vector<uint64_t> hash_ids;
};
// Throws InputError(file, line, field, ...) for a missing or mistyped field.
MooncakeRow ParseMooncakeLine(std::string_view line, const std::string& file, int64_t line_number);

class MooncakeReader : public TraceReader {
 public:
  // block_key_tokens: tokens per expanded key (divides 512; default 16).
  // A line over max_line_bytes with LongLinePolicy::kSkip is one request
  // skipped (counted in skipped_lines).
  explicit MooncakeReader(const std::string& path, int64_t max_line_bytes = kDefaultMaxLineBytes,
                          int64_t block_key_tokens = 16,
                          LongLinePolicy long_lines = LongLinePolicy::kFail);

  const TraceHeader& header() const override { return header_; }
  // Throws InputError for a bad line, too few hash_ids for input_length
  // (field hash_ids), or timestamps out of order.
  std::optional<TraceRecord> ReadNext() override;
  int64_t current_line() const override { return lines_.line_number(); }

 private:
  LineReader lines_;
  TraceHeader header_;
  int64_t block_key_tokens_;
  TimeOrderCheck order_;
  std::string line_;
};

inline constexpr int64_t kMooncakeHashBlockTokens = 512;

}  // namespace efimsim
