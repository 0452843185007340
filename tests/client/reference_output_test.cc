// ClientRequest::reference_output as the text workloads fill it: efim-paper
// on real text (the text after the round's cursor up to the suffix, the
// same under every prompt format), synthetic documents (none), typing
// sessions (the text still to be typed at the cursor). All on the tiny
// tokenizer fixture and small documents, so no download and little time.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/client/closed_loop_client.h"
#include "sim/client/round_prompter.h"
#include "sim/client/trace_replay_client.h"
#include "traces/code_corpus.h"
#include "traces/edited_document.h"
#include "traces/paper_workload.h"
#include "traces/text_paper_workload.h"
#include "traces/typing_workload.h"

namespace efimsim {
namespace {

std::string ScratchDir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) /
                                    (std::string("efimsim_reference_") + info->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

void WriteFile(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

SpecialTokens FimTokens() {
  return SpecialTokens{.bos = 1000, .fim_prefix = 1001, .fim_suffix = 1002, .fim_middle = 1003,
                       .text_first = 1, .text_last = 255};
}

class ReferenceOutputTest : public ::testing::Test {
 protected:
  ReferenceOutputTest()
      : bpe_(tokenizer::BpeTokenizer::FromFile(std::string(EFIMSIM_TOKENIZER_TESTDATA_DIR) +
                                               "/tiny_tokenizer.json")) {}
  std::string Decode(const TokenVector& tokens) const { return bpe_.Decode(tokens); }
  TokenVector Encode(std::string_view text) const {
    return bpe_.Encode(text, tokenizer::AddedTokenText::kAsPlainText);
  }

  tokenizer::BpeTokenizer bpe_;
};

// Sends every round of a closed-loop client, answering each request at
// once; keeps the requests by round.
class AnsweringSink : public RequestSink {
 public:
  void Submit(ClientRequest request) override {
    const int64_t user = request.user;
    requests.push_back(std::move(request));
    client->OnResponseComplete(user);
  }
  void Cancel(uint64_t) override {}
  ClosedLoopClient* client = nullptr;
  std::vector<ClientRequest> requests;
};

std::vector<ClientRequest> RunClosedLoop(RoundPrompter& prompter, int64_t max_tokens) {
  Simulator simulator;
  AnsweringSink sink;
  ClosedLoopConfig config;
  config.max_output_tokens = max_tokens;
  ClosedLoopClient client(simulator, prompter, sink, config);
  sink.client = &client;
  client.Start();
  simulator.Run();
  return std::move(sink.requests);
}

// One known document; ASCII, so the paper's character arithmetic is on bytes.
std::string PaperDocument() {
  std::string doc;
  for (int i = 0; i < 30; ++i) {
    doc += "def f" + std::to_string(i) + "(x):\n    return x + " + std::to_string(i) + "\n";
  }
  return doc;
}

TEST_F(ReferenceOutputTest, EfimPaperTextReferenceIsTheTextAfterTheCursorUpToTheSuffix) {
  const std::string dir = ScratchDir();
  const std::string doc = PaperDocument();
  WriteFile(dir + "/doc.py", doc);
  CodeCorpusConfig corpus_config;
  corpus_config.directory = dir;
  corpus_config.min_tokens = 0;
  corpus_config.max_tokens = 1 << 30;
  const CodeCorpus corpus = CodeCorpus::Build(corpus_config, bpe_);
  ASSERT_EQ(corpus.documents().size(), 1u);
  constexpr int64_t kRounds = 3;
  TextPaperWorkloadConfig config;
  config.users = 1;
  config.rounds = kRounds;
  const TextPaperWorkload workload(config, corpus, bpe_);

  // The paper's layout on this document, worked out here.
  const size_t half = doc.size() / 2;
  const double step = static_cast<double>(half) / static_cast<double>(kRounds + 2);
  const auto cursor = [&](int64_t round) {
    return static_cast<size_t>(step * static_cast<double>(round + 2));
  };

  std::map<std::string, std::vector<ClientRequest>> by_format;
  for (const char* format : {"psm", "spm", "efim"}) {
    const TextPromptBuilder builder(format, bpe_, FimTokens());
    TextRoundPrompter prompter(workload, builder);
    by_format[format] = RunClosedLoop(prompter, 100000);  // no cap: the whole continuation
    ASSERT_EQ(by_format[format].size(), static_cast<size_t>(kRounds)) << format;
  }
  for (int64_t round = 0; round < kRounds; ++round) {
    const auto r = static_cast<size_t>(round);
    const TokenVector& reference = by_format["efim"][r].reference_output;
    const std::string expected = doc.substr(cursor(round), half - cursor(round));
    EXPECT_EQ(Decode(reference), expected) << "round " << round;
    EXPECT_EQ(reference, Encode(expected));
    if (round + 1 < kRounds) {
      // It starts with what the developer types in the next round.
      const std::string next_typed = doc.substr(cursor(round), cursor(round + 1) - cursor(round));
      EXPECT_EQ(expected.rfind(next_typed, 0), 0u);
    }
    // The model's output does not depend on the prompt format.
    EXPECT_EQ(by_format["psm"][r].reference_output, reference) << "round " << round;
    EXPECT_EQ(by_format["spm"][r].reference_output, reference) << "round " << round;
    EXPECT_NE(by_format["psm"][r].prompt, by_format["efim"][r].prompt);
  }

  // Capped at max_tokens: the leading tokens of the same reference.
  const TextPromptBuilder builder("psm", bpe_, FimTokens());
  TextRoundPrompter prompter(workload, builder);
  const std::vector<ClientRequest> capped = RunClosedLoop(prompter, 7);
  for (int64_t round = 0; round < kRounds; ++round) {
    const TokenVector& full = by_format["efim"][static_cast<size_t>(round)].reference_output;
    ASSERT_GT(full.size(), 7u);
    EXPECT_EQ(capped[static_cast<size_t>(round)].reference_output,
              TokenVector(full.begin(), full.begin() + 7));
  }
}

TEST_F(ReferenceOutputTest, EfimPaperSyntheticDocumentsHaveNoReference) {
  PaperWorkloadConfig config;
  config.users = 2;
  config.rounds = 2;
  const PaperWorkload workload(config);
  const std::unique_ptr<PromptFormat> format = MakePromptFormat("efim", FimTokens());
  TokenRoundPrompter prompter(workload, *format);
  const std::vector<ClientRequest> requests = RunClosedLoop(prompter, 16);
  ASSERT_EQ(requests.size(), 4u);
  for (const ClientRequest& request : requests) {
    EXPECT_FALSE(request.prompt.empty());
    EXPECT_TRUE(request.reference_output.empty());
  }
}

// Forwards a typing workload's records and replays them into its own
// documents, so a request sent while a record is applied can be compared
// with the session's text at that moment.
class ObservedReader : public TraceReader {
 public:
  explicit ObservedReader(TypingWorkload& source) : source_(source) {}
  const TraceHeader& header() const override { return source_.header(); }
  struct Open {
    EditedDocument document;
    std::string file;  // the whole file the session types back
  };
  std::map<std::string, Open> open;
  std::string last_session;

 protected:
  std::optional<TraceRecord> ReadNext() override {
    std::optional<TraceRecord> record = source_.Next();
    if (!record) return record;
    if (const auto* start = std::get_if<SessionStart>(&*record)) {
      const std::string file = start->text.substr(0, static_cast<size_t>(start->cursor_bytes)) +
                               start->text_to_type +
                               start->text.substr(static_cast<size_t>(start->cursor_bytes));
      open.insert_or_assign(start->session_id, Open{EditedDocument(start->text, start->cursor_bytes),
                                                    file});
      last_session = start->session_id;
    } else {
      const auto& edit = std::get<EditEvent>(*record);
      if (edit.kind != EditKind::kEnd) open.at(edit.session_id).document.Apply(edit);
      last_session = edit.session_id;
    }
    return record;
  }

 private:
  TypingWorkload& source_;
};

struct TypingRequest {
  std::string prefix;
  std::string suffix;
  std::string file;
  TokenVector reference;
};

class TypingSink : public RequestSink {
 public:
  void Submit(ClientRequest request) override {
    const ObservedReader::Open& session = reader->open.at(reader->last_session);
    sent.push_back({std::string(session.document.prefix()), std::string(session.document.suffix()),
                    session.file, std::move(request.reference_output)});
  }
  void Cancel(uint64_t) override {}
  ObservedReader* reader = nullptr;
  std::vector<TypingRequest> sent;
};

std::vector<TypingRequest> RunTyping(const std::string& dir, const TextPromptBuilder& builder,
                                     int64_t max_tokens) {
  TypingWorkloadConfig typing;
  typing.source_dir = dir;
  typing.users = 3;
  typing.behavior.chars_per_session = 120;
  typing.behavior.jump_probability = 0.02;
  typing.behavior.typo_probability = 0.05;
  TypingWorkload workload(typing);
  ObservedReader reader(workload);
  Simulator simulator;
  TypingSink sink;
  sink.reader = &reader;
  CompletionClientConfig config;
  config.trigger = "every-edit";  // a request while each edit is applied
  config.cancel_stale = false;
  config.max_output_tokens = max_tokens;
  TraceReplayClient client(simulator, reader, sink, &builder, config, "typing");
  client.Start();
  simulator.Run();
  return std::move(sink.sent);
}

TEST_F(ReferenceOutputTest, TypingReferenceIsTheTextStillToBeTypedAtTheCursor) {
  const std::string dir = ScratchDir();
  std::string a;
  for (int i = 0; i < 40; ++i) a += "def g" + std::to_string(i) + "(y):\n    return y * " + std::to_string(i) + "\n\n";
  WriteFile(dir + "/a.py", a);
  const TextPromptBuilder builder("efim", bpe_, FimTokens());
  const std::vector<TypingRequest> sent = RunTyping(dir, builder, 100000);
  ASSERT_GT(sent.size(), 100u);
  int64_t with_reference = 0, whole_again = 0;
  for (const TypingRequest& r : sent) {
    if (!r.reference.empty()) {
      ++with_reference;
      // Typed at the cursor, the reference makes the whole file again.
      EXPECT_EQ(r.prefix + Decode(r.reference) + r.suffix, r.file);
      EXPECT_EQ(r.reference, Encode(r.file.substr(r.prefix.size(),
                                                   r.file.size() - r.prefix.size() - r.suffix.size())));
    }
    whole_again += r.prefix + r.suffix == r.file;
  }
  // Empty only after the last keystroke or while the cursor is away or a
  // typo waits for its backspace (a few percent of the edits here).
  EXPECT_GT(with_reference, static_cast<int64_t>(sent.size()) * 8 / 10);
  EXPECT_GT(whole_again, 0);

  // Capped: the leading tokens of the same text, for the same requests.
  const std::vector<TypingRequest> capped = RunTyping(dir, builder, 5);
  ASSERT_EQ(capped.size(), sent.size());
  for (size_t i = 0; i < sent.size(); ++i) {
    const TokenVector& full = sent[i].reference;
    const size_t n = std::min<size_t>(5, full.size());
    EXPECT_EQ(capped[i].reference, TokenVector(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n)));
  }
}

}  // namespace
}  // namespace efimsim
