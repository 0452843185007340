// Whole runs with disaggregated prefill and decode (sim/run/disaggregated_router.h,
// docs/disaggregation.md): the decode replica's timing against a co-located
// run, the KV pull's time against bytes over bandwidth plus latency, and
// decode-side prefix reuse across a session's rounds.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "sim/metrics/output_writers.h"
#include "sim/metrics/run_info.h"
#include "sim/run/experiment.h"
#include "sim/run/run_params.h"
#include "sim/run/workload_options.h"
#include "traces/tokenizer/default_tokenizer_path.h"

namespace efimsim {
namespace {

// One developer, three rounds, one request at a time: nothing batches, so
// every step of a request is its own.
ExperimentConfig OneUser(const std::string& policy) {
  ExperimentConfig config;
  config.policy = policy;
  config.users = 1;
  PaperSettings(config).rounds = 3;
  config.documents = "synthetic";
  config.think_time_ms = 1000;
  config.engine.check_invariants = true;
  config.record_wall_time = false;
  return config;
}

ExperimentConfig Disaggregated(ExperimentConfig config, double gbps, double latency_us) {
  config.prefill_replicas = 1;
  config.decode_replicas = 1;
  config.kv_link_gbps = gbps;
  config.kv_link_latency_us = latency_us;
  return config;
}

// The same run under --engine sglang.
ExperimentConfig Sglang(ExperimentConfig config) {
  config.engine.name = "sglang";
  return config;
}

std::map<uint64_t, RequestRecord> ById(const std::vector<RequestRecord>& records) {
  std::map<uint64_t, RequestRecord> out;
  for (const RequestRecord& r : records) out[r.request_id] = r;
  return out;
}

constexpr int64_t kLlama31KvBytesPerToken = 131072;  // 32 layers x 8 KV heads x 128 x 2 x bf16

TEST(DisaggregationScenario, FreeLinkDecodeMatchesColocatedDecode) {
  // With free KV pulls, the decode replica computes the last prompt token
  // (one token at the prompt's context, like a decode step) and then the
  // same decode steps a co-located replica runs after its prefill: every
  // request's time from first token to finish is the same to the
  // nanosecond, and only its TTFT grows (prefill leg + that one step).
  const ExperimentResult colocated = RunExperiment(OneUser("efim"));
  const ExperimentResult split = RunExperiment(Disaggregated(OneUser("efim"), 1e12, 0));
  ASSERT_EQ(colocated.records.size(), split.records.size());
  ASSERT_EQ(colocated.records.size(), 3u);
  const auto split_by_id = ById(split.records);
  for (const RequestRecord& c : colocated.records) {
    const RequestRecord& s = split_by_id.at(c.request_id);
    EXPECT_EQ(s.output_tokens, c.output_tokens);
    EXPECT_EQ(s.prompt_tokens, c.prompt_tokens);
    EXPECT_EQ(s.finish - s.first_token, c.finish - c.first_token) << "request " << c.request_id;
    EXPECT_GT(s.ttft(), c.ttft()) << "request " << c.request_id;
    // ... by about one decode step: the decode replica did not recompute the prompt.
    ASSERT_GT(c.output_tokens, 1);
    const Duration decode_step = (c.finish - c.first_token) / (c.output_tokens - 1);
    EXPECT_LT(s.ttft() - c.ttft(), 2 * decode_step) << "request " << c.request_id;
  }
  EXPECT_EQ(split.summary.engine.part("kv_transfer_time_ns"), 0);
  EXPECT_EQ(split.summary.engine.part("kv_transfers"), 3);
}

TEST(DisaggregationScenario, PullTakesBytesOverBandwidthPlusLatency) {
  // The first round's pull is the whole prompt but its last token (the
  // decode cache is empty); later rounds pull only past the decode side's
  // own prefix hit. A pull of one request at a time never queues.
  const double gbps = 2.5;
  const double latency_us = 150;
  const ExperimentResult split = RunExperiment(Disaggregated(OneUser("efim"), gbps, latency_us));
  const EngineCounters& e = split.summary.engine;
  ASSERT_EQ(e.part("kv_transfers"), 3);
  const int64_t tokens = e.part("kv_transfer_tokens");
  EXPECT_EQ(e.part("kv_transfer_bytes"), tokens * kLlama31KvBytesPerToken);
  const double expected_ns = 3 * latency_us * 1e3 +
                             static_cast<double>(tokens * kLlama31KvBytesPerToken) / (gbps * 1e9) * 1e9;
  EXPECT_NEAR(static_cast<double>(e.part("kv_transfer_time_ns")), expected_ns, 3.0);  // 3 roundings
  // requests.csv's per-request figures add up to the run's.
  int64_t pulled = 0;
  Duration pull{0};
  for (const RequestRecord& r : split.records) {
    pulled += r.parts.kv_pulled_tokens;
    pull += r.parts.kv_pull;
  }
  EXPECT_EQ(pulled, tokens);
  EXPECT_EQ(ToNanoseconds(pull), e.part("kv_transfer_time_ns"));
  const auto records = ById(split.records);
  const RequestRecord& first = records.begin()->second;
  EXPECT_EQ(tokens - (first.prompt_tokens - 1) > 0, true) << "later rounds pull something too";
  // EFIM's later rounds find their prefix in the decode replica's cache: the
  // pulls after round one are far shorter than round one's.
  EXPECT_LT(tokens, 2 * (first.prompt_tokens - 1));
}

TEST(DisaggregationScenario, PrefillReplicaHoldsKvUntilTheDecodeSideReadsIt) {
  // One request at a time: each decode leg is admitted the instant its
  // prefill leg finishes, so the prefill replica holds the leg's KV exactly
  // as long as the pull takes (latency + bytes / bandwidth), as vLLM's
  // NixlConnector delays freeing it. Over a free link it frees at once.
  const ExperimentResult slow = RunExperiment(Disaggregated(OneUser("efim"), 2.5, 150));
  const EngineCounters& e = slow.summary.engine;
  ASSERT_EQ(e.part("kv_transfers"), 3);
  const double mean_pull_ms = static_cast<double>(e.part("kv_transfer_time_ns")) / 3 / 1e6;
  const double held_ms = std::stod(SettingText(slow.info, "disaggregation", "prefill_kv_held_mean_ms", 9));
  EXPECT_GT(held_ms, 0.15);
  EXPECT_NEAR(held_ms, mean_pull_ms, 1e-6);
  const ExperimentResult free_link = RunExperiment(Disaggregated(OneUser("efim"), 1e12, 0));
  EXPECT_EQ(std::stod(SettingText(free_link.info, "disaggregation", "prefill_kv_held_mean_ms", 9)), 0.0);

  // Eight users at once over a slow link: pulls queue on the decode
  // replica's link, and the prefill replica (replica 0) holds every queued
  // leg's KV meanwhile. Its prefill legs run the same over either link, so
  // only the holding makes its peak KV larger over the slow one.
  ExperimentConfig crowd = OneUser("efim");
  crowd.users = 8;
  crowd.think_time_ms = 0;
  const auto prefill_peak = [](const ExperimentResult& r) {
    return std::stod(SettingText(r.info, "disaggregation", "replica_0_peak_kv_usage", 9));
  };
  const ExperimentResult queued = RunExperiment(Disaggregated(crowd, 0.5, 500));
  const ExperimentResult instant = RunExperiment(Disaggregated(crowd, 1e12, 0));
  EXPECT_GT(prefill_peak(queued), 1.5 * prefill_peak(instant));
}

TEST(DisaggregationScenario, SlowerLinkCostsTtftNotDecode) {
  const ExperimentResult fast = RunExperiment(Disaggregated(OneUser("fim"), 1e12, 0));
  const ExperimentResult slow = RunExperiment(Disaggregated(OneUser("fim"), 0.5, 500));
  const auto fast_by_id = ById(fast.records);
  for (const RequestRecord& s : slow.records) {
    const RequestRecord& f = fast_by_id.at(s.request_id);
    EXPECT_GT(s.ttft(), f.ttft());
    EXPECT_EQ(s.finish - s.first_token, f.finish - f.first_token);
  }
}

TEST(DisaggregationScenario, ColocatedRunsKeepTheirBytes) {
  const ExperimentResult plain = RunExperiment(OneUser("efim"));
  const std::string json = RenderSummaryJson(plain.info, plain.summary);
  EXPECT_EQ(json.find("kv_transfer"), std::string::npos);
  EXPECT_EQ(json.find("disaggregation"), std::string::npos);
  const ExperimentResult split = RunExperiment(Disaggregated(OneUser("efim"), 50, 20));
  const std::string split_json = RenderSummaryJson(split.info, split.summary);
  EXPECT_NE(split_json.find("\"kv_transfer\""), std::string::npos);
  EXPECT_NE(split_json.find("\"disaggregation\""), std::string::npos);
}

TEST(DisaggregationScenario, ClusterOfPoolsServesEveryRequest) {
  ExperimentConfig config = OneUser("efim");
  config.users = 12;
  config.think_time_ms = 0;
  config.router = "session-affinity";
  config = Disaggregated(config, 50, 20);
  config.prefill_replicas = 2;
  config.decode_replicas = 3;
  const ExperimentResult split = RunExperiment(config);
  EXPECT_EQ(split.summary.requests_completed, 36);
  EXPECT_EQ(split.summary.engine.part("kv_links"), 3);
  EXPECT_EQ(split.summary.engine.part("kv_transfers"), 36);
}

TEST(DisaggregationScenario, SessionAffinityOnDecodeSendsOnlyWhatChanged) {
  // EFIM sessions spread round-robin over four decode replicas (six users:
  // a user's next round lands on another replica) pull their context whole
  // on every replica they reach; kept
  // on one replica (--decode-router session-affinity), a round pulls only
  // what changed since the last.
  ExperimentConfig config = Disaggregated(OneUser("efim"), 50, 20);
  config.users = 6;
  PaperSettings(config).rounds = 4;
  config.decode_replicas = 4;
  const ExperimentResult spread = RunExperiment(config);
  config.decode_router = "session-affinity";
  const ExperimentResult kept = RunExperiment(config);
  EXPECT_EQ(spread.summary.requests_completed, kept.summary.requests_completed);
  EXPECT_LT(2 * kept.summary.engine.part("kv_transfer_tokens"),
            spread.summary.engine.part("kv_transfer_tokens"));
}

TEST(DisaggregationScenario, StaleRequestsAreCancelledInEitherPool) {
  // The typing workload tokenizes its text with the Llama-3.1 tokenizer.
  if (!std::filesystem::exists(tokenizer::DefaultTokenizerPath())) {
    GTEST_SKIP() << "no tokenizer at " << tokenizer::DefaultTokenizerPath() << " (run scripts/fetch-tokenizer)";
  }
  // Fast typists with no debounce make most requests stale while their
  // prefill runs: each ends cancelled exactly once, with no token, whether
  // the prefill replica cancelled it or its leg finished in the step the
  // cancel arrived in (it is then never handed to a decode replica).
  ExperimentConfig config;
  config.policy = "fim";
  config.engine.check_invariants = true;
  config.record_wall_time = false;
  config = Disaggregated(config, 50, 20);
  config.workload = "typing";
  config.users = 8;
  config.duration_s = 10;
  FindRunParam("chars-per-second")->set("30", config);
  FindRunParam("debounce-ms")->set("0", config);
  const ExperimentResult split = RunExperiment(config);
  int64_t cancelled_in_prefill = 0;  // no token and nothing pulled: never reached decode
  int64_t cancelled_in_decode = 0;
  for (const RequestRecord& r : split.records) {
    if (!r.cancelled) continue;
    if (r.output_tokens == 0) {
      EXPECT_EQ(r.first_token, TimePoint::max());
    }
    if (r.output_tokens == 0 && r.parts.kv_pulled_tokens == 0) {
      ++cancelled_in_prefill;
    } else {
      ++cancelled_in_decode;
    }
  }
  EXPECT_GT(cancelled_in_prefill, split.summary.requests_completed);
  EXPECT_GT(cancelled_in_decode, 0);
  EXPECT_EQ(split.summary.requests_cancelled + split.summary.requests_completed,
            static_cast<int64_t>(split.records.size()));
  // Every cancel the client issued took effect, but for the few whose
  // request finished in the step the cancel arrived in (as co-located): a
  // cancel arriving while a prefill leg's last step ran is not lost.
  const double issued = std::stod(SettingText(split.info, "client", "stale_requests_cancelled", 0));
  EXPECT_GE(static_cast<double>(split.summary.requests_cancelled), 0.97 * issued);
}

// --data-parallel-size with disaggregated pools: every replica of either
// pool is a group of ranks (an MoE model's step together), each prefill
// leg's KV is held by the rank that computed it until the decode rank has
// read it, and GPUs count every rank. Checked with --check-invariants (every
// block back in its rank's pool at the end), under both engines.
TEST(DisaggregationScenario, DataParallelPoolsServeEveryRequestAndFreeEveryRank) {
  for (const bool sglang : {false, true}) {
    ExperimentConfig config = Disaggregated(OneUser("efim"), 0.5, 500);  // a slow link: KV is held a while
    if (sglang) config = Sglang(config);
    config.engine.model = "qwen3-coder-30b-a3b";
    config.engine.data_parallel_size = 2;
    config.users = 8;
    config.think_time_ms = 0;
    const ExperimentResult run = RunExperiment(config);
    EXPECT_EQ(run.summary.requests_completed, 24) << sglang;
    EXPECT_EQ(run.summary.engine.part("kv_transfers"), 24) << sglang;
    EXPECT_GT(std::stod(SettingText(run.info, "disaggregation", "prefill_kv_held_mean_ms", 9)), 0.5) << sglang;
    EXPECT_EQ(SettingText(run.info, "data_parallel", "ranks_per_replica", 0), "2");
    EXPECT_EQ(SettingText(run.info, "data_parallel", "gpus_per_decode_replica", 0), "2");
    EXPECT_EQ(DeploymentGpus(config), 4);
    config.decode_tp = 2;
    EXPECT_EQ(DeploymentGpus(config), 6);  // (1 x 1 + 1 x 2) x 2 ranks
  }
  // Both pools run the run's data parallelism.
  ExperimentConfig mixed = Disaggregated(OneUser("efim"), 50, 20);
  mixed.engine.model = "qwen3-coder-30b-a3b";
  mixed.engine.data_parallel_size = 2;
  mixed.decode_engine_args = "--data-parallel-size 4";
  try {
    RunExperiment(mixed);
    ADD_FAILURE() << "pools of different data parallelism were not refused";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("the decode pool runs the run's --data-parallel-size (2)"),
              std::string::npos) << e.what();
  }
}

TEST(DisaggregationScenario, BadCombinationsAreRefused) {
  ExperimentConfig both = Disaggregated(OneUser("efim"), 50, 20);
  both.replicas = 2;
  EXPECT_THROW(RunExperiment(both), UsageError);
  // Each decode-pool option on a co-located run.
  const std::vector<std::function<void(ExperimentConfig&)>> pool_options = {
      [](ExperimentConfig& c) { c.decode_replicas = 2; },
      [](ExperimentConfig& c) { c.decode_router = "session-affinity"; },
      [](ExperimentConfig& c) { c.decode_gpu = "h200"; },
      [](ExperimentConfig& c) { c.decode_tp = 2; },
      [](ExperimentConfig& c) { c.decode_engine_args = "--max-num-seqs 4"; },
  };
  for (const auto& set : pool_options) {
    ExperimentConfig stray = OneUser("efim");
    set(stray);
    EXPECT_THROW(RunExperiment(stray), UsageError);
  }
  // Not `--option value` pairs, an option the pools share, one out of range.
  for (const char* args : {"--max-num-seqs", "max-num-seqs 4", "--block-tokens 32", "--model qwen3-8b",
                           "--max-num-seqs 0", "--frobnicate 1", "--max-running-requests 4",
                           "--speculative-config={\"method\":\"ngram\",\"num_speculative_tokens\":2}"}) {
    ExperimentConfig bad_args = Disaggregated(OneUser("efim"), 50, 20);
    bad_args.decode_engine_args = args;
    try {
      RunExperiment(bad_args);
      ADD_FAILURE() << "accepted --decode-engine-args '" << args << "'";
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("--decode-engine-args: ", 0), 0u) << e.what();
    }
  }
  ExperimentConfig bad_gpu = Disaggregated(OneUser("efim"), 50, 20);
  bad_gpu.decode_gpu = "gpu-9000";
  try {
    RunExperiment(bad_gpu);
    ADD_FAILURE() << "an unknown decode GPU";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--decode-gpu: unknown gpu 'gpu-9000'", 0), 0u) << e.what();
  }
}

