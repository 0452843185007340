// The completion client model over editing sessions, and open-loop replay
// of request records, against a recording engine stub.
#include "sim/client/trace_replay_client.h"

#include <gtest/gtest.h>

#include "traces/listed_trace_reader.h"

#include <deque>

#include "sim/base/errors.h"

namespace efimsim {
namespace {


class RecordingSink : public RequestSink {
 public:
  void Submit(ClientRequest request) override {
    sent.push_back({ToNanoseconds(simulator->Now()), request.request_id, request.prompt_tokens()});
    last = std::move(request);
  }
  void Cancel(uint64_t id) override { cancelled.push_back(id); }
  struct Sent {
    int64_t time_ns;
    uint64_t id;
    int64_t prompt_tokens;
  };
  Simulator* simulator = nullptr;
  std::vector<Sent> sent;
  std::vector<uint64_t> cancelled;
  ClientRequest last;
};

SessionStart Session(const std::string& id, const std::string& text, int64_t cursor) {
  SessionStart s;
  s.session_id = id;
  s.user_id = "u-" + id;
  s.document_id = "doc";
  s.text = text;
  s.cursor_bytes = cursor;
  return s;
}

EditEvent Insert(const std::string& session, int64_t time_ms, int64_t offset, std::string text) {
  EditEvent e;
  e.time_ns = time_ms * 1000000;
  e.session_id = session;
  e.kind = EditKind::kInsert;
  e.offset_bytes = offset;
  e.text = std::move(text);
  return e;
}

class TraceReplayClientTest : public ::testing::Test {
 protected:
  TraceReplayClientTest()
      : bpe_(tokenizer::BpeTokenizer::FromFile(std::string(EFIMSIM_TOKENIZER_TESTDATA_DIR) +
                                               "/tiny_tokenizer.json")) {
    SpecialTokens t;
    t.bos = 1000;
    t.fim_prefix = 1001;
    t.fim_suffix = 1002;
    t.fim_middle = 1003;
    builder_ = std::make_unique<TextPromptBuilder>("efim", bpe_, t);
    sink_.simulator = &simulator_;
  }

  // Typing "abc" at 100 ms intervals from t = 100 ms into "x\n|\ny".
  std::vector<TraceRecord> Typing() {
    return {Session("s", "x\n\ny", 2), Insert("s", 100, 2, "a"), Insert("s", 200, 3, "b"),
            Insert("s", 300, 4, "c")};
  }

  void Run(std::vector<TraceRecord> records, CompletionClientConfig config,
           TimePoint stop = TimePoint::max()) {
    trace_ = std::make_unique<ListedTraceReader>(std::move(records));
    client_ = std::make_unique<TraceReplayClient>(simulator_, *trace_, sink_, builder_.get(),
                                                  config, "test-trace", stop);
    client_->Start();
    simulator_.Run();
  }

