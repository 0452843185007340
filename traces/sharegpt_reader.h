#pragma once
// Importer of ShareGPT-style request workloads in LLMServingSim's layout
// (casys-kaist/LLMServingSim workloads/*.jsonl, e.g.
// sharegpt-llama-3.1-8b-300-sps10.jsonl): one JSON object a line with
//   input_toks       prompt tokens (>= 1)
//   output_toks      tokens generated (>= 1; the run served them with
//                    ignore_eos, so the replay forces exactly this many)
//   arrival_time_ns  integer ns from the workload's start (>= 0, sorted)
//   input_tok_ids    optional: the prompt's token ids, exactly input_toks
//                    ids in [0, 2^31)
// Other fields are ignored. Yields TraceRequests at arrival_time_ns with
// the ids (so prefix caching sees the real prompts); no sessions.
// `validate-serving` reads the same lines through ParseShareGptLine.

#include <optional>
#include <string>
#include <string_view>

#include "sim/base/tokens.h"
#include "traces/trace_reader.h"

namespace efimsim {

// One parsed line (sharegpt_line_io.cc, the JSON half).
struct ShareGptRow {
  int64_t input_toks = 0;
  int64_t output_toks = 0;
  int64_t arrival_time_ns = 0;
  bool has_token_ids = false;  // input_tok_ids present
  TokenVector token_ids;       // empty unless has_token_ids
};

// Throws InputError(file, line, field, ...) for bad JSON, a missing or
// mistyped field, a count below 1, a negative time, or ids that are not
// exactly input_toks token ids (field "input_tok_ids[i]" names a bad one).
ShareGptRow ParseShareGptLine(std::string_view line, const std::string& file, int64_t line_number);

class ShareGptReader : public TraceReader {
 public:
  // A line over max_line_bytes with LongLinePolicy::kSkip is one request
  // skipped (counted in skipped_lines).
  explicit ShareGptReader(const std::string& path, int64_t max_line_bytes = kDefaultMaxLineBytes,
                          LongLinePolicy long_lines = LongLinePolicy::kFail);

  const TraceHeader& header() const override { return header_; }
  int64_t current_line() const override { return lines_.line_number(); }

 protected:
  // Throws InputError for a bad line or arrival times out of order.
  std::optional<TraceRecord> ReadNext() override;

 private:
  LineReader lines_;
  TraceHeader header_;
  TimeOrderCheck order_;
  std::string line_;
};

}  // namespace efimsim
