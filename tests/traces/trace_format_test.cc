#include <gtest/gtest.h>

#include <limits>
#include <sstream>

#include "sim/base/errors.h"
#include "test_files.h"
#include "traces/efim_trace_reader.h"
#include "traces/trace_io.h"
#include "traces/trace_open.h"
#include "traces/trace_writer.h"

namespace efimsim {
namespace {

using test::ScratchDir;
using test::WriteFile;

std::vector<TraceRecord> SampleRecords() {
  std::vector<TraceRecord> records;
  SessionStart session;
  session.time_ns = 0;
  session.session_id = "s1";
  session.user_id = "alice";
  session.document_id = "src/ü.py";
  session.text = "def f():\n    return \"é\\n\"\t\n";
  session.cursor_bytes = 9;
  records.push_back(session);
  const auto edit = [](int64_t t, EditKind kind) {
    EditEvent e;
    e.time_ns = t;
    e.session_id = "s1";
    e.kind = kind;
    return e;
  };
  EditEvent insert = edit(10, EditKind::kInsert);
  insert.offset_bytes = 9;
  insert.text = "x = 1 # ☃\n";
  records.push_back(insert);
  EditEvent del = edit(20, EditKind::kDelete);
  del.offset_bytes = 9;
  del.length_bytes = 2;
  records.push_back(del);
  EditEvent move = edit(20, EditKind::kMoveCursor);
  move.offset_bytes = 3;
  records.push_back(move);
  EditEvent shown = edit(30, EditKind::kCompletionShown);
  shown.text = "pass";
  records.push_back(shown);
  records.push_back(edit(31, EditKind::kCompletionShown));  // no text
  EditEvent accepted = edit(40, EditKind::kCompletionAccepted);
  accepted.offset_bytes = 3;
  accepted.text = "pass";
  records.push_back(accepted);
  records.push_back(edit(50, EditKind::kCompletionRejected));
  EditEvent idle = edit(60, EditKind::kIdle);
  idle.duration_ns = 2'000'000'000;
  records.push_back(idle);
  TraceRequest plain;
  plain.arrival_ns = 70;
  plain.prompt_tokens = 1469;
  plain.output_tokens = 13;
  records.push_back(plain);
  TraceRequest full;
  full.arrival_ns = 80;
  full.session_id = "s1";
  full.prompt_tokens = 40;
  full.output_tokens = 0;
  for (int i = 0; i < 40; ++i) full.token_ids.push_back(128000 + i);
  full.block_key_tokens = 16;
  // Above 2^53 (where JSON numbers lose precision) and the largest key.
  full.block_keys = {(uint64_t{1} << 53) + 1, std::numeric_limits<uint64_t>::max()};
  records.push_back(full);
  records.push_back(edit(90, EditKind::kEnd));
  return records;
}

std::string WriteTrace(const std::vector<TraceRecord>& records) {
  std::ostringstream out;
  TraceHeader header;
  header.source = "test";
  header.description = "round trip";
  TraceWriter writer(out, header);
  for (const TraceRecord& record : records) writer.Write(record);
  return out.str();
}

std::vector<TraceRecord> ReadAll(TraceReader& reader) {
  std::vector<TraceRecord> records;
  while (auto record = reader.Next()) records.push_back(std::move(*record));
  return records;
}

TEST(TraceFormat, WriterOutputReadsBackToIdenticalBytes) {
  const std::string dir = ScratchDir();
  const std::string bytes = WriteTrace(SampleRecords());
  const std::string path = WriteFile(dir, "t.jsonl", bytes);
  EfimTraceReader reader(path);
  EXPECT_EQ(reader.header().source, "test");
  const std::vector<TraceRecord> records = ReadAll(reader);
  ASSERT_EQ(records.size(), SampleRecords().size());
  EXPECT_EQ(WriteTrace(records), bytes);
  const auto& request = std::get<TraceRequest>(records[10]);
  EXPECT_EQ(request.block_keys[0], (uint64_t{1} << 53) + 1);
  EXPECT_EQ(request.block_keys[1], std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(request.token_ids.size(), 40u);
  // Block keys are written as decimal strings.
  EXPECT_NE(bytes.find("\"block_keys\":[\"9007199254740993\",\"18446744073709551615\"]"),
            std::string::npos);
}

TEST(TraceFormat, WritingTwiceGivesTheSameBytes) {
  EXPECT_EQ(WriteTrace(SampleRecords()), WriteTrace(SampleRecords()));
}

TEST(TraceFormat, SessionTextMayLiveInAFileBesideTheTrace) {
  const std::string dir = ScratchDir();
  WriteFile(dir, "docs/a.py", "print('hi')\n");
  const std::string path = WriteFile(
      dir, "t.jsonl",
      "{\"type\":\"header\",\"schema_version\":1}\n"
      "{\"type\":\"session\",\"time_ns\":5,\"session_id\":\"s\",\"user_id\":\"u\","
      "\"document_id\":\"a\",\"cursor_bytes\":5,\"text_file\":\"docs/a.py\"}\n");
  EfimTraceReader reader(path);
  const std::vector<TraceRecord> records = ReadAll(reader);
  ASSERT_EQ(records.size(), 1u);
  const auto& session = std::get<SessionStart>(records[0]);
  EXPECT_EQ(session.text, "print('hi')\n");
  EXPECT_EQ(session.text_file, "docs/a.py");
  // Written back as the reference, not inline.
  std::ostringstream out;
  TraceWriter writer(out, TraceHeader{});
  writer.Write(records[0]);
  EXPECT_NE(out.str().find("\"text_file\":\"docs/a.py\""), std::string::npos);
  EXPECT_EQ(out.str().find("print"), std::string::npos);
}

TEST(TraceFormat, AcceptsBlockKeysAsJsonNumbersAndSkipsBlankLines) {
  const std::string dir = ScratchDir();
  const std::string path = WriteFile(
      dir, "t.jsonl",
      "{\"type\":\"header\",\"schema_version\":1}\n\n"
      "{\"type\":\"request\",\"arrival_ns\":0,\"prompt_tokens\":32,\"output_tokens\":1,"
      "\"block_key_tokens\":16,\"block_keys\":[7,\"8\"]}\n");
  EfimTraceReader reader(path);
  const std::vector<TraceRecord> records = ReadAll(reader);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(reader.current_line(), 3);
  EXPECT_EQ(std::get<TraceRequest>(records[0]).block_keys, (std::vector<uint64_t>{7, 8}));
}

struct BadLineCase {
  std::string line;
  std::string field;
  std::string problem;  // substring of the message
};

TEST(TraceFormat, BadLinesNameFileLineAndField) {
  const std::string header = "{\"type\":\"header\",\"schema_version\":1}\n";
  const std::string good_edit =
      "{\"type\":\"edit\",\"time_ns\":1,\"session_id\":\"s\",\"kind\":\"idle\",\"duration_ns\":0}\n";
  const std::vector<BadLineCase> cases = {
      {"{\"type\":\"edit\",", "", "not valid JSON"},
      {"[1,2]", "", "not a JSON object"},
      {"{\"type\":\"nonsense\"}", "type", "unknown record type"},
      {"{\"type\":\"edit\",\"time_ns\":5,\"session_id\":\"s\",\"kind\":\"typo\"}", "kind",
       "unknown edit kind"},
      {"{\"type\":\"edit\",\"time_ns\":5,\"session_id\":\"s\",\"kind\":\"insert\",\"text\":\"a\"}",
       "offset_bytes", "missing"},
      {"{\"type\":\"edit\",\"time_ns\":5.5,\"session_id\":\"s\",\"kind\":\"end\"}", "time_ns",
       "integer"},
      {"{\"type\":\"edit\",\"time_ns\":5,\"session_id\":\"s\",\"kind\":\"delete\","
       "\"offset_bytes\":0,\"length_bytes\":0}",
       "length_bytes", ">= 1"},
      {"{\"type\":\"edit\",\"time_ns\":5,\"session_id\":\"s\",\"kind\":\"end\",\"offset\":3}",
       "offset", "unknown field"},
      {"{\"type\":\"edit\",\"time_ns\":0,\"session_id\":\"s\",\"kind\":\"end\"}", "time_ns",
       "sorted by time"},
      {"{\"type\":\"session\",\"time_ns\":5,\"session_id\":\"s\",\"user_id\":\"u\","
       "\"document_id\":\"d\",\"cursor_bytes\":9,\"text\":\"abc\"}",
       "cursor_bytes", "outside"},
      {"{\"type\":\"session\",\"time_ns\":5,\"session_id\":\"s\",\"user_id\":\"u\","
       "\"document_id\":\"d\",\"cursor_bytes\":1,\"text\":\"\\u00e9\"}",
       "cursor_bytes", "splits a UTF-8"},
      {"{\"type\":\"session\",\"time_ns\":5,\"session_id\":\"s\",\"user_id\":\"u\","
       "\"document_id\":\"d\",\"cursor_bytes\":0}",
       "text", "exactly one"},
      {"{\"type\":\"session\",\"time_ns\":5,\"session_id\":\"s\",\"user_id\":\"u\","
       "\"document_id\":\"d\",\"cursor_bytes\":0,\"text_file\":\"missing.py\"}",
       "text_file", "cannot read"},
      {"{\"type\":\"request\",\"arrival_ns\":5,\"prompt_tokens\":3,\"output_tokens\":1,"
       "\"token_ids\":[1,2]}",
       "token_ids", "prompt_tokens is 3"},
      {"{\"type\":\"request\",\"arrival_ns\":5,\"prompt_tokens\":31,\"output_tokens\":1,"
       "\"block_key_tokens\":16,\"block_keys\":[\"1\",\"2\"]}",
       "block_keys", "only 1 full blocks"},
      {"{\"type\":\"request\",\"arrival_ns\":5,\"prompt_tokens\":32,\"output_tokens\":1,"
       "\"block_key_tokens\":16,\"block_keys\":[\"18446744073709551616\"]}",
       "block_keys", "unsigned 64-bit"},
      {"{\"type\":\"request\",\"arrival_ns\":5,\"prompt_tokens\":32,\"output_tokens\":1,"
       "\"block_key_tokens\":16,\"block_keys\":[-1]}",
       "block_keys", ">= 0"},
      {"{\"type\":\"request\",\"arrival_ns\":5,\"prompt_tokens\":32,\"output_tokens\":1,"
       "\"block_keys\":[\"1\"]}",
       "block_key_tokens", "missing"},
      {"{\"type\":\"header\",\"schema_version\":1}", "type", "second header"},
  };
  const std::string dir = ScratchDir();
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(cases[i].line);
    const std::string path =
        WriteFile(dir, "bad" + std::to_string(i) + ".jsonl", header + good_edit + cases[i].line + "\n");
    EfimTraceReader reader(path);
    ASSERT_TRUE(reader.Next().has_value());
    try {
      reader.Next();
      ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), path);
      EXPECT_EQ(e.line(), 3);
      EXPECT_EQ(e.field(), cases[i].field) << e.what();
      EXPECT_NE(std::string(e.what()).find(cases[i].problem), std::string::npos) << e.what();
    }
  }
}

