// Closed-loop request records (think_time_ns, SessionChains) and
// inference-perf's staged load client, against an engine stub whose
// requests end when the test says.
#include <gtest/gtest.h>

#include "traces/listed_trace_reader.h"

#include <deque>
#include <map>

#include "sim/client/staged_load_client.h"
#include "sim/client/trace_replay_client.h"

namespace efimsim {
namespace {


// Ends every request `service` after it arrives, telling `client`.
class TimedSink : public RequestSink, public EventHandler {
 public:
  TimedSink(Simulator& simulator, Duration service) : simulator_(simulator), service_(service) {}
  void Submit(ClientRequest request) override {
    sent.push_back(request);
    simulator_.ScheduleAfter(service_, EventClass::kStepComplete, this, request.request_id);
  }
  void Cancel(uint64_t) override {}
  void HandleEvent(const Event& event) override {
    ended[event.payload] = ToNanoseconds(simulator_.Now());
    client->OnRequestEnded(event.payload, 0);
  }
  Client* client = nullptr;
  std::vector<ClientRequest> sent;
  std::map<uint64_t, int64_t> ended;  // id -> end (ns)

 private:
  Simulator& simulator_;
  Duration service_;
};

TraceRequest Record(int64_t arrival_ms, const std::string& session, std::optional<int64_t> think_ms) {
  TraceRequest r;
  r.arrival_ns = arrival_ms * 1000000;
  r.session_id = session;
  if (think_ms) r.think_time_ns = *think_ms * 1000000;
  r.prompt_tokens = 8;
  r.output_tokens = 4;
  return r;
}

int64_t SentNs(const ClientRequest& r) { return ToNanoseconds(r.sent); }

TEST(ClosedLoopRecords, ThinkTimeIsMeasuredFromThePreviousRequestsEnd) {
  Simulator simulator;
  TimedSink sink(simulator, Nanoseconds(300000000));  // every request takes 300 ms
  ListedTraceReader trace(std::vector<TraceRecord>{Record(0, "a", std::nullopt), Record(0, "a", 1000), Record(0, "a", 1000),
                     Record(100, "b", std::nullopt), Record(2000, "b", 0)});
  CompletionClientConfig config;
  TraceReplayClient client(simulator, trace, sink, nullptr, config, "t");
  sink.client = &client;
  client.Start();
  simulator.Run();
  ASSERT_EQ(sink.sent.size(), 5u);
  std::map<int64_t, std::vector<int64_t>> by_user;  // sends per session, in order
  for (const ClientRequest& r : sink.sent) by_user[r.user].push_back(SentNs(r));
  // a: 0, then 300 ms (end) + 1 s, then 1.6 s + 1 s.
  EXPECT_EQ(by_user[0], (std::vector<int64_t>{0, 1300000000, 2600000000}));
  // b: its second request's arrival (2 s) is later than end + 0 (400 ms).
  EXPECT_EQ(by_user[1], (std::vector<int64_t>{100000000, 2000000000}));
  EXPECT_EQ(client.stats().closed_loop_records, 3);
  client.CheckDrained(5);
}

TEST(ClosedLoopRecords, NothingIsSentAfterTheStop) {
  Simulator simulator;
  TimedSink sink(simulator, Nanoseconds(300000000));
  ListedTraceReader trace(std::vector<TraceRecord>{Record(0, "a", std::nullopt), Record(0, "a", 1000), Record(0, "a", 1000)});
  TraceReplayClient client(simulator, trace, sink, nullptr, CompletionClientConfig{}, "t",
                           TimePoint{Nanoseconds(2000000000)});
  sink.client = &client;
  client.Start();
  simulator.Run();
  EXPECT_EQ(sink.sent.size(), 2u);  // the third would go at 2.6 s
  EXPECT_EQ(client.stats().closed_loop_dropped, 1);
  client.CheckDrained(2);
}

SharedPrefixData SmallData(bool multi_turn) {
  SharedPrefixConfig config;
  config.num_groups = 1;
  config.num_prompts_per_group = 2;
  config.system_prompt_len = 6;
  config.question_len = 2;
  config.output_len = 3;
  config.enable_multi_turn_chat = multi_turn;
  return SharedPrefixData(config, 100, 200, 1);
}

TokenId FakeGenerated(uint64_t id, int64_t position) {
  return static_cast<TokenId>(1000 + id * 100 + static_cast<uint64_t>(position));
}

TEST(StagedLoadClient, MultiTurnPromptsExtendThePreviousPromptAndAnswer) {
  Simulator simulator;
  TimedSink sink(simulator, Nanoseconds(2000000000));  // slower than the 1 s schedule
  const SharedPrefixData data = SmallData(true);
  StagedLoadConfig config;
  config.stages = {{1.0, 6.0}};  // 6 requests: 3 turns of 2 users
  StagedLoadClient client(simulator, data, sink, config, &FakeGenerated);
  sink.client = &client;
  client.Start();
  simulator.Run();
  ASSERT_EQ(sink.sent.size(), 6u);
  std::map<int64_t, std::vector<const ClientRequest*>> turns;
  for (const ClientRequest& r : sink.sent) turns[r.user].push_back(&r);
  for (const auto& [user, list] : turns) {
    ASSERT_EQ(list.size(), 3u);
    for (size_t t = 1; t < list.size(); ++t) {
      const ClientRequest& previous = *list[t - 1];
      const ClientRequest& turn = *list[t];
      EXPECT_EQ(turn.round, static_cast<int64_t>(t));
      // previous prompt, its answer, then the question again
      ASSERT_EQ(turn.prompt.size(), previous.prompt.size() + 3 + 8);
      EXPECT_TRUE(std::equal(previous.prompt.begin(), previous.prompt.end(), turn.prompt.begin()));
      const auto base = static_cast<int64_t>(previous.prompt.size());
      EXPECT_EQ(turn.prompt[previous.prompt.size()], FakeGenerated(previous.request_id, base));
      EXPECT_TRUE(std::equal(data.prompt(user).begin(), data.prompt(user).end(),
                             turn.prompt.end() - 8));
      // A turn waits for the previous one to end.
      EXPECT_GE(SentNs(turn), sink.ended.at(previous.request_id));
    }
  }
  client.CheckDrained(6);
}

TEST(StagedLoadClient, NextStageStartsAfterTheLastEndPlusIntervalAndOneSecond) {
  Simulator simulator;
  TimedSink sink(simulator, Nanoseconds(500000000));
  const SharedPrefixData data = SmallData(false);
  StagedLoadConfig config;
  config.stages = {{2.0, 5.0}, {4.0, 5.0}};
  config.interval = Nanoseconds(3000000000);
  StagedLoadClient client(simulator, data, sink, config, &FakeGenerated);
  sink.client = &client;
  client.Start();
  simulator.Run();
  ASSERT_EQ(sink.sent.size(), 10u + 20u);
  int64_t last_end_stage0 = 0;
  for (size_t i = 0; i < 10; ++i) {
    last_end_stage0 = std::max(last_end_stage0, sink.ended.at(sink.sent[i].request_id));
  }
  EXPECT_EQ(last_end_stage0, 5500000000);  // constant load: the last at 5 s, + 500 ms
  EXPECT_EQ(client.stage_start_ns(1), last_end_stage0 + 3000000000 + 1000000000);
  EXPECT_EQ(SentNs(sink.sent.back()), client.stage_start_ns(1) + 5000000000);
  // Data restarts each stage: stage 1's first request has prompt 0 again.
  EXPECT_EQ(sink.sent[10].prompt, data.prompt(0));
  client.CheckDrained(30);
}

}  // namespace
}  // namespace efimsim
