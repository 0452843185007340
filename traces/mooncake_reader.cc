#include "traces/mooncake_reader.h"

#include "traces/mooncake_block_keys.h"
#include "traces/trace_limits.h"

namespace efimsim {

MooncakeReader::MooncakeReader(const std::string& path, int64_t max_line_bytes,
                               int64_t block_key_tokens, LongLinePolicy long_lines)
    : lines_(path, max_line_bytes, long_lines), block_key_tokens_(block_key_tokens) {
  if (block_key_tokens_ < 1 || kMooncakeHashBlockTokens % block_key_tokens_ != 0) {
    throw UsageError("--block-tokens: a Mooncake trace's 512-token hash ids need a block size "
                     "that divides 512, got " + std::to_string(block_key_tokens_));
  }
  header_.source = "mooncake-jsonl";
  header_.description = "imported from " + path + "; 512-token hash ids expanded to " +
                        std::to_string(block_key_tokens_) + "-token block keys";
}

std::optional<TraceRecord> MooncakeReader::ReadNext() {
  if (!ReadNonBlankLine(lines_, line_, "a request")) return std::nullopt;
  const std::string& file = lines_.path();
  const int64_t line = lines_.line_number();
  const MooncakeRow row = ParseMooncakeLine(line_, file, line);
  const int64_t arrival_ns = CheckedTraceTimeNs(row.timestamp_ms, 1000000, file, line, "timestamp");
  CheckedTraceTokens(row.input_length, 1, file, line, "input_length");
  CheckedTraceTokens(row.output_length, 0, file, line, "output_length");
  const int64_t needed = row.input_length / kMooncakeHashBlockTokens +
                         (row.input_length % kMooncakeHashBlockTokens != 0 ? 1 : 0);
  if (static_cast<int64_t>(row.hash_ids.size()) < needed) {
    throw InputError(file, line, "hash_ids",
                     "has " + std::to_string(row.hash_ids.size()) + " ids, input_length " +
                         std::to_string(row.input_length) + " needs " + std::to_string(needed));
  }
  TraceRequest request;
  request.arrival_ns = arrival_ns;
  order_.Check(request.arrival_ns, file, line, "timestamp");
  request.prompt_tokens = row.input_length;
  request.output_tokens = row.output_length;
  request.block_keys = ExpandMooncakeHashIds(row.hash_ids, row.input_length,
                                             kMooncakeHashBlockTokens, block_key_tokens_);
  if (!request.block_keys.empty()) request.block_key_tokens = block_key_tokens_;
  return request;
}

}  // namespace efimsim