TEST(TraceFormat, RejectsAMissingOrWrongHeader) {
  const std::string dir = ScratchDir();
  const auto error_of = [&](const std::string& content) {
    const std::string path = WriteFile(dir, "h.jsonl", content);
    try {
      EfimTraceReader reader(path);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of("").find(":1: empty file"), std::string::npos);
  EXPECT_NE(error_of("{\"type\":\"request\"}\n").find(":1: field 'type'"), std::string::npos);
  EXPECT_NE(error_of("{\"type\":\"header\",\"schema_version\":2}\n").find("unsupported version 2"),
            std::string::npos);
}

TEST(TraceFormat, RejectsLinesLongerThanTheMaximum) {
  const std::string dir = ScratchDir();
  const std::string path =
      WriteFile(dir, "long.jsonl",
                "{\"type\":\"header\",\"schema_version\":1}\n" +
                    std::string("{\"type\":\"edit\",\"time_ns\":1,\"session_id\":\"") +
                    std::string(500, 'x') + "\",\"kind\":\"end\"}\n");
  EfimTraceReader reader(path, /*max_line_bytes=*/100);
  try {
    reader.Next();
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 2);
    EXPECT_NE(std::string(e.what()).find("longer than the maximum of 100 bytes"), std::string::npos)
        << e.what();
  }
  // The same file reads with the default maximum.
  EfimTraceReader generous(path);
  EXPECT_TRUE(generous.Next().has_value());
}

