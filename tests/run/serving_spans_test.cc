// validate-serving on vLLM OpenTelemetry spans, GuideLLM results and the
// server's vllm.log (tests/run/testdata/serving_run_spans: made-up times,
// not measurements): the readers, their pairing and errors, and a replay
// that compares engine and client TTFT.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "sim/base/errors.h"
#include "sim/run/serving_validation.h"
#include "traces/serving_run.h"

namespace efimsim {
namespace {

namespace fs = std::filesystem;

const std::string kDir = std::string(EFIMSIM_TESTDATA_DIR) + "/serving_run_spans";

// A scratch file holding `text`, removed at the end of the test.
class Scratch {
 public:
  Scratch(const std::string& name, const std::string& text)
      : path_((fs::temp_directory_path() /
               ("efimsim-spans-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) +
                "-" + name)).string()) {
    std::ofstream(path_, std::ios::binary | std::ios::trunc) << text;
  }
  ~Scratch() { fs::remove(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(SpansRunReader, PairsSpansWithGuidellmAndReadsTheLog) {
  const ServingRun run = ReadServingRun({kDir}, "");
  EXPECT_EQ(run.format, "guidellm+otel");
  EXPECT_EQ(run.timed_at, "engine");
  ASSERT_EQ(run.files.size(), 3u);
  ASSERT_EQ(run.requests.size(), 3u);
  const ServingRunRequest& a = run.requests[0];
  EXPECT_EQ(a.id, "cmpl-aaa-0");
  EXPECT_EQ(a.prompt_tokens, 1000);
  EXPECT_EQ(a.engine_arrival_ns, 0);
  EXPECT_NEAR(a.ttft_ms, 50.0, 1e-9);
  EXPECT_NEAR(a.e2e_ms, 110.0, 1e-9);
  EXPECT_NEAR(a.tpot_ms, 20.0, 1e-9);
  EXPECT_NEAR(a.scheduled_ms, 1.0, 1e-9);
  EXPECT_NEAR(a.client_ttft_ms, 56.0, 1e-9);
  EXPECT_NEAR(a.client_e2e_ms, 116.0, 1e-9);
  EXPECT_EQ(run.requests[2].engine_arrival_ns, 2000000000);
  // cmpl-zzz has no span; the errored request is counted.
  ASSERT_EQ(run.excluded.size(), 2u);
  // The log's last start counts.
  EXPECT_EQ(run.engine.vllm_version, "0.11.0");
  EXPECT_EQ(run.engine.model, "meta-llama/Llama-3.1-8B-Instruct");
  EXPECT_EQ(run.engine.max_num_seqs, 32);
  EXPECT_EQ(run.engine.max_num_batched_tokens, 512);
  EXPECT_EQ(run.engine.max_model_len, 8192);
  EXPECT_EQ(run.engine.tensor_parallel_size, 1);
  EXPECT_EQ(run.engine.enable_prefix_caching, true);
  EXPECT_EQ(run.engine.enforce_eager, false);
  EXPECT_EQ(run.engine.num_gpu_blocks, 256);
  EXPECT_EQ(run.engine.block_size, 16);  // 4,096 tokens / 256 blocks
}

TEST(SpansRunReader, FilesAreToldApartByContent) {
  const ServingRun spans = ReadServingRun({kDir + "/traces.json"}, "");
  EXPECT_EQ(spans.format, "otel");
  EXPECT_TRUE(spans.engine.model.empty());
  const ServingRun guidellm = ReadServingRun({kDir + "/vllm.log", kDir + "/guidellm-results.json"}, "");
  EXPECT_EQ(guidellm.format, "guidellm");
  EXPECT_EQ(guidellm.timed_at, "client");
  ASSERT_EQ(guidellm.requests.size(), 4u);
  EXPECT_NEAR(guidellm.requests[0].ttft_ms, 56.0, 1e-9);
  EXPECT_EQ(guidellm.requests[1].engine_arrival_ns, 999000000);
  EXPECT_EQ(guidellm.engine.max_num_seqs, 32);
  EXPECT_THROW(ReadServingRun({kDir + "/traces.json", kDir + "/traces.json"}, ""), UsageError);
}

TEST(SpansRunReader, BadSpanNamesFileLineAndField) {
  const Scratch bad("traces.json",
                    R"({"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"llm_request","startTimeUnixNano":"5",)"
                    R"("attributes":[{"key":"gen_ai.request.id","value":{"stringValue":"x"}},)"
                    R"({"key":"gen_ai.latency.time_to_first_token","value":{"doubleValue":0.5}},)"
                    R"({"key":"gen_ai.latency.e2e","value":{"doubleValue":0.1}}]}]}]}]})"
                    "\n");
  try {
    ReadSpansRun(bad.path(), "", "");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 1);
    EXPECT_EQ(e.field(), "gen_ai.latency.e2e") << e.what();
  }
  const Scratch empty("empty.json", "{}\n");
  EXPECT_THROW(ReadSpansRun(empty.path(), "", ""), InputError);
}

TEST(SpansRunReader, PairsMustAgreeOnTokens) {
  std::ifstream in(kDir + "/guidellm-results.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string from = "\"prompt_tokens\": 1000";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(), "\"prompt_tokens\": 999");
  const Scratch changed("guidellm-results.json", text);
  EXPECT_THROW(ReadSpansRun(kDir + "/traces.json", changed.path(), ""), InputError);
}

TEST(SpansRunReader, PromptTextsGiveSharedTokenIds) {
  // GuideLLM 0.6 writes request_args as a Python repr; the JSON object form
  // is read too. cmpl-bbb shares 4 of its 20 characters with cmpl-aaa:
  // 400 of its 2000 tokens. cmpl-ccc records no text.
  std::ifstream in(kDir + "/guidellm-results.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto add_args = [&text](const std::string& id, const std::string& args) {
    const std::string at = "\"response_id\": \"" + id + "\",";
    ASSERT_NE(text.find(at), std::string::npos);
    text.insert(text.find(at) + at.size(), "\n\"request_args\": " + args + ",");
  };
  add_args("cmpl-aaa", R"("{'method': None, 'body': {'max_tokens': 4, 'prompt': 'HEADaaaaaa'}}")");
  add_args("cmpl-bbb", R"({"body": {"prompt": "HEADbbbbbbbbbbbbbbbb"}})");
  const Scratch changed("guidellm-results.json", text);
  const ServingRun run = ReadSpansRun(kDir + "/traces.json", changed.path(), "");
  ASSERT_EQ(run.requests.size(), 3u);
  const TokenVector& a = run.requests[0].token_ids;
  const TokenVector& b = run.requests[1].token_ids;
  ASSERT_EQ(a.size(), 1000u);
  ASSERT_EQ(b.size(), 2000u);
  EXPECT_TRUE(std::equal(a.begin(), a.begin() + 400, b.begin()));
  EXPECT_NE(a[400], b[400]);
  EXPECT_TRUE(run.requests[2].token_ids.empty());
  EXPECT_NE(run.token_ids_rule.find("1 of 2 prompts"), std::string::npos) << run.token_ids_rule;
  // Without texts nothing is rebuilt.
  EXPECT_TRUE(ReadSpansRun(kDir + "/traces.json", kDir + "/guidellm-results.json", "").token_ids_rule.empty());
}

TEST(SpansRunReader, BadLogValueIsNamed) {
  const Scratch log("vllm.log", "x: non-default args: {'max_num_seqs': 'many'}\n");
  try {
    ReadSpansRun(kDir + "/traces.json", "", log.path());
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "max_num_seqs") << e.what();
  }
}

TEST(SpansRunReader, LogsLastPrefixCacheHitRate) {
  const std::string stats =
      "INFO vllm.v1.metrics.loggers: Engine 000: Avg prompt throughput: 598.2 tokens/s, Running: 1 "
      "reqs, Waiting: 0 reqs, GPU KV cache usage: 6.7%, Prefix cache hit rate: ";
  const Scratch log("vllm.log", stats + "17.1%\n" + stats + "30.7%\n");
  const ServingRun run = ReadSpansRun(kDir + "/traces.json", "", log.path());
  ASSERT_TRUE(run.engine.logged_prefix_cache_hit_rate.has_value());
  EXPECT_DOUBLE_EQ(*run.engine.logged_prefix_cache_hit_rate, 0.307);
  const Scratch bad("vllm.log", stats + "lots\n");
  try {
    ReadSpansRun(kDir + "/traces.json", "", bad.path());
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "Prefix cache hit rate") << e.what();
  }
}

TEST(SpansValidation, ComparesTheLoggedPrefixCacheHitRate) {
  ServingRun run = ReadServingRun({kDir}, "");
  run.engine.logged_prefix_cache_hit_rate = 0.25;
  ServingValidationOptions options;
  options.gpu = "h100-sxm";
  const ServingValidation v = ValidateServing(run, options);
  ASSERT_TRUE(v.prefix_cache.has_value());
  EXPECT_DOUBLE_EQ(v.prefix_cache->measured, 0.25);
  EXPECT_DOUBLE_EQ(v.prefix_cache->predicted, v.result.summary.prefix_cache_hit_rate);
  EXPECT_NE(RenderServingValidation(run, v).find("prefix-cache hit rate: measured 25.0%"),
            std::string::npos);
}

TEST(SpansValidation, ComparesEngineAndClientTtft) {
  const ServingRun run = ReadServingRun({kDir}, "");
  ServingValidationOptions options;
  options.gpu = "h100-sxm";
  options.check_invariants = true;
  const ServingValidation v = ValidateServing(run, options);
  ASSERT_EQ(v.metrics.size(), 5u);
  EXPECT_EQ(v.metrics[3].metric, "client_ttft");
  EXPECT_EQ(v.metrics[3].samples, 3);
  ASSERT_TRUE(v.frontend_check.has_value());
  EXPECT_EQ(v.frontend_check->pairs, 3);
  // Measured client - engine TTFT: 6, 8 and 5 ms.
  EXPECT_NEAR(v.frontend_check->measured_mean_ms, (6.0 + 8.0 + 5.0) / 3, 1e-9);
  const FrontendCosts vllm = DefaultFrontend("vllm");
  for (const RequestComparison& r : v.requests) {
    EXPECT_NEAR(r.predicted_client_ttft - r.predicted_ttft, ToMilliseconds(vllm.Ttft(r.prompt_tokens)), 1e-6);
  }
  std::string mapped;
  for (const auto& [field, value] : v.mapping) mapped += field + ": " + value + "\n";
  EXPECT_NE(mapped.find("max_num_seqs: 32 -> --max-num-seqs"), std::string::npos) << mapped;
  EXPECT_NE(mapped.find("num_gpu_blocks: 256 -> --num-gpu-blocks-override"), std::string::npos) << mapped;
  const std::string text = RenderServingValidation(run, v);
  EXPECT_NE(text.find("frontend, client minus engine TTFT"), std::string::npos) << text;
}

TEST(SpansValidation, ClientTimedRunsAddTheFrontendAndDerivedKvIsNamed) {
  const ServingRun run = ReadServingRun({kDir + "/guidellm-results.json"}, "");
  ServingValidationOptions options;
  options.gpu = "h100-sxm";
  options.model = "llama-3.1-8b";
  options.frontend = "none";
  const ServingValidation plain = ValidateServing(run, options);
  options.frontend = "1000,0";
  const ServingValidation added = ValidateServing(run, options);
  EXPECT_NEAR(added.metrics[0].predicted[0] - plain.metrics[0].predicted[0], 1.0, 1e-9);  // ttft mean +1 ms
  EXPECT_NEAR(added.metrics[2].predicted[0] - plain.metrics[2].predicted[0], 1.0, 1e-9);  // e2e mean
  EXPECT_FALSE(added.frontend_check.has_value());
  std::string mapped;
  for (const auto& [field, value] : added.mapping) mapped += field + ": " + value + "\n";
  EXPECT_NE(mapped.find("num_gpu_blocks: not in the run"), std::string::npos) << mapped;
  EXPECT_NE(mapped.find("gpu_memory_utilization"), std::string::npos) << mapped;
  EXPECT_NE(mapped.find("max_num_seqs: not in the run: vLLM's API-server default"), std::string::npos) << mapped;
}

}  // namespace
}  // namespace efimsim