// A decode pool on its own GPU and TP degree: the prefill pool is untouched
// (the same prefill legs to the nanosecond), the decode steps follow the
// faster pool (every request's first-token-to-finish shorter), the link
// carries the pool's TP x the per-GPU rate, and capacity counts each
// pool's GPUs. Without the options nothing of it appears.
TEST(DisaggregationScenario, DecodePoolOnItsOwnGpuAndTp) {
  const ExperimentConfig same = Disaggregated(OneUser("fim"), 50, 20);
  ExperimentConfig own = same;
  own.decode_gpu = "h200";
  own.decode_tp = 2;
  const ExperimentResult a = RunExperiment(same);
  const ExperimentResult b = RunExperiment(own);
  EXPECT_EQ(SettingText(a.info, "disaggregation", "prefill_leg_mean_ms", 0),
            SettingText(b.info, "disaggregation", "prefill_leg_mean_ms", 0));
  const auto a_by_id = ById(a.records);
  ASSERT_EQ(a.records.size(), b.records.size());
  for (const RequestRecord& r : b.records) {
    const RequestRecord& s = a_by_id.at(r.request_id);
    EXPECT_LT(r.finish - r.first_token, s.finish - s.first_token) << r.request_id;
  }
  EXPECT_EQ(std::stod(SettingText(b.info, "disaggregation", "kv_link_gbps_per_replica", 0)),
            2 * std::stod(SettingText(a.info, "disaggregation", "kv_link_gbps_per_replica", 0)));
  EXPECT_EQ(SettingText(b.info, "disaggregation", "decode_gpu", 0), "h200");
  EXPECT_EQ(SettingText(b.info, "disaggregation", "decode_tp", 0), "2");
  EXPECT_NE(SettingText(b.info, "disaggregation", "decode_latency_model", 0).find("h200"),
            std::string::npos);
  EXPECT_EQ(SettingText(a.info, "disaggregation", "decode_gpu", 0), "");
  EXPECT_EQ(DeploymentGpus(same), 2);
  EXPECT_EQ(DeploymentGpus(own), 3);
  ExperimentConfig pools = own;
  pools.prefill_replicas = 3;
  pools.decode_replicas = 2;
  EXPECT_EQ(DeploymentGpus(pools), 3 * 1 + 2 * 2);
  ExperimentConfig colocated = OneUser("fim");
  colocated.replicas = 4;
  colocated.latency.tensor_parallel = 2;
  EXPECT_EQ(DeploymentGpus(colocated), 8);
}

