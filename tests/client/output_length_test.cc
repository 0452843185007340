// Output-length models (sim/client/output_length.h): each model's realised
// statistics on a large sample against its definition, the spec syntax and
// its errors, and, on whole runs, common random numbers: the same request
// gets the same length under every policy, and a per-policy override
// changes only its own policy.
#include "sim/run/workload_options.h"
#include "sim/client/output_length.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "sim/base/errors.h"
#include "sim/core/random.h"
#include "sim/core/random.h"
#include "sim/metrics/summary.h"
#include "sim/run/experiment.h"
#include "traces/tokenizer/default_tokenizer_path.h"

namespace efimsim {
namespace {

constexpr int64_t kSample = 200000;

std::vector<double> Sample(const OutputLengthModel& model, int64_t rest_of_line = 1) {
  std::vector<double> lengths;
  lengths.reserve(kSample);
  for (int64_t i = 0; i < kSample; ++i) {
    lengths.push_back(static_cast<double>(
        model.Draw(PairKey(static_cast<uint64_t>(i), 0), rest_of_line)));
  }
  std::sort(lengths.begin(), lengths.end());
  return lengths;
}

double Mean(const std::vector<double>& values) {
  double sum = 0;
  for (const double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

OutputLengthModel Model(const std::string& spec, int64_t max_tokens = 1 << 20) {
  return OutputLengthModel(ParseOutputLengthSpec(spec), max_tokens, 7);
}

TEST(OutputLength, FixedIsTheCapOrNCapped) {
  EXPECT_EQ(Model("fixed", 128).Draw(1), 128);
  EXPECT_EQ(Model("fixed:32", 128).Draw(1), 32);
  EXPECT_EQ(Model("fixed:500", 128).Draw(1), 128);
  EXPECT_TRUE(ParseOutputLengthSpec("fixed").IsDefault());
  EXPECT_FALSE(ParseOutputLengthSpec("fixed:128").IsDefault());
}

TEST(OutputLength, LognormalHasItsMedianAndP90) {
  const std::vector<double> lengths = Sample(Model("lognormal:median=13,p90=55"));
  EXPECT_NEAR(PercentileOfSorted(lengths, 50), 13, 1);
  EXPECT_NEAR(PercentileOfSorted(lengths, 90), 55, 1);
  // ':' separates parameters too (for sweep grids), same model.
  EXPECT_EQ(Model("lognormal:median=13:p90=55").Draw(99), Model("lognormal:median=13,p90=55").Draw(99));
}

TEST(OutputLength, EosIsGeometricWithMeanOneOverP) {
  const std::vector<double> lengths = Sample(Model("eos:p=0.05"));
  EXPECT_NEAR(Mean(lengths), 20.0, 0.3);
  // P(L <= k) = 1 - 0.95^k: 0.487 at 13, 0.512 at 14.
  EXPECT_EQ(PercentileOfSorted(lengths, 50), 14);
  EXPECT_EQ(lengths.front(), 1);
  EXPECT_EQ(Model("eos:p=1").Draw(5), 1);
}

TEST(OutputLength, EveryModelIsCappedByMaxTokens) {
  for (const std::string spec : {"lognormal:median=100,p90=400", "eos:p=0.001", "eol"}) {
    const std::vector<double> lengths = Sample(Model(spec, 64), 500);
    EXPECT_EQ(lengths.back(), 64) << spec;
    EXPECT_GE(lengths.front(), 1) << spec;
  }
}

TEST(OutputLength, EndOfLineIsTheRestOfTheLineOrMultiLineToTheCap) {
  const std::vector<double> lengths = Sample(Model("eol:multiline=0.25", 128), 9);
  const auto multi = std::count(lengths.begin(), lengths.end(), 128.0);
  const auto single = std::count(lengths.begin(), lengths.end(), 9.0);
  EXPECT_EQ(multi + single, kSample);
  EXPECT_NEAR(static_cast<double>(multi) / kSample, 0.25, 0.005);
}

TEST(OutputLength, RestOfLineIsEstimatedFromTheNonBlankLineAbove) {
  EXPECT_EQ(RestOfLineEstimateText("def f(x):\n    return x + 1\n    "), "return x + 1");
  EXPECT_EQ(RestOfLineEstimateText("    a = 1\n\n   \n  "), "  a = 1");
  EXPECT_EQ(RestOfLineEstimateText("ab\nabcdef"), "");
  EXPECT_EQ(RestOfLineEstimateText("first line"), "");
  EXPECT_EQ(RestOfLineTokens("x = 1\n", [](std::string_view t) { return t.size(); }), 6);
}

// A trace's empirical distribution: lengths 1..100, each once.
TEST(OutputLength, TraceDrawsTheTracesLengths) {
  const auto path = std::filesystem::temp_directory_path() / "efimsim_output_length_test.csv";
  {
    std::ofstream out(path);
    out << "TIMESTAMP,ContextTokens,GeneratedTokens\n";
    for (int i = 1; i <= 100; ++i) {
      out << "2023-11-16 18:17:" << (10 + i / 10) << "." << (i % 10) << "000000,100," << i << "\n";
    }
  }
  const std::vector<double> lengths = Sample(Model("trace:" + path.string()));
  std::filesystem::remove(path);
  EXPECT_NEAR(PercentileOfSorted(lengths, 50), 50.5, 1);
  EXPECT_NEAR(PercentileOfSorted(lengths, 90), 90.1, 1);
  EXPECT_EQ(lengths.front(), 1);
  EXPECT_EQ(lengths.back(), 100);
}

// The Azure code trace (skipped when ../shared/data is absent): the sample
// has the trace's own median and p90 within 1 token.
TEST(OutputLength, AzureTraceMedianAndP90AreReproduced) {
  const std::string path = "../shared/data/traces/azure-llm-code-2023.csv";
  std::filesystem::path found;
  for (std::filesystem::path dir = std::filesystem::current_path(); !dir.empty();
       dir = dir.parent_path()) {
    if (std::filesystem::exists(dir / path)) {
      found = dir / path;
      break;
    }
    if (dir == dir.parent_path()) break;
  }
  if (found.empty()) GTEST_SKIP() << path << " not found";
  std::ifstream in(found);
  std::string line;
  std::getline(in, line);
  std::vector<double> recorded;
  while (std::getline(in, line)) {
    recorded.push_back(std::stod(line.substr(line.rfind(',') + 1)));
  }
  std::sort(recorded.begin(), recorded.end());
  const std::vector<double> lengths = Sample(Model("trace:" + found.string()));
  EXPECT_NEAR(PercentileOfSorted(lengths, 50), PercentileOfSorted(recorded, 50), 1);
  EXPECT_NEAR(PercentileOfSorted(lengths, 90), PercentileOfSorted(recorded, 90), 1);
}

void ExpectUsageError(const std::string& option, const std::string& expected) {
  try {
    ParseOutputLengthOption(option);
    ADD_FAILURE() << "'" << option << "' was accepted";
  } catch (const UsageError& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("--output-length"), std::string::npos) << what;
    EXPECT_NE(what.find(expected), std::string::npos) << what;
  }
}

TEST(OutputLength, BadSpecsNameTheOptionAndTheProblem) {
  ExpectUsageError("poisson:mean=3", "unknown model 'poisson'");
  ExpectUsageError("fixed:abc", "not a number");
  ExpectUsageError("fixed:0", ">= 1");
  ExpectUsageError("fixed:2.5", "whole number");
  ExpectUsageError("lognormal:median=13", "needs median=M,p90=P");
  ExpectUsageError("lognormal:median=13,p90=5", "median <= p90");
  ExpectUsageError("lognormal:median=x,p90=5", "not a number");
  ExpectUsageError("eos:p=0", "0 < p <= 1");
  ExpectUsageError("eos:q=0.1", "unknown parameter 'q'");
  ExpectUsageError("eol:multiline=2", "0 <= multiline <= 1");
  ExpectUsageError("trace:", "needs a file");
  ExpectUsageError("fixed lru=eos:p=0.1", "unknown policy 'lru'");
  ExpectUsageError("fixed efim=eos:p=0.1 efim=fixed", "given twice");
  ExpectUsageError("fixed eos:p=0.1", "overrides are POLICY=SPEC");
  ExpectUsageError("fixed efim=bogus", "unknown model 'bogus'");
}

TEST(OutputLength, OverridesApplyToTheirPolicyOnly) {
  const OutputLengthOption option = ParseOutputLengthOption("lognormal:median=13,p90=55 efim=eos:p=0.05");
  EXPECT_EQ(option.For("fim").kind, OutputLengthSpec::Kind::kLognormal);
  EXPECT_EQ(option.For("efim").kind, OutputLengthSpec::Kind::kEos);
  EXPECT_TRUE(ParseOutputLengthOption("").IsDefault());
  EXPECT_TRUE(ParseOutputLengthOption("fixed").IsDefault());
  EXPECT_FALSE(ParseOutputLengthOption("fixed efim=fixed:32").IsDefault());
  EXPECT_EQ(ParseOutputLengthOption("efim=fixed:32").For("fim").kind, OutputLengthSpec::Kind::kFixed);
}

// ---- whole runs ----

ExperimentConfig Paper(const std::string& policy, const std::string& output_length) {
  ExperimentConfig config;
  config.policy = policy;
  config.users = 8;
  PaperSettings(config).rounds = 4;
  config.documents = "synthetic";
  config.output_length = output_length;
  config.record_wall_time = false;
  return config;
}

std::map<std::pair<int64_t, int64_t>, int64_t> Lengths(const ExperimentResult& result) {
  std::map<std::pair<int64_t, int64_t>, int64_t> lengths;
  for (const RequestRecord& r : result.records) lengths[{r.user, r.round}] = r.output_tokens;
  return lengths;
}

TEST(OutputLengthRuns, TheSameRequestGetsTheSameLengthUnderEveryPolicy) {
  const std::string spec = "lognormal:median=13,p90=55";
  const auto baseline = Lengths(RunExperiment(Paper("baseline", spec)));
  const auto fim = Lengths(RunExperiment(Paper("fim", spec)));
  const auto efim = Lengths(RunExperiment(Paper("efim", spec)));
  ASSERT_EQ(fim.size(), 32u);
  EXPECT_EQ(baseline, fim);
  EXPECT_EQ(fim, efim);
  std::set<int64_t> distinct;
  for (const auto& [request, length] : fim) distinct.insert(length);
  EXPECT_GT(distinct.size(), 5u);  // really drawn, not one value
}

TEST(OutputLengthRuns, AnOverrideChangesOnlyItsPolicy) {
  const std::string base = "lognormal:median=13,p90=55";
  const std::string with_override = base + " efim=eos:p=0.1";
  EXPECT_EQ(Lengths(RunExperiment(Paper("fim", base))),
            Lengths(RunExperiment(Paper("fim", with_override))));
  EXPECT_NE(Lengths(RunExperiment(Paper("efim", base))),
            Lengths(RunExperiment(Paper("efim", with_override))));
}

TEST(OutputLengthRuns, DefaultRunsAreUnchangedAndFixedEqualsTheCap) {
  const ExperimentResult plain = RunExperiment(Paper("efim", "fixed"));
  const ExperimentResult explicit_cap = RunExperiment(Paper("efim", "fixed:128"));
  EXPECT_EQ(Lengths(plain), Lengths(explicit_cap));
  EXPECT_EQ(plain.summary.makespan, explicit_cap.summary.makespan);
  // The default run names no model section; a model run records its statistics.
  const auto has_section = [](const RunInfo& info) {
    return std::any_of(info.sections.begin(), info.sections.end(),
                       [](const RunInfoSection& s) { return s.name == "output_length"; });
  };
  EXPECT_FALSE(has_section(plain.info));
  EXPECT_TRUE(has_section(explicit_cap.info));
}

// Editing sessions (typing, debounced): a completion is identified by its
// session and the text edits applied before it, which no policy changes.
// Requests cancelled as stale stop early, so only those completed under
// both policies are compared.
TEST(OutputLengthRuns, TypingCompletionsGetTheSameLengthUnderEveryPolicy) {
  if (!std::filesystem::exists(tokenizer::DefaultTokenizerPath())) GTEST_SKIP() << "no tokenizer";
  for (const std::string spec : {"eos:p=0.08", "eol:multiline=0.3"}) {
    std::map<std::pair<int64_t, int64_t>, int64_t> completed[2];
    int policy_index = 0;
    for (const std::string policy : {"fim", "efim"}) {
      ExperimentConfig config;
      config.policy = policy;
      config.workload = "typing";
      config.users = 3;
      config.duration_s = 30;
      config.output_length = spec;
      config.record_wall_time = false;
      for (const RequestRecord& r : RunExperiment(config).records) {
        if (!r.cancelled) completed[policy_index][{r.user, r.round}] = r.output_tokens;
      }
      ++policy_index;
    }
    int64_t compared = 0;
    std::set<int64_t> distinct;
    for (const auto& [request, length] : completed[0]) {
      const auto other = completed[1].find(request);
      if (other == completed[1].end()) continue;
      EXPECT_EQ(length, other->second) << spec << " user " << request.first;
      distinct.insert(length);
      ++compared;
    }
    EXPECT_GT(compared, 10) << spec;
    EXPECT_GT(distinct.size(), 3u) << spec;
  }
}

TEST(OutputLengthRuns, EndOfLineNeedsEditingSessions) {
  EXPECT_THROW(RunExperiment(Paper("efim", "eol")), UsageError);
}

}  // namespace
}  // namespace efimsim
