#include "tests/fuzz/trace_round_trip.h"

#include <sstream>
#include <variant>

#include "tests/fuzz/fuzz_common.h"
#include "traces/efim_trace_reader.h"
#include "traces/trace_io.h"
#include "traces/trace_writer.h"

namespace efimsim::fuzz {
namespace {

bool Same(const SessionStart& a, const SessionStart& b) {
  return a.time_ns == b.time_ns && a.session_id == b.session_id && a.user_id == b.user_id &&
         a.document_id == b.document_id && a.text == b.text && a.text_file == b.text_file &&
         a.cursor_bytes == b.cursor_bytes;
}
bool Same(const EditEvent& a, const EditEvent& b) {
  return a.time_ns == b.time_ns && a.session_id == b.session_id && a.kind == b.kind &&
         a.offset_bytes == b.offset_bytes && a.length_bytes == b.length_bytes &&
         a.text == b.text && a.duration_ns == b.duration_ns;
}
bool Same(const TraceRequest& a, const TraceRequest& b) {
  return a.arrival_ns == b.arrival_ns && a.session_id == b.session_id &&
         a.prompt_tokens == b.prompt_tokens && a.output_tokens == b.output_tokens &&
         a.token_ids == b.token_ids && a.block_key_tokens == b.block_key_tokens &&
         a.block_keys == b.block_keys;
}

std::string Write(const TraceHeader& header, const std::vector<TraceRecord>& records) {
  std::ostringstream out;
  TraceWriter writer(out, header);
  // OutputError is deliberately not caught: every record came from a
  // reader, and the writer must accept what a reader yields.
  for (const TraceRecord& record : records) writer.Write(record);
  FUZZ_CHECK(writer.records_written() == static_cast<int64_t>(records.size()), "records_written");
  return out.str();
}

}  // namespace

bool SameRecord(const TraceRecord& a, const TraceRecord& b) {
  if (a.index() != b.index()) return false;
  return std::visit(
      [&b](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        return Same(x, std::get<T>(b));
      },
      a);
}

std::string DescribeRecord(const TraceRecord& record) {
  if (const auto* s = std::get_if<SessionStart>(&record); s != nullptr && !s->text_file.empty()) {
    // FormatTraceRecordLine writes the reference only; show the text too.
    return FormatTraceRecordLine(record) + " (text " + std::to_string(s->text.size()) + " bytes)";
  }
  return FormatTraceRecordLine(record);
}

std::string CheckRoundTrip(const TraceHeader& header, const std::vector<TraceRecord>& records,
                           const std::string& name) {
  const std::string bytes = Write(header, records);
  const std::string path = WriteScratchFile(name, bytes);
  // Every line the writer wrote is at most as long as the longest record
  // line; the default bound is far above anything a fuzzer produces.
  EfimTraceReader reader(path);
  FUZZ_CHECK(reader.header().schema_version == header.schema_version, "header schema_version");
  FUZZ_CHECK(reader.header().source == header.source, "header source: " + header.source);
  FUZZ_CHECK(reader.header().description == header.description, "header description");
  std::vector<TraceRecord> again;
  for (size_t i = 0;; ++i) {
    std::optional<TraceRecord> record = reader.Next();
    if (!record) break;
    FUZZ_CHECK(i < records.size(), "read back more records than written: " + DescribeRecord(*record));
    FUZZ_CHECK(SameRecord(records[i], *record),
               "record " + std::to_string(i) + " differs after the round trip:\n  wrote " +
                   DescribeRecord(records[i]) + "\n  read  " + DescribeRecord(*record));
    again.push_back(std::move(*record));
  }
  FUZZ_CHECK(again.size() == records.size(),
             "read back " + std::to_string(again.size()) + " of " +
                 std::to_string(records.size()) + " records");
  FUZZ_CHECK(Write(reader.header(), again) == bytes, "writing the records read back changed bytes");
  return bytes;
}

}  // namespace efimsim::fuzz