// Runs `config` as it is and without its --decode-engine-args, which limit
// the decode pool to one running request: the same requests complete, over
// 1.5x slower end to end. Returns the run with them.
ExperimentResult ExpectSlowerWithDecodeArgs(const ExperimentConfig& config) {
  ExperimentConfig plain = config;
  plain.decode_engine_args.clear();
  const ExperimentResult shared = RunExperiment(plain);
  ExperimentResult own = RunExperiment(config);
  EXPECT_EQ(own.summary.requests_completed, shared.summary.requests_completed);
  EXPECT_GT(own.summary.e2e_ms.mean, 1.5 * shared.summary.e2e_ms.mean);
  return own;
}

TEST(DisaggregationScenario, DecodeEngineArgsApplyToTheDecodePoolOnly) {
  // Eight users at once: a decode pool limited to one running sequence
  // (--decode-engine-args "--max-num-seqs 1") serves them one by one, so
  // requests take longer end to end; the prefill pool keeps the run's
  // limits, and the run's description says what the decode pool ran with.
  ExperimentConfig crowd = Disaggregated(OneUser("efim"), 50, 20);
  crowd.users = 8;
  crowd.think_time_ms = 0;
  crowd.decode_engine_args = "--max-num-seqs=1 --gpu-memory-utilization 0.8";
  const ExperimentResult own = ExpectSlowerWithDecodeArgs(crowd);
  EXPECT_EQ(SettingText(own.info, "disaggregation", "decode_engine_args", 0),
            "--max-num-seqs=1 --gpu-memory-utilization 0.8");
  const ExperimentConfig decode = DecodePoolConfig(crowd);
  const ExperimentConfig defaults;
  EXPECT_EQ(decode.engine.gpu_memory_utilization, 0.8);
  EXPECT_EQ(crowd.engine.gpu_memory_utilization, defaults.engine.gpu_memory_utilization);
}

