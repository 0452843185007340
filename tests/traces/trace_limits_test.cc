// Issue 25 item 4: extreme numbers are input errors naming file, line and
// field (never an overflow or an allocation deep in a run, exit 3); one
// checked conversion; FromSeconds states its range.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>

#include "sim/base/errors.h"
#include "sim/base/time.h"
#include "traces/azure_csv_reader.h"
#include "traces/humaneval_reader.h"
#include "traces/mooncake_reader.h"
#include "traces/rate_scaled_trace_reader.h"
#include "traces/trace_limits.h"
#include "traces/trace_writer.h"

#include "expect_input_error.h"

namespace efimsim {
namespace {

using test::ExpectInputError;
using test::kAzureHeader;
using test::ReadAll;
using test::ScratchDir;
using test::WriteFile;

// ---- item 4: bounds on token counts and times ----

TEST(TraceLimits, AzureHugeTokenCountsAreInputErrors) {
  const std::string dir = ScratchDir();
  ExpectInputError(WriteFile(dir, "out.csv", std::string(kAzureHeader) +
                                                 "2023-11-16 18:17:03.9799600,4808,10\n"
                                                 "2023-11-16 18:17:04.0,100,9223372036854775807\n"),
                   3, "GeneratedTokens", "2147483647");
  ExpectInputError(WriteFile(dir, "in.csv", std::string(kAzureHeader) +
                                                "2023-11-16 18:17:03.9799600,2147483648,10\n"),
                   2, "ContextTokens", "too many");
  // The bound itself is accepted.
  const std::string ok = WriteFile(dir, "ok.csv", std::string(kAzureHeader) +
                                                      "2023-11-16 18:17:03.9799600,2147483647,2147483647\n");
  AzureCsvReader reader(ok);
  const auto records = ReadAll(reader);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(std::get<TraceRequest>(records[0]).output_tokens, kMaxTraceTokens);
}

TEST(TraceLimits, AzureRowsMoreThan146YearsApartAreInputErrors) {
  ExpectInputError(WriteFile(ScratchDir(), "a.csv", std::string(kAzureHeader) +
                                                        "1900-01-01 00:00:00.0,10,1\n"
                                                        "2099-01-01 00:00:00.0,10,1\n"),
                   3, "TIMESTAMP", "2^62 ns");
}

TEST(TraceLimits, MooncakeTimestampBeyond146YearsIsAnInputError) {
  // 9223372036854 ms fits int64 ns (9.2e18) but overflowed the simulator's
  // clock ("event scheduled in the past", exit 3).
  const std::string dir = ScratchDir();
  ExpectInputError(
      WriteFile(dir, "m.jsonl",
                "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 1, \"hash_ids\": [1]}\n"
                "{\"timestamp\": 9223372036854, \"input_length\": 10, \"output_length\": 1, "
                "\"hash_ids\": [1]}\n"),
      2, "timestamp", "2^62 ns");
  ExpectInputError(WriteFile(dir, "big.jsonl",
                             "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": "
                             "9223372036854775807, \"hash_ids\": [1]}\n"),
                   1, "output_length", "too many");
  // Just below the limit is fine.
  const int64_t last_ms = (kMaxTraceTimeNs - 1) / 1000000;
  const std::string ok =
      WriteFile(dir, "ok.jsonl", "{\"timestamp\": " + std::to_string(last_ms) +
                                     ", \"input_length\": 10, \"output_length\": 1, \"hash_ids\": [1]}\n");
  MooncakeReader reader(ok);
  const auto records = ReadAll(reader);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(std::get<TraceRequest>(records[0]).arrival_ns, last_ms * 1000000);
}

TEST(TraceLimits, EfimTraceTimesAndTokensAreBounded) {
  const std::string dir = ScratchDir();
  const std::string header = "{\"type\":\"header\",\"schema_version\":1}\n";
  ExpectInputError(WriteFile(dir, "t.jsonl",
                             header + "{\"type\":\"request\",\"arrival_ns\":4611686018427387904,"
                                      "\"prompt_tokens\":10,\"output_tokens\":1}\n"),
                   2, "arrival_ns", "2^62 ns");
  ExpectInputError(WriteFile(dir, "p.jsonl",
                             header + "{\"type\":\"request\",\"arrival_ns\":0,"
                                      "\"prompt_tokens\":2147483648,\"output_tokens\":1}\n"),
                   2, "prompt_tokens", "too many");
  ExpectInputError(WriteFile(dir, "i.jsonl",
                             header +
                                 "{\"type\":\"session\",\"time_ns\":0,\"session_id\":\"s\","
                                 "\"user_id\":\"u\",\"document_id\":\"d\",\"cursor_bytes\":0,"
                                 "\"text\":\"\"}\n"
                                 "{\"type\":\"edit\",\"time_ns\":0,\"session_id\":\"s\","
                                 "\"kind\":\"idle\",\"duration_ns\":9223372036854775807}\n"),
                   3, "duration_ns", "2^62 ns");
  // The writer refuses what the reader would refuse.
  std::ostringstream out;
  TraceWriter writer(out, TraceHeader{});
  TraceRequest request;
  request.prompt_tokens = 10;
  request.arrival_ns = kMaxTraceTimeNs;
  EXPECT_THROW(writer.Write(request), OutputError);
}

TEST(TraceLimits, TaskTrackerSnapshotsMoreThan146YearsApartAreInputErrors) {
  ExpectInputError(WriteFile(ScratchDir(), "t.csv",
                             "date,fragment\n"
                             "1850-01-01T00:00:00.000+00:00,a\n"
                             "2019-12-20T13:47:36.596+03:00,ab\n"),
                   3, "date", "2^62 ns");
}

TEST(TraceLimits, HumanEvalTimesPastTheLimitAreInputErrors) {
  const std::string path = WriteFile(
      ScratchDir(), "h.jsonl",
      "{\"task_id\":\"t/0\",\"prompt\":\"a\",\"suffix\":\"c\",\"canonical_solution\":\"bbbb\"}\n");
  HumanEvalImportOptions options;
  options.chars_per_second = 1e9 / std::ldexp(1.0, 61);  // a character every 2^61 ns
  try {
    HumanEvalReader reader(path, options);
    ReadAll(reader);
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 1);
    EXPECT_EQ(e.field(), "canonical_solution");
  }
  options.chars_per_second = 1e-30;  // llround of 1e39 ns was undefined
  EXPECT_THROW(HumanEvalReader(path, options), UsageError);
  options = HumanEvalImportOptions{};
  options.users = std::numeric_limits<int64_t>::max();  // one lane each: bad_alloc
  EXPECT_THROW(HumanEvalReader(path, options), UsageError);
}

TEST(TraceLimits, OneCheckedConversion) {
  EXPECT_EQ(CheckedTraceTimeNs(3, 1000000, "f", 1, "t"), 3000000);
  EXPECT_EQ(CheckedTraceTimeNs(kMaxTraceTimeNs - 1, 1, "f", 1, "t"), kMaxTraceTimeNs - 1);
  EXPECT_THROW(CheckedTraceTimeNs(kMaxTraceTimeNs, 1, "f", 1, "t"), InputError);
  EXPECT_THROW(CheckedTraceTimeNs(-1, 1, "f", 1, "t"), InputError);
  EXPECT_THROW(CheckedTraceTimeNs(INT64_MAX, 1000000, "f", 1, "t"), InputError);
  EXPECT_THROW(CheckedTraceTimeSum(kMaxTraceTimeNs - 1, 1, "f", 1, "t"), InputError);
  EXPECT_EQ(CheckedTraceTokens(kMaxTraceTokens, 0, "f", 1, "n"), kMaxTraceTokens);
  EXPECT_THROW(CheckedTraceTokens(kMaxTraceTokens + 1, 0, "f", 1, "n"), InputError);
  EXPECT_THROW(CheckedTraceTokens(0, 1, "f", 1, "n"), InputError);
}

TEST(TraceLimits, RateScalingStaysBelowTheLimit) {
  // 2^61 ns / 0.4 = 5.8e18 ns fitted int64 but not the 2^62 ns limit.
  EXPECT_THROW(ScaleTimeNs(int64_t{1} << 61, 0.4), UsageError);
  EXPECT_EQ(ScaleTimeNs(int64_t{1} << 60, 0.5), int64_t{1} << 61);
}

TEST(TraceLimits, FromSecondsStatesItsRange) {
  EXPECT_TRUE(FitsFromSeconds(0));
  EXPECT_TRUE(FitsFromSeconds(kMaxFromSeconds));
  EXPECT_EQ(ToNanoseconds(FromSeconds(kMaxFromSeconds)), kMaxTraceTimeNs);
  EXPECT_FALSE(FitsFromSeconds(1e300));
  EXPECT_FALSE(FitsFromSeconds(9.2e9));  // accepted before: 2^63 ns was the only bound
  EXPECT_FALSE(FitsFromSeconds(-1));
  EXPECT_FALSE(FitsFromSeconds(std::nan("")));
  EXPECT_FALSE(FitsFromSeconds(std::numeric_limits<double>::infinity()));
}

}  // namespace
}  // namespace efimsim
