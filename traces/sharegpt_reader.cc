#include "traces/sharegpt_reader.h"

#include "traces/trace_limits.h"

namespace efimsim {

ShareGptReader::ShareGptReader(const std::string& path, int64_t max_line_bytes,
                               LongLinePolicy long_lines)
    : lines_(path, max_line_bytes, long_lines) {
  header_.source = "sharegpt-jsonl";
  header_.description = "imported from " + path +
                        " (ShareGPT requests in LLMServingSim's layout: input_toks, output_toks, "
                        "arrival_time_ns, input_tok_ids; outputs forced to output_toks)";
}

std::optional<TraceRecord> ShareGptReader::ReadNext() {
  if (!ReadNonBlankLine(lines_, line_, "a request")) return std::nullopt;
  const std::string& file = lines_.path();
  const int64_t line = lines_.line_number();
  ShareGptRow row = ParseShareGptLine(line_, file, line);
  CheckedTraceTokens(row.input_toks, 1, file, line, "input_toks");
  CheckedTraceTokens(row.output_toks, 1, file, line, "output_toks");
  TraceRequest request;
  request.arrival_ns = row.arrival_time_ns;
  order_.Check(request.arrival_ns, file, line, "arrival_time_ns");
  request.prompt_tokens = row.input_toks;
  request.output_tokens = row.output_toks;
  request.token_ids = std::move(row.token_ids);
  return request;
}

}  // namespace efimsim
