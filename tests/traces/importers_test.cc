#include <gtest/gtest.h>

#include <map>

#include "sim/base/errors.h"
#include "test_files.h"
#include "traces/azure_csv_reader.h"
#include "traces/edited_document.h"
#include "traces/humaneval_reader.h"
#include "traces/mooncake_block_keys.h"
#include "traces/mooncake_reader.h"
#include "traces/tasktracker_csv_reader.h"
#include "traces/trace_open.h"

namespace efimsim {
namespace {

using test::ReadAll;
using test::ScratchDir;
using test::SharedData;
using test::WriteFile;

void ExpectSortedByTime(const std::vector<TraceRecord>& records) {
  for (size_t i = 1; i < records.size(); ++i) {
    ASSERT_LE(RecordTimeNs(records[i - 1]), RecordTimeNs(records[i])) << "record " << i;
  }
}

// Replays every session's edits on an EditedDocument; returns the final texts.
std::map<std::string, std::string> ReplaySessions(const std::vector<TraceRecord>& records) {
  std::map<std::string, EditedDocument> open;
  std::map<std::string, std::string> finished;
  for (const TraceRecord& record : records) {
    if (const auto* s = std::get_if<SessionStart>(&record)) {
      EXPECT_FALSE(open.count(s->session_id)) << s->session_id;
      open.emplace(s->session_id, EditedDocument(*s));
    } else if (const auto* e = std::get_if<EditEvent>(&record)) {
      auto it = open.find(e->session_id);
      if (it == open.end()) {
        ADD_FAILURE() << "edit of unknown session " << e->session_id;
        continue;
      }
      it->second.Apply(*e);
      if (e->kind == EditKind::kEnd) {
        finished[e->session_id] = it->second.text();
        open.erase(it);
      }
    }
  }
  EXPECT_TRUE(open.empty()) << open.size() << " sessions never ended";
  return finished;
}

// ---- Azure ----

TEST(AzureCsv, ReadsRequestsRelativeToTheFirstRow) {
  const std::string path = WriteFile(ScratchDir(), "a.csv",
                                     "TIMESTAMP,ContextTokens,GeneratedTokens\r\n"
                                     "2023-11-16 18:17:03.9799600,4808,10\r\n"
                                     "2023-11-16 18:17:04.0319600,3180,8\r\n");
  const auto reader = OpenTrace(path);
  EXPECT_EQ(reader->header().source, "azure-llm-csv");
  const std::vector<TraceRecord> records = ReadAll(*reader);
  ASSERT_EQ(records.size(), 2u);
  const auto& second = std::get<TraceRequest>(records[1]);
  EXPECT_EQ(std::get<TraceRequest>(records[0]).arrival_ns, 0);
  EXPECT_EQ(second.arrival_ns, 52'000'000);
  EXPECT_EQ(second.prompt_tokens, 3180);
  EXPECT_EQ(second.output_tokens, 8);
  EXPECT_TRUE(second.session_id.empty());
}

TEST(AzureCsv, BadRowsNameLineAndColumn) {
  const std::string dir = ScratchDir();
  const auto error_of = [&](const std::string& body) -> std::string {
    const std::string path = WriteFile(dir, "a.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n" + body);
    try {
      AzureCsvReader reader(path);
      ReadAll(reader);
    } catch (const InputError& e) {
      return std::to_string(e.line()) + " " + e.field();
    }
    return "no error";
  };
  EXPECT_EQ(error_of("2023-11-16 18:17:03.9,12,x\n"), "2 GeneratedTokens");
  EXPECT_EQ(error_of("2023-11-16 18:17:03.9,1,1\nyesterday,1,1\n"), "3 TIMESTAMP");
  EXPECT_EQ(error_of("2023-11-16 18:17:03.9,1,1\n2023-11-16 18:17:02.9,1,1\n"), "3 TIMESTAMP");
  EXPECT_EQ(error_of("2023-11-16 18:17:03.9,-5,1\n"), "2 ContextTokens");
  const std::string no_column = WriteFile(dir, "b.csv", "TIMESTAMP,GeneratedTokens\n");
  EXPECT_THROW(AzureCsvReader{no_column}, InputError);
}

TEST(AzureCsv, RealTraceHas8819Requests) {
  const std::string path = SharedData("traces/azure-llm-code-2023.csv");
  EFIMSIM_REQUIRE_SHARED_DATA(path);
  const auto reader = OpenTrace(path);
  int64_t count = 0, last_ns = 0;
  while (auto record = reader->Next()) {
    ++count;
    last_ns = RecordTimeNs(*record);
  }
  EXPECT_EQ(count, 8819);
  // 18:17:03.97996 .. 19:14:19.928016: about 57 minutes.
  EXPECT_EQ(last_ns, 3'435'948'056'000);
}

// ---- Mooncake ----

TEST(MooncakeBlockKeys, SharedHashIdPrefixGivesSharedBlockKeyPrefix) {
  const std::vector<uint64_t> a{0, 1, 2};
  const std::vector<uint64_t> b{0, 1, 7, 8};
  const std::vector<uint64_t> ka = ExpandMooncakeHashIds(a, 3 * 512);
  const std::vector<uint64_t> kb = ExpandMooncakeHashIds(b, 3 * 512 + 100);
  ASSERT_EQ(ka.size(), 96u);
  ASSERT_EQ(kb.size(), 96u + 6u);  // the partial block's 100 tokens: 6 full 16-token blocks
  for (size_t j = 0; j < 64; ++j) EXPECT_EQ(ka[j], kb[j]) << j;
  for (size_t j = 64; j < 96; ++j) EXPECT_NE(ka[j], kb[j]) << j;
  // Keys within a 512-token block all differ, and so do equal ids at other positions.
  EXPECT_NE(ka[0], ka[1]);
  const std::vector<uint64_t> c{5, 0};
  EXPECT_NE(ExpandMooncakeHashIds(c, 1024)[32], ka[0]);
  // A prompt shorter than one block: only its full 16-token blocks.
  EXPECT_EQ(ExpandMooncakeHashIds(a, 40).size(), 2u);
  EXPECT_EQ(ExpandMooncakeHashIds(a, 40)[1], ka[1]);
  // Deterministic.
  EXPECT_EQ(ExpandMooncakeHashIds(b, 1000), ExpandMooncakeHashIds(b, 1000));
}

TEST(Mooncake, ReadsRequestsWithBlockKeys) {
  const std::string path =
      WriteFile(ScratchDir(), "m.jsonl",
                "{\"timestamp\": 0, \"input_length\": 600, \"output_length\": 6, \"hash_ids\": [0, 1]}\n"
                "{\"timestamp\": 25, \"input_length\": 520, \"output_length\": 1, \"hash_ids\": [0, 9]}\n");
  const auto reader = OpenTrace(path);
  const std::vector<TraceRecord> records = ReadAll(*reader);
  ASSERT_EQ(records.size(), 2u);
  const auto& first = std::get<TraceRequest>(records[0]);
  const auto& second = std::get<TraceRequest>(records[1]);
  EXPECT_EQ(second.arrival_ns, 25'000'000);
  EXPECT_EQ(first.prompt_tokens, 600);
  EXPECT_EQ(first.block_key_tokens, 16);
  EXPECT_EQ(first.block_keys.size(), 37u);
  EXPECT_EQ(second.block_keys.size(), 32u);
  EXPECT_TRUE(std::equal(second.block_keys.begin(), second.block_keys.end(), first.block_keys.begin()));
}

TEST(Mooncake, BadLinesNameLineAndField) {
  const std::string dir = ScratchDir();
  const auto error_of = [&](const std::string& body) -> std::string {
    const std::string path = WriteFile(dir, "m.jsonl", body);
    try {
      MooncakeReader reader(path);
      ReadAll(reader);
    } catch (const InputError& e) {
      return std::to_string(e.line()) + " " + e.field();
    }
    return "no error";
  };
  const std::string good = "{\"timestamp\":5,\"input_length\":10,\"output_length\":1,\"hash_ids\":[1]}\n";
  EXPECT_EQ(error_of(good + "{\"timestamp\":6,\"input_length\":1000,\"output_length\":1,\"hash_ids\":[1]}\n"),
            "2 hash_ids");
  EXPECT_EQ(error_of(good + "{\"timestamp\":4,\"input_length\":10,\"output_length\":1,\"hash_ids\":[1]}\n"),
            "2 timestamp");
  EXPECT_EQ(error_of(good + "{\"timestamp\":6,\"output_length\":1,\"hash_ids\":[1]}\n"),
            "2 input_length");
  EXPECT_EQ(error_of(good + "{\"timestamp\":6,\"input_length\":10,\"output_length\":1,\"hash_ids\":[-1]}\n"),
            "2 hash_ids");
  EXPECT_EQ(error_of(good + "not json\n"), "2 ");
}

TEST(Mooncake, RealTraceHas3993RequestsAndExactBlockReuse) {
  const std::string path = SharedData("traces/mooncake-synthetic.jsonl");
  EFIMSIM_REQUIRE_SHARED_DATA(path);
  const auto reader = OpenTrace(path);
  int64_t count = 0, keys = 0;
  std::optional<TraceRequest> first;
  while (auto record = reader->Next()) {
    auto& request = std::get<TraceRequest>(*record);
    ++count;
    keys += static_cast<int64_t>(request.block_keys.size());
    EXPECT_EQ(static_cast<int64_t>(request.block_keys.size()), request.prompt_tokens / 16);
    if (!first) first = std::move(request);
  }
  EXPECT_EQ(count, 3993);
  EXPECT_EQ(first->prompt_tokens, 40160);
  EXPECT_EQ(first->block_keys.size(), 2510u);
  EXPECT_GT(keys, 0);
}

// ---- TaskTracker ----

TEST(TaskTracker, DiffsSnapshotsIntoEdits) {
  const std::string path = WriteFile(
      ScratchDir(), "t.csv",
      "date,timestamp,fileName,fragment,other\n"
      "2019-12-20T13:47:36.596+03:00,0,main.cpp,\"int main() {\n}\n\",x\n"
      "2019-12-20T13:47:37.658+03:00,14,main.cpp,\"int main() {\n}\n\",x\n"
      "2019-12-20T13:47:37.704+03:00,21,main.cpp,\"int main() {\n  i\n}\n\",\"a,b\"\n"
      "2019-12-20T13:47:38.004+03:00,30,main.cpp,\"int main() {\n  j\n}\n\",x\n");
  const auto reader = OpenTrace(path);
  const std::vector<TraceRecord> records = ReadAll(*reader);
  ASSERT_EQ(records.size(), 5u);
  EXPECT_EQ(reader->current_line(), 12);  // the last row starts on line 12
  const auto& session = std::get<SessionStart>(records[0]);
  EXPECT_EQ(session.document_id, "main.cpp");
  EXPECT_EQ(session.text, "int main() {\n}\n");
  const auto& insert = std::get<EditEvent>(records[1]);
  EXPECT_EQ(insert.kind, EditKind::kInsert);
  EXPECT_EQ(insert.time_ns, 1'108'000'000);
  EXPECT_EQ(insert.offset_bytes, 13);
  EXPECT_EQ(insert.text, "  i\n");
  EXPECT_EQ(std::get<EditEvent>(records[2]).kind, EditKind::kDelete);
  EXPECT_EQ(std::get<EditEvent>(records[3]).text, "j");
  EXPECT_EQ(std::get<EditEvent>(records[4]).kind, EditKind::kEnd);
  EXPECT_EQ(ReplaySessions(records).at("tasktracker"), "int main() {\n  j\n}\n");
}

TEST(TaskTracker, RealLogReplaysToItsLastSnapshot) {
  const std::string path = SharedData("traces/tasktracker-cpp-snapshots.csv");
  EFIMSIM_REQUIRE_SHARED_DATA(path);
  const auto reader = OpenTrace(path);
  const std::vector<TraceRecord> records = ReadAll(*reader);
  ExpectSortedByTime(records);
  int64_t edits = 0;
  for (const TraceRecord& record : records) {
    if (const auto* e = std::get_if<EditEvent>(&record); e && e->kind != EditKind::kEnd) ++edits;
  }
  // 1,205 snapshots; 946 differ from the one before, each one insert and/or delete.
  EXPECT_GE(edits, 946);
  EXPECT_LE(edits, 2 * 946);
  const auto finished = ReplaySessions(records);
  ASSERT_EQ(finished.size(), 1u);
  EXPECT_NE(finished.begin()->second.find("int main()"), std::string::npos);
  // About 29 minutes of editing.
  EXPECT_GT(RecordTimeNs(records.back()), 25LL * 60 * 1'000'000'000);
  EXPECT_LT(RecordTimeNs(records.back()), 35LL * 60 * 1'000'000'000);
}

// ---- HumanEval ----

TEST(HumanEval, TypesTheMiddleAtTheGivenSpeed) {
  const std::string path = WriteFile(
      ScratchDir(), "h.jsonl",
      "{\"task_id\":\"T/0\",\"prompt\":\"def f():\\n\",\"suffix\":\"\\n\",\"canonical_solution\":\"  é\","
      "\"test\":\"ignored\"}\n"
      "{\"task_id\":\"T/1\",\"prompt\":\"a\",\"suffix\":\"b\",\"canonical_solution\":\"\"}\n");
  TraceReadOptions options;
  options.humaneval.chars_per_second = 4;
  options.humaneval.session_gap_ns = 1000;
  const auto reader = OpenTrace(path, options);
  const std::vector<TraceRecord> records = ReadAll(*reader);
  ASSERT_EQ(records.size(), 1u + 3u + 1u + 1u + 1u);
  const auto& session = std::get<SessionStart>(records[0]);
  EXPECT_EQ(session.text, "def f():\n\n");
  EXPECT_EQ(session.cursor_bytes, 9);
  EXPECT_EQ(session.text_to_type, "  é");  // the middle: a completion's reference output
  const auto& last_key = std::get<EditEvent>(records[3]);
  EXPECT_EQ(last_key.text, "é");  // one code point, two bytes
  EXPECT_EQ(last_key.time_ns, 750'000'000);
  EXPECT_EQ(std::get<SessionStart>(records[5]).time_ns, 750'001'000);
  const auto finished = ReplaySessions(records);
  EXPECT_EQ(finished.at("T/0"), "def f():\n  é\n");
  EXPECT_EQ(finished.at("T/1"), "ab");
}

TEST(HumanEval, ConcurrentUsersInterleaveInTimeOrder) {
  std::string content;
  for (int i = 0; i < 5; ++i) {
    content += "{\"task_id\":\"T/" + std::to_string(i) +
               "\",\"prompt\":\"p\",\"suffix\":\"s\",\"canonical_solution\":\"" +
               std::string(static_cast<size_t>(i + 1), 'x') + "\"}\n";
  }
  const std::string path = WriteFile(ScratchDir(), "h.jsonl", content);
  HumanEvalImportOptions options;
  options.users = 2;
  HumanEvalReader reader(path, options);
  const std::vector<TraceRecord> records = ReadAll(reader);
  ExpectSortedByTime(records);
  EXPECT_EQ(ReplaySessions(records).size(), 5u);
  EXPECT_EQ(std::get<SessionStart>(records[1]).session_id, "T/1");  // both lanes start at 0
}

TEST(HumanEval, RealGzipFileHas1033Tasks) {
  const std::string path = SharedData("infilling/HumanEval-SingleLineInfilling.jsonl.gz");
  EFIMSIM_REQUIRE_SHARED_DATA(path);
  const auto reader = OpenTrace(path);
  EXPECT_EQ(reader->header().source, "humaneval-infilling");
  int64_t sessions = 0, inserts = 0;
  std::map<std::string, EditedDocument> open;
  while (auto record = reader->Next()) {
    if (const auto* s = std::get_if<SessionStart>(&*record)) {
      ++sessions;
      open.emplace(s->session_id, EditedDocument(*s));
    } else {
      const auto& e = std::get<EditEvent>(*record);
      EditedDocument& doc = open.at(e.session_id);
      const EditEffect effect = doc.Apply(e);
      if (e.kind == EditKind::kInsert) {
        ++inserts;
        EXPECT_TRUE(effect.appended_at_cursor);
      }
      if (e.kind == EditKind::kEnd) open.erase(e.session_id);
    }
  }
  EXPECT_EQ(sessions, 1033);
  EXPECT_GT(inserts, 1033 * 10);
  EXPECT_TRUE(open.empty());
}

}  // namespace
}  // namespace efimsim