TEST(TraceFormat, WriterRefusesWhatTheReaderWouldReject) {
  std::ostringstream out;
  TraceWriter writer(out, TraceHeader{});
  EditEvent e;
  e.time_ns = 10;
  e.session_id = "s";
  e.kind = EditKind::kEnd;
  writer.Write(e);
  e.time_ns = 5;
  EXPECT_THROW(writer.Write(e), OutputError);  // back in time
  e.time_ns = 10;
  e.kind = EditKind::kInsert;  // without text
  EXPECT_THROW(writer.Write(e), OutputError);
  e.text = "\xff";  // not UTF-8
  EXPECT_THROW(writer.Write(e), OutputError);
  EXPECT_EQ(writer.records_written(), 1);
}

TEST(TraceFormat, OpenTraceDetectsEveryFormat) {
  const std::string dir = ScratchDir();
  const auto detect = [&](const std::string& name, const std::string& content) {
    return DetectTraceFormat(WriteFile(dir, name, content));
  };
  EXPECT_EQ(detect("a.jsonl", "{\"type\":\"header\",\"schema_version\":1}\n"), TraceFormat::kEfimsim);
  EXPECT_EQ(detect("b.jsonl", "{\"timestamp\":0,\"input_length\":1,\"output_length\":1,\"hash_ids\":[1]}\n"),
            TraceFormat::kMooncakeJsonl);
  EXPECT_EQ(detect("c.jsonl", "{\"task_id\":\"t\",\"prompt\":\"a\",\"suffix\":\"b\","
                              "\"canonical_solution\":\"c\"}\n"),
            TraceFormat::kHumanEvalInfilling);
  EXPECT_EQ(detect("d.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n"), TraceFormat::kAzureCsv);
  EXPECT_EQ(detect("e.csv", "date,timestamp,fragment\n"), TraceFormat::kTaskTrackerCsv);
  EXPECT_THROW(detect("f.txt", "hello\n"), InputError);
  EXPECT_THROW(detect("g.txt", ""), InputError);
  EXPECT_THROW(OpenTrace(dir + "/does-not-exist.jsonl"), InputError);
  for (TraceFormat format : {TraceFormat::kAuto, TraceFormat::kEfimsim, TraceFormat::kAzureCsv,
                             TraceFormat::kMooncakeJsonl, TraceFormat::kTaskTrackerCsv,
                             TraceFormat::kHumanEvalInfilling}) {
    EXPECT_EQ(ParseTraceFormat(TraceFormatName(format)), format);
  }
}

}  // namespace
}  // namespace efimsim
