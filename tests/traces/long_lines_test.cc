// Lines (and CSV records) over the maximum length: LineReader::Read and
// CsvRecordReader::Read skip them without holding them, and every trace
// reader with LongLinePolicy::kSkip counts them and drops exactly what
// depended on them (traces/line_reader.h, trace_reader.h).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "sim/base/errors.h"
#include "test_files.h"
#include "traces/csv_record_reader.h"
#include "traces/edited_document.h"
#include "traces/efim_trace_reader.h"
#include "traces/line_reader.h"
#include "traces/tasktracker_csv_reader.h"
#include "traces/trace_open.h"

namespace efimsim {
namespace {

using test::ReadAll;
using test::ScratchDir;
using test::WriteFile;

// Each session's final text, applying its records in order.
std::map<std::string, std::string> FinalTexts(const std::vector<TraceRecord>& records) {
  std::map<std::string, EditedDocument> documents;
  for (const TraceRecord& record : records) {
    if (const auto* start = std::get_if<SessionStart>(&record)) {
      documents.emplace(start->session_id, EditedDocument(*start));
    } else if (const auto* edit = std::get_if<EditEvent>(&record)) {
      documents.at(edit->session_id).Apply(*edit);
    }
  }
  std::map<std::string, std::string> texts;
  for (const auto& [id, document] : documents) texts[id] = document.text();
  return texts;
}

TEST(LineReader, ReadSkipsALongLineAndReturnsItsHead) {
  const std::string long_line = std::string(10000, 'a') + "\"x\"" + std::string(100, 'b');
  const std::string path =
      WriteFile(ScratchDir(), "l.txt", "short\n" + long_line + "\nnext\n" + long_line);
  LineReader lines(path, /*max_line_bytes=*/1000, LongLinePolicy::kSkip);
  std::string line;
  EXPECT_EQ(lines.Read(line), LineRead::kLine);
  EXPECT_EQ(line, "short");
  EXPECT_EQ(lines.Read(line), LineRead::kTooLong);
  EXPECT_EQ(lines.line_number(), 2);
  EXPECT_EQ(line, std::string(kSkippedLineHeadBytes, 'a'));
  EXPECT_EQ(lines.skipped_line_quotes(), 2);
  EXPECT_EQ(lines.Read(line), LineRead::kLine);
  EXPECT_EQ(line, "next");
  EXPECT_EQ(lines.line_number(), 3);
  // A last line without "\n" is skipped the same way.
  EXPECT_EQ(lines.Read(line), LineRead::kTooLong);
  EXPECT_EQ(lines.line_number(), 4);
  EXPECT_EQ(lines.Read(line), LineRead::kEndOfFile);
}

TEST(LineReader, NextStillRejectsALongLine) {
  const std::string path = WriteFile(ScratchDir(), "l.txt", "ok\n" + std::string(2000, 'a') + "\n");
  LineReader lines(path, 1000);
  std::string line;
  EXPECT_TRUE(lines.Next(line));
  try {
    lines.Next(line);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 2);
    EXPECT_NE(std::string(e.what()).find("longer than the maximum of 1000 bytes"), std::string::npos);
  }
  // Read with the default policy (kFail) throws the same way.
  LineReader strict(path, 1000);
  EXPECT_TRUE(strict.Next(line));
  EXPECT_THROW(strict.Read(line), InputError);
}

TEST(CsvRecordReader, ReadSkipsLongRecordsFollowingTheirQuotes) {
  // Record 2 is one long line; record 3 opens a quoted field on a long
  // line and closes it on the next; record 4 is short lines that together
  // exceed the maximum. Rows 1 and 5 must come through intact.
  const std::string path = WriteFile(
      ScratchDir(), "r.csv",
      "a,b\n"
      "1,x\n" +
          std::string(300, 'z') + ",y\n" +
          "2,\"" + std::string(300, 'q') + "\nstill quoted, \"\"escaped\"\"\nend\",w\n" +
          "3,\"" + std::string(50, 'm') + "\n" + std::string(50, 'm') + "\n" + std::string(50, 'm') +
          "\"\n"
          "4,\"kept\nacross lines\"\n");
  CsvRecordReader csv(path, /*max_record_bytes=*/120, LongLinePolicy::kSkip);
  std::vector<std::string> fields;
  ASSERT_EQ(csv.Read(fields), LineRead::kLine);
  EXPECT_EQ(fields, (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(csv.Read(fields), LineRead::kLine);
  EXPECT_EQ(fields, (std::vector<std::string>{"1", "x"}));
  EXPECT_EQ(csv.Read(fields), LineRead::kTooLong);
  EXPECT_EQ(csv.record_line(), 3);
  EXPECT_EQ(csv.Read(fields), LineRead::kTooLong);
  EXPECT_EQ(csv.record_line(), 4);
  EXPECT_EQ(csv.Read(fields), LineRead::kTooLong);
  EXPECT_EQ(csv.record_line(), 7);
  ASSERT_EQ(csv.Read(fields), LineRead::kLine);
  EXPECT_EQ(csv.record_line(), 10);
  EXPECT_EQ(fields, (std::vector<std::string>{"4", "kept\nacross lines"}));
  EXPECT_EQ(csv.Read(fields), LineRead::kEndOfFile);
}

TEST(CsvRecordReader, ASkippedQuotedFieldLeftOpenIsStillAnError) {
  const std::string path =
      WriteFile(ScratchDir(), "r.csv", "a,b\n1,\"" + std::string(300, 'q') + "\nnever closed\n");
  CsvRecordReader csv(path, 120, LongLinePolicy::kSkip);
  std::vector<std::string> fields;
  ASSERT_EQ(csv.Read(fields), LineRead::kLine);
  EXPECT_THROW(csv.Read(fields), InputError);
}

const std::string kHeader = "{\"type\":\"header\",\"schema_version\":1}\n";

std::string Session(const std::string& id, int64_t time_ns, const std::string& text) {
  return "{\"type\":\"session\",\"time_ns\":" + std::to_string(time_ns) + ",\"session_id\":\"" + id +
         "\",\"user_id\":\"u\",\"document_id\":\"d\",\"cursor_bytes\":0,\"text\":\"" + text + "\"}\n";
}
std::string Insert(const std::string& id, int64_t time_ns, const std::string& text) {
  return "{\"type\":\"edit\",\"time_ns\":" + std::to_string(time_ns) + ",\"session_id\":\"" + id +
         "\",\"kind\":\"insert\",\"offset_bytes\":0,\"text\":\"" + text + "\"}\n";
}
std::string End(const std::string& id, int64_t time_ns) {
  return "{\"type\":\"edit\",\"time_ns\":" + std::to_string(time_ns) + ",\"session_id\":\"" + id +
         "\",\"kind\":\"end\"}\n";
}
std::string Request(int64_t arrival_ns, int64_t prompt_tokens) {
  return "{\"type\":\"request\",\"arrival_ns\":" + std::to_string(arrival_ns) +
         ",\"prompt_tokens\":" + std::to_string(prompt_tokens) + ",\"output_tokens\":1}\n";
}

TEST(EfimTraceReader, SkipsALongRequestLineAlone) {
  const std::string long_request = "{\"type\":\"request\",\"arrival_ns\":2,\"prompt_tokens\":4,"
                                   "\"output_tokens\":1,\"token_ids\":[" +
                                   std::string(3000, ' ') + "1,2,3,4]}\n";
  const std::string path =
      WriteFile(ScratchDir(), "t.jsonl", kHeader + Request(1, 10) + long_request + Request(3, 30));
  EfimTraceReader reader(path, /*max_line_bytes=*/1000, LongLinePolicy::kSkip);
  const std::vector<TraceRecord> records = ReadAll(reader);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(std::get<TraceRequest>(records[1]).prompt_tokens, 30);
  EXPECT_EQ(reader.skipped_lines().lines, 1);
  EXPECT_EQ(reader.skipped_lines().dependent_records, 0);
  EXPECT_EQ(reader.skipped_lines().first_line, 3);
  EXPECT_EQ(reader.skipped_lines().first_what, "a request");
}

TEST(EfimTraceReader, ALongSessionLineDropsThatSessionOnly) {
  const std::string path = WriteFile(
      ScratchDir(), "t.jsonl",
      kHeader + Session("big", 1, std::string(2000, 'x')) + Session("small", 2, "s") +
          Insert("big", 3, "a") + Insert("small", 4, "b") + Request(5, 7) + End("big", 6) +
          End("small", 7));
  EfimTraceReader reader(path, 1000, LongLinePolicy::kSkip);
  const std::vector<TraceRecord> records = ReadAll(reader);
  ASSERT_EQ(records.size(), 4u);  // small's start, insert and end; the request
  EXPECT_EQ(FinalTexts(records), (std::map<std::string, std::string>{{"small", "bs"}}));
  EXPECT_EQ(reader.skipped_lines().lines, 1);
  EXPECT_EQ(reader.skipped_lines().dependent_records, 2);  // big's insert and end
  EXPECT_EQ(reader.skipped_lines().first_what, "session 'big' (its later events dropped)");
}

TEST(EfimTraceReader, ALongEditLineEndsItsSessionThere) {
  const std::string path = WriteFile(
      ScratchDir(), "t.jsonl",
      kHeader + Session("s", 1, "doc") + Insert("s", 2, "a") + Insert("s", 5, std::string(2000, 'y')) +
          Insert("s", 8, "b") + End("s", 9));
  EfimTraceReader reader(path, 1000, LongLinePolicy::kSkip);
  const std::vector<TraceRecord> records = ReadAll(reader);
  ASSERT_EQ(records.size(), 3u);
  const auto& end = std::get<EditEvent>(records[2]);
  EXPECT_EQ(end.kind, EditKind::kEnd);
  EXPECT_EQ(end.session_id, "s");
  EXPECT_EQ(end.time_ns, 5);  // the skipped edit's time, read from its head
  EXPECT_EQ(FinalTexts(records).at("s"), "adoc");
  EXPECT_EQ(reader.skipped_lines().dependent_records, 2);
}

TEST(EfimTraceReader, ALongLineThatDoesNotSayWhatItHoldsIsAnError) {
  // "text" comes first and is longer than the head: the type is not seen.
  const std::string line = "{\"text\":\"" + std::string(6000, 'x') +
                           "\",\"type\":\"session\",\"session_id\":\"s\"}\n";
  const std::string path = WriteFile(ScratchDir(), "t.jsonl", kHeader + Request(1, 5) + line);
  EfimTraceReader reader(path, 1000, LongLinePolicy::kSkip);
  EXPECT_TRUE(reader.Next().has_value());
  try {
    reader.Next();
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 3);
    EXPECT_NE(std::string(e.what()).find("do not say which request or session"), std::string::npos)
        << e.what();
  }
}

TEST(Importers, SkipLongRowsAndLinesWithLongLinePolicySkip) {
  const std::string dir = ScratchDir();
  TraceReadOptions options;
  options.max_line_bytes = 200;
  options.long_lines = LongLinePolicy::kSkip;

  const std::string azure = WriteFile(
      dir, "a.csv",
      "TIMESTAMP,ContextTokens,GeneratedTokens\n"
      "2023-11-16 18:17:03.0,10,1\n"
      "2023-11-16 18:17:04.0,20" + std::string(300, '0') + ",1\n"
      "2023-11-16 18:17:05.0,30,1\n");
  options.format = TraceFormat::kAzureCsv;
  auto reader = OpenTrace(azure, options);
  std::vector<TraceRecord> records = ReadAll(*reader);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(std::get<TraceRequest>(records[1]).prompt_tokens, 30);
  EXPECT_EQ(reader->skipped_lines().lines, 1);
  EXPECT_EQ(reader->skipped_lines().first_line, 3);

  const std::string mooncake = WriteFile(
      dir, "m.jsonl",
      "{\"timestamp\":0,\"input_length\":10,\"output_length\":1,\"hash_ids\":[1]}\n"
      "{\"timestamp\":1,\"input_length\":10,\"output_length\":1,\"hash_ids\":[2" +
          std::string(300, ' ') + "]}\n"
          "{\"timestamp\":2,\"input_length\":10,\"output_length\":1,\"hash_ids\":[3]}\n");
  options.format = TraceFormat::kMooncakeJsonl;
  reader = OpenTrace(mooncake, options);
  records = ReadAll(*reader);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(std::get<TraceRequest>(records[1]).arrival_ns, 2'000'000);
  EXPECT_EQ(reader->skipped_lines().lines, 1);

  // TaskTracker: the snapshot after a skipped one is diffed against the one
  // before it, so the document still ends as the last snapshot.
  const std::string tasktracker = WriteFile(
      dir, "t.csv",
      "date,fragment\n"
      "2019-12-20T13:47:36Z,abc\n"
      "2019-12-20T13:47:37Z,\"" + std::string(300, 'x') + "\"\n"
      "2019-12-20T13:47:38Z,abcd\n");
  options.format = TraceFormat::kTaskTrackerCsv;
  reader = OpenTrace(tasktracker, options);
  records = ReadAll(*reader);
  EXPECT_EQ(FinalTexts(records).at(TaskTrackerCsvReader::kSessionId), "abcd");
  EXPECT_EQ(reader->skipped_lines().lines, 1);

  const std::string humaneval = WriteFile(
      dir, "h.jsonl",
      "{\"task_id\":\"T/0\",\"prompt\":\"" + std::string(300, 'p') +
          "\",\"suffix\":\"\",\"canonical_solution\":\"x\"}\n"
          "{\"task_id\":\"T/1\",\"prompt\":\"a\",\"suffix\":\"b\",\"canonical_solution\":\"c\"}\n");
  options.format = TraceFormat::kHumanEvalInfilling;
  reader = OpenTrace(humaneval, options);
  records = ReadAll(*reader);
  EXPECT_EQ(FinalTexts(records), (std::map<std::string, std::string>{{"T/1", "acb"}}));
  EXPECT_EQ(reader->skipped_lines().lines, 1);
  EXPECT_EQ(reader->skipped_lines().first_what, "a task");

  // With the default policy every one of them is an InputError instead.
  for (const auto& [path, format] : std::vector<std::pair<std::string, TraceFormat>>{
           {azure, TraceFormat::kAzureCsv},
           {mooncake, TraceFormat::kMooncakeJsonl},
           {tasktracker, TraceFormat::kTaskTrackerCsv},
           {humaneval, TraceFormat::kHumanEvalInfilling}}) {
    TraceReadOptions strict;
    strict.max_line_bytes = 200;
    strict.format = format;
    EXPECT_THROW(
        {
          const auto r = OpenTrace(path, strict);
          ReadAll(*r);
        },
        InputError)
        << path;
  }
}

}  // namespace
}  // namespace efimsim
