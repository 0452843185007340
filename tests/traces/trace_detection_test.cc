// Issue 25 item 5: a JSON Lines trace whose first line is broken is
// reported as a JSON error with file and line, not as a CSV one.
#include <gtest/gtest.h>

#include <string>

#include "sim/base/errors.h"
#include "traces/trace_open.h"

#include "expect_input_error.h"

namespace efimsim {
namespace {

using test::ExpectInputError;
using test::kAzureHeader;
using test::ReadAll;
using test::ScratchDir;
using test::WriteFile;

// ---- item 5: a broken first JSON line is reported as JSON ----

TEST(TraceDetection, ABrokenFirstJsonLineIsAJsonError) {
  const std::string dir = ScratchDir();
  // A quote inside the line made the CSV fallback say "quote inside
  // unquoted field 1".
  ExpectInputError(WriteFile(dir, "broken.jsonl",
                             "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 1, "
                             "\"hash_ids\": [1, 2\n"
                             "{\"timestamp\": 1, \"input_length\": 10, \"output_length\": 1, "
                             "\"hash_ids\": [1]}\n"),
                   1, "", "not valid JSON at byte");
  ExpectInputError(WriteFile(dir, "blank-first.jsonl", "\n  {\"type\":\"header\",\n"), 2, "",
                   "not valid JSON");
  try {
    DetectTraceFormat(WriteFile(dir, "b.jsonl", "{\"a\": tru}\n"), kDefaultMaxLineBytes);
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).find("quote"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("JSON"), std::string::npos) << e.what();
  }
  // A valid JSON object of no known format is still "unrecognized".
  ExpectInputError(WriteFile(dir, "other.jsonl", "{\"x\": 1}\n"), 1, "", "unrecognized");
}

}  // namespace
}  // namespace efimsim
