// Benchmark generators: vLLM bench serve's datasets and arrivals,
// inference-perf's shared-prefix data and stage schedules, and the
// think_time_ns field of request records.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <variant>

#include "test_files.h"
#include "traces/benchmark_arrivals.h"
#include "traces/shared_prefix_data.h"
#include "traces/trace_io.h"
#include "traces/trace_records.h"
#include "traces/vllm_bench_dataset.h"

namespace efimsim {
namespace {

const VllmBenchVocabulary kVocabulary{1000, 50000, 128000};

std::vector<TraceRequest> Generate(const VllmBenchConfig& config, uint64_t seed = 1) {
  VllmBenchReader reader(config, kVocabulary, seed);
  std::vector<TraceRequest> out;
  while (auto record = reader.Next()) out.push_back(std::get<TraceRequest>(*record));
  return out;
}

TEST(VllmBenchDataset, RandomLengthsStayWithinTheRangeRatioBounds) {
  VllmBenchConfig config;
  config.num_prompts = 500;
  config.random_input_len = 101;  // 100 after the BOS
  config.random_output_len = 20;
  config.random_range_ratio = 0.25;
  config.random_prefix_len = 32;
  const auto requests = Generate(config);
  ASSERT_EQ(requests.size(), 500u);
  int64_t min_in = INT64_MAX, max_in = 0, min_out = INT64_MAX, max_out = 0;
  for (const TraceRequest& r : requests) {
    const int64_t sampled = r.prompt_tokens - 1 - 32;  // less BOS and the shared prefix
    min_in = std::min(min_in, sampled);
    max_in = std::max(max_in, sampled);
    min_out = std::min(min_out, r.output_tokens);
    max_out = std::max(max_out, r.output_tokens);
    // Every prompt: BOS, then the one shared prefix.
    EXPECT_EQ(r.token_ids[0], 128000);
    EXPECT_TRUE(std::equal(r.token_ids.begin() + 1, r.token_ids.begin() + 33,
                           requests[0].token_ids.begin() + 1));
  }
  EXPECT_GE(min_in, 75);   // floor(100 x 0.75)
  EXPECT_LE(max_in, 125);  // ceil(100 x 1.25)
  EXPECT_GE(min_out, 15);
  EXPECT_LE(max_out, 25);
  EXPECT_LT(min_in, 80);   // the range is really used
  EXPECT_GT(max_in, 120);
}

TEST(VllmBenchDataset, PrefixRepetitionSharesEachPrefixExactly) {
  VllmBenchConfig config;
  config.dataset_name = "prefix_repetition";
  config.num_prompts = 23;  // 4 prefixes x 5 prompts: vLLM rounds down
  config.prefix_repetition_num_prefixes = 4;
  config.prefix_repetition_prefix_len = 64;
  config.prefix_repetition_suffix_len = 16;
  const auto requests = Generate(config);
  ASSERT_EQ(requests.size(), 20u);
  std::map<TokenVector, int> prefixes;
  for (const TraceRequest& r : requests) {
    ASSERT_EQ(r.prompt_tokens, 1 + 64 + 16);
    EXPECT_EQ(r.output_tokens, 128);
    ++prefixes[TokenVector(r.token_ids.begin(), r.token_ids.begin() + 65)];
  }
  ASSERT_EQ(prefixes.size(), 4u);
  for (const auto& [prefix, count] : prefixes) EXPECT_EQ(count, 5);
}

TEST(VllmBenchDataset, BadSettingsAreUsageErrorsNamingVllmsFlag) {
  VllmBenchConfig config;
  config.random_range_ratio = 1.0;
  EXPECT_THROW(Generate(config), UsageError);
  config = {};
  config.dataset_name = "prefix_repetition";
  config.num_prompts = 3;
  try {
    Generate(config);
    ADD_FAILURE() << "no UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--num-prompts"), std::string::npos) << e.what();
  }
}

