#include "traces/typing_workload.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <sstream>

#include "sim/base/errors.h"
#include "test_files.h"
#include "traces/edited_document.h"
#include "traces/trace_writer.h"

namespace efimsim {
namespace {

// A small source tree: deterministic and fast.
std::string MakeSourceTree() {
  const std::string dir = test::ScratchDir();
  std::string a, b;
  for (int i = 0; i < 60; ++i) a += "def f" + std::to_string(i) + "(x):\n    return x * " + std::to_string(i) + "\n\n";
  for (int i = 0; i < 40; ++i) b += "# ünïcode line " + std::to_string(i) + " ☃\nvalue_" + std::to_string(i) + " = {}\n";
  test::WriteFile(dir, "pkg/a.py", a);
  test::WriteFile(dir, "b.py", b);
  test::WriteFile(dir, "latin1.py", "x = '\xe9'\n");  // not UTF-8: skipped
  test::WriteFile(dir, "notes.txt", "not python\n");
  return dir;
}

std::string Serialize(TypingWorkload& workload) {
  std::ostringstream out;
  TraceWriter writer(out, workload.header());
  while (auto record = workload.Next()) writer.Write(*record);
  return out.str();
}

TEST(TypingWorkload, SameSeedSameBytesOtherSeedOtherBytes) {
  TypingWorkloadConfig config;
  config.source_dir = MakeSourceTree();
  config.users = 3;
  config.sessions_per_user = 2;
  config.behavior.chars_per_session = 120;
  TypingWorkload first(config), second(config);
  const std::string bytes = Serialize(first);
  EXPECT_EQ(bytes, Serialize(second));
  config.seed = 2;
  TypingWorkload other(config);
  EXPECT_NE(bytes, Serialize(other));
}

TEST(TypingWorkload, SessionsReplayCleanlyAndRetypeTheirFile) {
  TypingWorkloadConfig config;
  config.source_dir = MakeSourceTree();
  config.users = 4;
  config.sessions_per_user = 3;
  config.behavior.chars_per_session = 150;
  config.behavior.jump_probability = 0.02;
  config.behavior.typo_probability = 0.05;
  TypingWorkload workload(config);
  EXPECT_EQ(workload.documents().size(), 3u);  // a.py, b.py, latin1.py (listed, skipped later)
  std::map<std::string, std::pair<EditedDocument, std::string>> open;  // doc, document id
  std::map<EditKind, int64_t> kinds;
  int64_t sessions = 0, last_time = 0, appends = 0, inserts = 0;
  while (auto record = workload.Next()) {
    ASSERT_GE(RecordTimeNs(*record), last_time);
    last_time = RecordTimeNs(*record);
    if (const auto* s = std::get_if<SessionStart>(&*record)) {
      ++sessions;
      ASSERT_NE(s->document_id, "latin1.py");
      open.emplace(s->session_id, std::pair{EditedDocument(*s), s->document_id});
      continue;
    }
    const auto& e = std::get<EditEvent>(*record);
    ++kinds[e.kind];
    auto& [doc, document_id] = open.at(e.session_id);
    const EditEffect effect = doc.Apply(e);
    if (e.kind == EditKind::kInsert || e.kind == EditKind::kCompletionAccepted) {
      ++inserts;
      appends += effect.appended_at_cursor ? 1 : 0;
    }
    if (e.kind == EditKind::kEnd) {
      // The user typed the removed region back: the document is whole again.
      EXPECT_EQ(doc.text(), test::ReadFile(config.source_dir + "/" + document_id));
      open.erase(e.session_id);
    }
  }
  EXPECT_EQ(sessions, 12);
  EXPECT_TRUE(open.empty());
  EXPECT_EQ(appends, inserts);  // every keystroke lands at the cursor
  for (EditKind kind : {EditKind::kInsert, EditKind::kDelete, EditKind::kMoveCursor,
                        EditKind::kCompletionShown, EditKind::kCompletionAccepted, EditKind::kIdle,
                        EditKind::kEnd}) {
    EXPECT_GT(kinds[kind], 0) << EditKindName(kind);
  }
}

TEST(TypingWorkload, AUsersSessionsDoNotDependOnHowManyUsersThereAre) {
  TypingWorkloadConfig config;
  config.source_dir = MakeSourceTree();
  config.behavior.chars_per_session = 60;
  const auto user1 = [&](int64_t users) {
    config.users = users;
    TypingWorkload workload(config);
    std::ostringstream out;
    TraceWriter writer(out, TraceHeader{});
    while (auto record = workload.Next()) {
      const std::string& session = std::holds_alternative<SessionStart>(*record)
                                       ? std::get<SessionStart>(*record).session_id
                                       : std::get<EditEvent>(*record).session_id;
      if (session.rfind("u1-", 0) == 0) writer.Write(*record);
    }
    return out.str();
  };
  EXPECT_EQ(user1(2), user1(5));
}

TEST(TypingWorkload, OpenPopulationStartsTheRequestedSessions) {
  TypingWorkloadConfig config;
  config.source_dir = MakeSourceTree();
  config.population = TypingPopulation::kOpen;
  config.sessions = 7;
  config.session_rate_per_s = 2.0;
  config.behavior.chars_per_session = 40;
  TypingWorkload workload(config);
  int64_t sessions = 0, ends = 0, last_time = 0;
  while (auto record = workload.Next()) {
    ASSERT_GE(RecordTimeNs(*record), last_time);
    last_time = RecordTimeNs(*record);
    sessions += std::holds_alternative<SessionStart>(*record) ? 1 : 0;
    if (const auto* e = std::get_if<EditEvent>(&*record)) ends += e->kind == EditKind::kEnd ? 1 : 0;
  }
  EXPECT_EQ(sessions, 7);
  EXPECT_EQ(ends, 7);
}

TEST(TypingWorkload, RejectsBadParameters) {
  TypingWorkloadConfig config;
  config.source_dir = MakeSourceTree();
  config.behavior.chars_per_second = 0;
  EXPECT_THROW(TypingWorkload{config}, UsageError);
  config.behavior = TypingBehavior{};
  config.users = 0;
  EXPECT_THROW(TypingWorkload{config}, UsageError);
  config.users = 1;
  config.extensions = {".rs"};
  EXPECT_THROW(TypingWorkload{config}, UsageError);
  config.source_dir = "/nonexistent/dir";
  EXPECT_THROW(TypingWorkload{config}, InputError);
}

// The default documents are the pinned corpus, not whatever /usr/lib/python3*
// holds, so a run gives the same bytes on every machine.
TEST(TypingWorkload, DefaultSourceIsThePinnedCorpus) {
  TypingWorkloadConfig config;
  config.users = 2;
  config.behavior.chars_per_session = 50;
  TypingWorkload workload(config);
  EXPECT_EQ(workload.documents().source(), "pinned corpus cpython-3.11.2");
  EXPECT_EQ(workload.documents().size(), 250u);
  EXPECT_NE(workload.header().description.find("250 files of pinned corpus cpython-3.11.2"),
            std::string::npos)
      << workload.header().description;
  int64_t records = 0;
  std::string first_document;
  while (auto record = workload.Next()) {
    ++records;
    if (const auto* s = std::get_if<SessionStart>(&*record); s && first_document.empty()) {
      first_document = s->document_id;
    }
  }
  EXPECT_GT(records, 20);
  // Document ids are names relative to the corpus, as for a directory.
  bool listed = false;
  for (size_t i = 0; i < workload.documents().size(); ++i) {
    listed = listed || workload.documents().name(i) == first_document;
  }
  EXPECT_TRUE(listed) << first_document;
}

// Issue 25 item 3: a user's document is read when its session starts, not
// when the workload is made (10 M users read 10 M files up front).
TEST(TypingWorkloadMemory, DocumentsAreReadWhenTheirSessionStarts) {
  const std::string dir = test::ScratchDir();
  test::WriteFile(dir, "src/a.py", "def f():\n    return 1\n");
  TypingWorkloadConfig config;
  config.source_dir = dir + "/src";
  config.users = 1000;  // eagerly, a session (and a file read) per user up front
  config.behavior.chars_per_session = 5;
  TypingWorkload workload(config);
  // With nothing read yet, removing the only file makes the first session
  // fail when it starts, not at construction.
  std::filesystem::remove(dir + "/src/a.py");
  EXPECT_THROW(workload.Next(), UsageError);
  // The queue of users not yet started is bounded (16 bytes each).
  test::WriteFile(dir, "src/a.py", "def f():\n    return 1\n");
  config.users = kMaxTypingUsers + 1;
  try {
    TypingWorkload too_many(config);
    ADD_FAILURE() << "no UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("users must be <="), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace efimsim