  tokenizer::BpeTokenizer bpe_;
  std::unique_ptr<TextPromptBuilder> builder_;
  Simulator simulator_;
  RecordingSink sink_;
  std::unique_ptr<ListedTraceReader> trace_;
  std::unique_ptr<TraceReplayClient> client_;
};

TEST_F(TraceReplayClientTest, EveryEditSendsAndCancelsTheStaleRequest) {
  CompletionClientConfig config;
  config.trigger = "every-edit";
  Run(Typing(), config);
  ASSERT_EQ(sink_.sent.size(), 3u);
  EXPECT_EQ(sink_.sent[0].time_ns, 100000000);
  EXPECT_EQ(sink_.sent[2].time_ns, 300000000);
  EXPECT_EQ(sink_.cancelled, (std::vector<uint64_t>{0, 1}));
  EXPECT_EQ(client_->stats().cancel_requests, 2);
}

TEST_F(TraceReplayClientTest, WithoutCancelStaleEveryRequestStays) {
  CompletionClientConfig config;
  config.trigger = "every-edit";
  config.cancel_stale = false;
  Run(Typing(), config);
  EXPECT_EQ(sink_.sent.size(), 3u);
  EXPECT_TRUE(sink_.cancelled.empty());
}

TEST_F(TraceReplayClientTest, DebounceSendsOnceAfterTheLastEditOfABurst) {
  CompletionClientConfig config;
  config.trigger = "debounce";
  config.debounce_ms = 150;  // longer than the 100 ms gaps
  Run(Typing(), config);
  ASSERT_EQ(sink_.sent.size(), 1u);
  EXPECT_EQ(sink_.sent[0].time_ns, 450000000);
}

TEST_F(TraceReplayClientTest, SingleInFlightWaitsForTheResponseThenRetries) {
  CompletionClientConfig config;
  config.trigger = "single-in-flight";
  config.retry_ms = 50;
  trace_ = std::make_unique<ListedTraceReader>(Typing());
  client_ = std::make_unique<TraceReplayClient>(simulator_, *trace_, sink_, builder_.get(), config,
                                                "test-trace");
  client_->Start();
  // The engine answers request 0 at 350 ms (after edits at 200 and 300 ms).
  struct Answer : EventHandler {
    TraceReplayClient* client;
    void HandleEvent(const Event&) override { client->OnRequestDone(0); }
  } answer;
  answer.client = client_.get();
  simulator_.Schedule(TimePoint{Milliseconds(350)}, EventClass::kStepComplete, &answer);
  simulator_.Run();
  ASSERT_EQ(sink_.sent.size(), 2u);
  EXPECT_EQ(sink_.sent[0].time_ns, 100000000);
  EXPECT_EQ(sink_.sent[1].time_ns, 400000000);  // 350 ms + retry 50 ms
  EXPECT_TRUE(sink_.cancelled.empty());
}

TEST_F(TraceReplayClientTest, EfimPromptsOfASessionExtendEachOther) {
  CompletionClientConfig config;
  config.trigger = "every-edit";
  config.cancel_stale = false;
  std::vector<TokenVector> prompts;
  struct Keep : RequestSink {
    std::vector<TokenVector>* prompts;
    void Submit(ClientRequest r) override { prompts->push_back(r.prompt); }
    void Cancel(uint64_t) override {}
  } keep;
  keep.prompts = &prompts;
  ListedTraceReader trace(Typing());
  TraceReplayClient client(simulator_, trace, keep, builder_.get(), config, "t");
  client.Start();
  simulator_.Run();
  ASSERT_EQ(prompts.size(), 3u);
  // "x\n" is prefix0; the typed "a" goes after <MID>, so the prompt does not end at <MID>.
  EXPECT_NE(prompts[0].back(), 1003);
  EXPECT_EQ(client.stats().efim_rebases, 0);
  for (size_t i = 1; i < prompts.size(); ++i) {
    const size_t common = static_cast<size_t>(
        std::mismatch(prompts[i - 1].begin(), prompts[i - 1].end(), prompts[i].begin()).first -
        prompts[i - 1].begin());
    EXPECT_GE(common + 1, prompts[i - 1].size()) << "round " << i;  // BPE may redo one token
  }
}

TEST_F(TraceReplayClientTest, RequestRecordsAreSentAtTheirArrivalWithTheirKeys) {
  TraceRequest a;
  a.arrival_ns = 5000;
  a.prompt_tokens = 40;
  a.output_tokens = 0;
  a.block_key_tokens = 16;
  a.block_keys = {7, 8};
  Run({a}, CompletionClientConfig{});
  ASSERT_EQ(sink_.sent.size(), 1u);
  EXPECT_EQ(sink_.sent[0].time_ns, 5000);
  EXPECT_EQ(sink_.last.prompt_length, 40);
  EXPECT_EQ(sink_.last.prompt_block_keys, (std::vector<uint64_t>{7, 8}));
  EXPECT_EQ(sink_.last.max_tokens, 1);  // an engine samples at least one token
}

TEST_F(TraceReplayClientTest, NothingIsSentAfterTheStopTime) {
  CompletionClientConfig config;
  config.trigger = "every-edit";
  Run(Typing(), config, TimePoint{Milliseconds(250)});
  EXPECT_EQ(sink_.sent.size(), 2u);
}

TEST_F(TraceReplayClientTest, AnEditOfAnUnknownSessionIsAnInputError) {
  EXPECT_THROW(Run({Insert("nobody", 1, 0, "a")}, CompletionClientConfig{}), InputError);
}

TEST_F(TraceReplayClientTest, AnEditOutsideTheDocumentIsAnInputErrorNamingTheField) {
  try {
    Run({Session("s", "ab", 0), Insert("s", 1, 99, "a")}, CompletionClientConfig{});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "offset_bytes");
  }
}

}  // namespace
}  // namespace efimsim
