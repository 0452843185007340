// Issue 25 item 9: a reader tells its caller that a trace held no record
// (a header-only file), so a run can refuse "nothing to measure".
#include <gtest/gtest.h>

#include <string>

#include "traces/trace_open.h"

#include "expect_input_error.h"

namespace efimsim {
namespace {

using test::ExpectInputError;
using test::kAzureHeader;
using test::ReadAll;
using test::ScratchDir;
using test::WriteFile;

// ---- item 9: a reader says when the trace held no record ----

TEST(TraceRecordCounts, HeaderOnlyTracesHoldNoRecord) {
  const std::string dir = ScratchDir();
  for (const std::string& path :
       {WriteFile(dir, "a.csv", kAzureHeader),
        WriteFile(dir, "e.jsonl", "{\"type\":\"header\",\"schema_version\":1}\n\n"),
        WriteFile(dir, "t.csv", "date,fragment\n")}) {
    auto reader = OpenTrace(path);
    EXPECT_FALSE(reader->Next().has_value()) << path;
    EXPECT_TRUE(reader->records_read().empty()) << path;
    EXPECT_EQ(reader->records_read().requests, 0) << path;
  }
}

TEST(TraceRecordCounts, CountsEachKind) {
  const std::string dir = ScratchDir();
  auto azure = OpenTrace(WriteFile(dir, "a.csv", std::string(kAzureHeader) +
                                                     "2023-11-16 18:17:03.9799600,4808,10\n"));
  ReadAll(*azure);
  EXPECT_FALSE(azure->records_read().empty());
  EXPECT_EQ(azure->records_read().requests, 1);
  auto tasktracker = OpenTrace(WriteFile(dir, "t.csv",
                                         "date,fragment\n"
                                         "2019-12-20T13:47:36.596+03:00,a\n"
                                         "2019-12-20T13:47:37.596+03:00,ab\n"));
  ReadAll(*tasktracker);
  EXPECT_EQ(tasktracker->records_read().requests, 0);
  EXPECT_EQ(tasktracker->records_read().sessions, 1);
  EXPECT_EQ(tasktracker->records_read().edits, 2);  // the insert and the end
}

}  // namespace
}  // namespace efimsim