TEST(BenchmarkArrivals, VllmScheduleEndsAtNOverRateAndIsSeeded) {
  RandomStream a = RandomStream::Derive(3, 0, "t");
  RandomStream b = RandomStream::Derive(3, 0, "t");
  const auto times = VllmBenchArrivalsNs(400, 8.0, 0.5, a);
  EXPECT_EQ(times, VllmBenchArrivalsNs(400, 8.0, 0.5, b));
  EXPECT_EQ(times.back(), 50000000000);  // 400 / 8 s
  EXPECT_GT(times.front(), 0);           // the first request waits a gap too
  EXPECT_TRUE(std::is_sorted(times.begin(), times.end()));
  RandomStream c = RandomStream::Derive(3, 0, "t");
  const auto constant = VllmBenchArrivalsNs(4, 2.0, std::numeric_limits<double>::infinity(), c);
  EXPECT_EQ(constant, (std::vector<int64_t>{500000000, 1000000000, 1500000000, 2000000000}));
}

TEST(BenchmarkArrivals, GammaHasTheRequestedMean) {
  RandomStream random = RandomStream::Derive(1, 0, "gamma");
  for (const double shape : {0.3, 1.0, 4.0}) {
    double sum = 0;
    const int n = 20000;
    for (int i = 0; i < n; ++i) sum += GammaSample(shape, 2.0 / shape, random);
    EXPECT_NEAR(sum / n, 2.0, 0.1) << "shape " << shape;
  }
}

TEST(BenchmarkArrivals, InferencePerfStagesSendIntRateTimesDuration) {
  RandomStream random = RandomStream::Derive(1, 0, "stage");
  const auto constant = InferencePerfStageArrivalsNs(InferencePerfLoad::kConstant, 7.5, 10, random);
  ASSERT_EQ(constant.size(), 75u);
  EXPECT_EQ(constant.back(), 10000000000);  // scaled to fill the stage exactly
  const auto poisson = InferencePerfStageArrivalsNs(InferencePerfLoad::kPoisson, 20, 30, random);
  ASSERT_EQ(poisson.size(), 600u);
  EXPECT_TRUE(std::is_sorted(poisson.begin(), poisson.end()));
  // 600 requests at 20/s: about 30 s (Poisson counts: within 3 s).
  EXPECT_NEAR(static_cast<double>(poisson.back()) / 1e9, 30.0, 3.0);
  // Second by second: every second's last request lands at its end.
  int64_t whole_seconds = 0;
  for (const int64_t t : poisson) whole_seconds += t % 1000000000 == 0 ? 1 : 0;
  EXPECT_GE(whole_seconds, 25);
}

TEST(SharedPrefixData, GroupsShareExactlyTheirSystemPrompt) {
  SharedPrefixConfig config;
  config.num_groups = 3;
  config.num_prompts_per_group = 4;
  config.system_prompt_len = 40;
  config.question_len = 10;
  const SharedPrefixData data(config, 1000, 50000, 7);
  ASSERT_EQ(data.size(), 12);
  std::map<int64_t, TokenVector> system_prompt;
  std::map<int64_t, int> members;
  for (int64_t i = 0; i < data.size(); ++i) {
    ASSERT_EQ(data.prompt(i).size(), 50u);
    const TokenVector head(data.prompt(i).begin(), data.prompt(i).begin() + 40);
    auto [it, fresh] = system_prompt.emplace(data.group(i), head);
    if (!fresh) {
      EXPECT_EQ(it->second, head) << "prompt " << i;
    }
    ++members[data.group(i)];
  }
  EXPECT_EQ(members, (std::map<int64_t, int>{{0, 4}, {1, 4}, {2, 4}}));
  EXPECT_NE(system_prompt[0], system_prompt[1]);
  // Shuffled: not in group order.
  bool grouped = true;
  for (int64_t i = 1; i < data.size(); ++i) grouped = grouped && data.group(i) >= data.group(i - 1);
  EXPECT_FALSE(grouped);
}

TEST(ThinkTimeField, RoundTripsAndNeedsASession) {
  TraceRequest request;
  request.arrival_ns = 10;
  request.session_id = "s1";
  request.think_time_ns = 2000000000;
  request.prompt_tokens = 4;
  request.output_tokens = 2;
  const std::string line = FormatTraceRecordLine(request);
  EXPECT_NE(line.find(R"("think_time_ns":2000000000)"), std::string::npos) << line;
  const TraceRecord back = ParseTraceRecordLine(line, "t.jsonl", 2);
  EXPECT_EQ(std::get<TraceRequest>(back).think_time_ns, 2000000000);
  request.session_id.clear();
  const auto problem = ValidateRecord(request);
  ASSERT_TRUE(problem.has_value());
  EXPECT_EQ(problem->field, "think_time_ns");
}

}  // namespace
}  // namespace efimsim