TEST(DisaggregationScenario, SglangDecodePoolTakesSglangsOwnOptions) {
  // SGLang's own limit, on the decode pool only: one running request at a
  // time there makes requests of eight users take longer end to end.
  ExperimentConfig crowd = Disaggregated(Sglang(OneUser("efim")), 50, 20);
  crowd.users = 8;
  crowd.think_time_ms = 0;
  crowd.decode_engine_args = "--max-running-requests 1";
  ExpectSlowerWithDecodeArgs(crowd);
}

// SGLang's PD mode (sglang_scheduler.h): the decode side has no prefix
// cache (ChunkCache), so every round pulls its whole prompt but the last
// token, and its first decode step emits the first token; from there on
// its steps are a co-located replica's.

TEST(DisaggregationScenario, SglangPdModePullsWholePromptsAndDecodesAsColocated) {
  const ExperimentResult colocated = RunExperiment(Sglang(OneUser("efim")));
  const ExperimentResult split = RunExperiment(Disaggregated(Sglang(OneUser("efim")), 1e12, 0));
  ASSERT_EQ(split.records.size(), 3u);
  int64_t whole_prompts = 0;
  const auto colocated_by_id = ById(colocated.records);
  for (const RequestRecord& s : split.records) {
    const RequestRecord& c = colocated_by_id.at(s.request_id);
    EXPECT_EQ(s.output_tokens, c.output_tokens);
    EXPECT_EQ(s.finish - s.first_token, c.finish - c.first_token) << "request " << s.request_id;
    EXPECT_GT(s.ttft(), c.ttft());
    EXPECT_EQ(s.parts.kv_pulled_tokens, s.prompt_tokens - 1) << "request " << s.request_id;
    whole_prompts += s.prompt_tokens - 1;
  }
  EXPECT_EQ(split.summary.engine.part("kv_transfers"), 3);
  EXPECT_EQ(split.summary.engine.part("kv_transfer_tokens"), whole_prompts);
  EXPECT_NE(SettingText(split.info, "disaggregation", "semantics", 0).find("SGLang PD mode"),
            std::string::npos);
  // Over a slow link the pull costs bytes / bandwidth + latency each.
  const ExperimentResult slow = RunExperiment(Disaggregated(Sglang(OneUser("efim")), 2.5, 150));
  const double expected_ns = 3 * 150e3 + static_cast<double>(whole_prompts * kLlama31KvBytesPerToken) / 2.5;
  EXPECT_NEAR(static_cast<double>(slow.summary.engine.part("kv_transfer_time_ns")), expected_ns, 3.0);
}

TEST(DisaggregationScenario, SglangPoolsServeACrowdOverASlowLink) {
  // Eight users at once over a slow link: every request completes, each
  // prefill leg's KV is held until its pull ends, and the run ends with
  // every slot returned (the end-of-run checks).
  ExperimentConfig crowd = Sglang(OneUser("efim"));
  crowd.users = 8;
  crowd.think_time_ms = 0;
  const ExperimentResult queued = RunExperiment(Disaggregated(crowd, 0.5, 500));
  EXPECT_EQ(queued.summary.requests_completed, 24);
  EXPECT_GT(std::stod(SettingText(queued.info, "disaggregation", "prefill_kv_held_mean_ms", 9)), 100.0);
}

}  // namespace
}  // namespace efimsim
