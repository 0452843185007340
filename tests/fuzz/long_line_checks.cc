#include "tests/fuzz/long_line_checks.h"

#include <memory>
#include <optional>
#include <vector>

#include "sim/base/errors.h"
#include "tests/fuzz/fuzz_common.h"
#include "tests/fuzz/trace_round_trip.h"

namespace efimsim::fuzz {
namespace {

struct ReadOutcome {
  std::vector<TraceRecord> records;  // those read before any InputError
  bool complete = false;             // the whole input read without InputError
  TraceReader::SkippedLines skipped;
};

ReadOutcome ReadWith(const std::string& path, const TraceReadOptions& options) {
  ReadOutcome outcome;
  std::unique_ptr<TraceReader> reader;
  try {
    reader = OpenTrace(path, options);
    while (std::optional<TraceRecord> record = reader->Next()) {
      outcome.records.push_back(std::move(*record));
    }
    outcome.complete = true;
  } catch (const InputError&) {
  }
  if (reader) outcome.skipped = reader->skipped_lines();
  return outcome;
}

}  // namespace

void CheckLongLineSkipping(const std::string& path, TraceReadOptions options) {
  options.max_line_bytes = kSkipCheckMaxLineBytes;
  options.long_lines = LongLinePolicy::kFail;
  const ReadOutcome strict = ReadWith(path, options);
  options.long_lines = LongLinePolicy::kSkip;
  const ReadOutcome skip = ReadWith(path, options);

  int64_t last_time_ns = INT64_MIN;
  for (const TraceRecord& record : skip.records) {
    FUZZ_CHECK(!ValidateRecord(record).has_value(),
               "skip mode returned an invalid record: " + DescribeRecord(record));
    FUZZ_CHECK(RecordTimeNs(record) >= last_time_ns,
               "skip mode returned records out of time order: " + DescribeRecord(record));
    last_time_ns = RecordTimeNs(record);
  }
  const TraceReader::SkippedLines& s = skip.skipped;
  FUZZ_CHECK(s.lines >= 0 && s.dependent_records >= 0, "negative skip counts");
  FUZZ_CHECK((s.lines == 0) == (s.first_line == 0), "first skipped line disagrees with the count");
  FUZZ_CHECK(s.lines > 0 || s.dependent_records == 0, "records dropped with no line skipped");
  FUZZ_CHECK(strict.skipped.lines == 0, "strict mode counted a skipped line");
  if (strict.complete) {
    FUZZ_CHECK(skip.complete && s.lines == 0, "skip mode failed or skipped on an input that fits");
    FUZZ_CHECK(skip.records.size() == strict.records.size(),
               "skip mode returned a different number of records on an input that fits");
    for (size_t i = 0; i < strict.records.size(); ++i) {
      FUZZ_CHECK(SameRecord(skip.records[i], strict.records[i]),
                 "skip mode changed record " + std::to_string(i) + ": " +
                     DescribeRecord(skip.records[i]));
    }
  }
}

}  // namespace efimsim::fuzz
