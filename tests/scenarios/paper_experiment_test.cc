// Whole runs of the paper's experiment. RunExperiment itself checks the
// end-of-run invariants (every request finished, every block back with
// reference count 0, no event left); check_invariants also verifies block
// reference counts against requests after every step.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sim/run/workload_options.h"
#include "sim/metrics/output_writers.h"
#include "traces/tokenizer/default_tokenizer_path.h"
#include "sim/run/experiment.h"

namespace efimsim {
namespace {

ExperimentConfig Config(const std::string& policy, int64_t rounds) {
  ExperimentConfig config;
  config.policy = policy;
  config.users = 16;
  PaperSettings(config).rounds = rounds;
  config.documents = "synthetic";  // docs/semantics.md §2's table assumes tokens proportional to text
  config.engine.check_invariants = true;
  return config;
}

struct ReuseRow {
  int64_t rounds;
  double fim_percent;
  double efim_percent;
};

void PrintTo(const ReuseRow& row, std::ostream* os) {
  *os << "R=" << row.rounds << " fim=" << row.fim_percent << "% efim=" << row.efim_percent << "%";
}

class PaperReuse : public ::testing::TestWithParam<ReuseRow> {};

// docs/semantics.md §2: reuse with no eviction (tokens proportional to
// characters, no block rounding); the simulator must land within 1.5 points.
TEST_P(PaperReuse, HitRatesMatchThePapersTableWithin1Point5) {
  const ReuseRow row = GetParam();
  const RunSummary fim = RunExperiment(Config("fim", row.rounds)).summary;
  const RunSummary efim = RunExperiment(Config("efim", row.rounds)).summary;
  const RunSummary baseline = RunExperiment(Config("baseline", row.rounds)).summary;
  EXPECT_NEAR(100.0 * fim.prefix_cache_hit_rate, row.fim_percent, 1.5);
  EXPECT_NEAR(100.0 * efim.prefix_cache_hit_rate, row.efim_percent, 1.5);
  EXPECT_EQ(baseline.prefix_cache_hit_rate, 0.0);
  EXPECT_EQ(fim.engine.preemptions, 0);  // ample KV: no eviction effects
  EXPECT_EQ(fim.requests_completed, 16 * row.rounds);
}

INSTANTIATE_TEST_SUITE_P(Table, PaperReuse,
                         ::testing::Values(ReuseRow{2, 15.4, 46.2}, ReuseRow{3, 20.8, 62.5},
                                           ReuseRow{5, 25.5, 76.4}, ReuseRow{8, 28.2, 84.7},
                                           ReuseRow{10, 29.2, 87.6}),
                         [](const auto& param_info) {
                           std::string name = "R";
                           name += std::to_string(param_info.param.rounds);
                           return name;
                         });

TEST(PaperExperiment, EfimIsFasterThanFimWhichIsFasterThanBaseline) {
  const RunSummary baseline = RunExperiment(Config("baseline", 5)).summary;
  const RunSummary fim = RunExperiment(Config("fim", 5)).summary;
  const RunSummary efim = RunExperiment(Config("efim", 5)).summary;
  EXPECT_LT(efim.e2e_ms.mean, fim.e2e_ms.mean);
  EXPECT_LT(fim.e2e_ms.mean, baseline.e2e_ms.mean);
  EXPECT_GT(efim.request_throughput_per_s, fim.request_throughput_per_s);
  EXPECT_LT(efim.engine.prefill_tokens_computed, fim.engine.prefill_tokens_computed);
}

TEST(PaperExperiment, SpmReusesTheSuffixAcrossRounds) {
  const RunSummary spm = RunExperiment(Config("spm", 5)).summary;
  const RunSummary fim = RunExperiment(Config("fim", 5)).summary;
  EXPECT_GT(spm.prefix_cache_hit_rate, fim.prefix_cache_hit_rate);
}

TEST(PaperExperiment, KvPressureCausesPreemptionsAndTheRunStillCompletes) {
  for (const char* policy : {"baseline", "fim", "efim"}) {
    ExperimentConfig config = Config(policy, 5);
    config.engine.kv_blocks = 600;  // 9,600 tokens: two or three prompts at a time
    const ExperimentResult result = RunExperiment(config);
    const RunSummary& s = result.summary;
    EXPECT_GT(s.engine.preemptions, 0) << policy;
    EXPECT_EQ(s.requests_completed, 80) << policy;
    EXPECT_EQ(s.engine.rejected_requests, 0) << policy;
    int64_t preemptions = 0;
    for (const RequestRecord& r : result.records) {
      EXPECT_EQ(r.output_tokens, 128);
      EXPECT_LE(r.cached_tokens, r.prompt_tokens);
      EXPECT_LE(r.arrival, r.first_scheduled);
      EXPECT_LT(r.first_scheduled, r.first_token);
      EXPECT_LE(r.first_token, r.finish);
      preemptions += r.preemptions;
    }
    EXPECT_EQ(preemptions, s.engine.preemptions) << policy;
    EXPECT_LE(s.engine.kv_blocks_peak_used, 600);
  }
}

TEST(PaperExperiment, SmallerMemorySettingAlsoShrinksTheCache) {
  ExperimentConfig config = Config("efim", 2);
  config.engine.gpu_memory_gib = 20;  // 18 GiB usable - 15 GiB weights - 2 GiB overhead
  const ExperimentResult result = RunExperiment(config);
  EXPECT_LT(result.summary.engine.kv_blocks_total, 600);
  EXPECT_EQ(result.summary.requests_completed, 32);
}

TEST(PaperExperiment, ARequestThatCanNeverFitIsRejectedNotHung) {
  ExperimentConfig config = Config("fim", 2);
  config.engine.kv_blocks = 100;  // 1,600 tokens: no prompt of 2k+ tokens fits
  const ExperimentResult result = RunExperiment(config);
  EXPECT_EQ(result.summary.requests_completed, 0);
  EXPECT_EQ(result.summary.engine.rejected_requests, 32);
}

TEST(PaperExperiment, SameSeedGivesByteIdenticalOutputs) {
  ExperimentConfig config = Config("efim", 5);
  config.engine.kv_blocks = 700;  // exercise preemption paths too
  config.record_wall_time = false;  // host time is the one figure allowed to differ
  const ExperimentResult a = RunExperiment(config);
  const ExperimentResult b = RunExperiment(config);
  EXPECT_EQ(RenderSummaryJson(a.info, a.summary), RenderSummaryJson(b.info, b.summary));
  EXPECT_EQ(RenderRequestsCsv(a.records), RenderRequestsCsv(b.records));
  config.seed = 2;
  const ExperimentResult c = RunExperiment(config);
  EXPECT_NE(RenderRequestsCsv(a.records), RenderRequestsCsv(c.records));
}

TEST(PaperExperiment, SummaryNamesEverythingThatShapedTheRun) {
  const ExperimentResult r = RunExperiment(Config("efim", 2));
  const std::string json = RenderSummaryJson(r.info, r.summary);
  for (const char* needle :
       {"\"schema_version\": 1", "\"policy\"", "\"workload\"", "documents: synthetic tokens",
        "\"model\"", "llama-3.1-8b", "\"gpu\"", "h100-sxm", "\"latency_model\"", "roofline",
        "\"max-num-batched-tokens\": 2048", "\"max-num-seqs\": 256", "\"engine\"", "vllm_v1",
        "\"simulator\"", "\"events\""}) {
    EXPECT_NE(json.find(needle), std::string::npos) << needle;
  }
}

TEST(PaperExperiment, RealTextRunsReportWhatBpeBoundariesCost) {
  if (!std::filesystem::exists(tokenizer::DefaultTokenizerPath())) {
    GTEST_SKIP() << "no tokenizer at " << tokenizer::DefaultTokenizerPath()
                 << " (run scripts/fetch-tokenizer)";
  }
  for (const char* policy : {"fim", "efim"}) {
    ExperimentConfig config = Config(policy, 3);
    config.users = 4;
    config.documents = "text";
    const ExperimentResult r = RunExperiment(config);
    const int64_t by_characters =
        std::stoll(SettingText(r.info, "bpe_boundary", "reusable_by_characters_tokens", 0));
    const int64_t by_tokens =
        std::stoll(SettingText(r.info, "bpe_boundary", "reusable_by_tokens_tokens", 0));
    EXPECT_GT(by_characters, 0) << policy;
    EXPECT_LE(by_tokens, by_characters) << policy;
    // A boundary shifts a few tokens at most: 4 users x 2 round pairs x 3.
    EXPECT_GE(by_tokens, by_characters - 4 * 2 * 3) << policy;
    EXPECT_NE(SettingText(r.info, "workload", "documents", 0).find("real code"), std::string::npos);
  }
}

// --documents auto with fewer source files than users falls back to
// synthetic documents and says why, without loading the tokenizer (whose
// absence is the other reason it may give).
TEST(PaperExperiment, AutoDocumentsFallBackWhenTheCorpusHasTooFewFiles) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / "efimsim_auto_documents_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  for (const char* name : {"a.py", "b.py", "notes.txt"}) {
    std::ofstream(dir / name) << "print('hello')\n";
  }
  ExperimentConfig config = Config("efim", 3);
  config.users = 4;
  config.documents = "auto";
  config.corpus_dir = dir.string();
  const ExperimentResult r = RunExperiment(config);
  std::filesystem::remove_all(dir);
  const std::string documents = SettingText(r.info, "workload", "documents", 0);
  EXPECT_EQ(documents.rfind("synthetic tokens (", 0), 0u) << documents;
  if (std::filesystem::exists(tokenizer::DefaultTokenizerPath())) {
    EXPECT_NE(documents.find("(the corpus has 2 source files for 4 users)"),
              std::string::npos)
        << documents;
  }
}

}  // namespace
}  // namespace efimsim
