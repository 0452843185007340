#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>

#include "sim/app/cli_options.h"
#include "sim/app/commands.h"
#include "sim/app/interrupt.h"
#include "sim/base/output_dir.h"
#include "sim/app/staged_output_dir.h"
#include "sim/app/report.h"
#include "sim/base/atomic_file.h"
#include "sim/base/errors.h"
#include "sim/client/policy.h"
#include "sim/metrics/output_writers.h"
#include "sim/metrics/requests_csv_writer.h"

namespace efimsim::cli {
namespace {

// compare's own options besides the run's (AllParamTables()).
struct CompareCommandOptions {
  std::string policies = "baseline,fim,efim";
  std::string out = "efimsim-out";
};

const CommandParamTable<CompareCommandOptions>& CompareParams() {
  using C = CompareCommandOptions;
  static const CommandParamTable<C> table = {
      {{"policies", "",
        PolicyListHelp("comma-separated cache policies, run on the identical workload:")},
       &C::policies},
      {{"out", "",
        "output directory: comparison.csv and one folder per policy with summary.json and "
        "requests.csv (created if missing)"},
       &C::out},
  };
  return table;
}

CommandRows CompareRows() {
  return SimulationCommandRows(
      "compare",
      "Runs each policy on the identical workload and engine and prints them side by side,\nwith "
      "EFIM's latency reduction and throughput gain over the others.",
      "Compare", CompareParams());
}

// One timeline per policy: run.json -> run.efim.json (run -> run.efim
// without an extension).
std::string PolicyTimelinePath(const std::string& path, const std::string& policy) {
  const size_t slash = path.find_last_of('/');
  const size_t dot = path.find_last_of('.');
  const bool has_extension = dot != std::string::npos && (slash == std::string::npos || dot > slash);
  return has_extension ? path.substr(0, dot) + "." + policy + path.substr(dot)
                       : path + "." + policy;
}

// Runs policy `index` of `count` on `base`, streaming its records to a new
// requests.csv in its staged folder (appended to `requests_csv`,
// uncommitted) and its progress to stderr; appends its result to
// `results`. Interrupted passes through (the progress line ended first).
void RunComparedPolicy(const ExperimentConfig& base, const std::string& policy, size_t index,
                       size_t count, const StagedOutputDir& staged,
                       std::vector<std::unique_ptr<RequestsCsvWriter>>& requests_csv,
                       std::vector<PolicyResult>& results) {
  ExperimentConfig config = base;
  config.policy = policy;
  const std::string policy_dir = staged.Path(config.policy);
  PrepareOutputDir(policy_dir);
  requests_csv.push_back(
      std::make_unique<RequestsCsvWriter>(policy_dir + "/requests.csv", RequestColumnsFor(config)));
  config.record_sink = requests_csv.back().get();
  if (!base.timeline_path.empty()) {
    config.timeline_path = PolicyTimelinePath(base.timeline_path, config.policy);
  }
  char started_line[160];
  std::snprintf(started_line, sizeof started_line, "[%zu/%zu] %s ...", index + 1, count,
                config.policy.c_str());
  std::cerr << started_line << std::flush;
  const auto started = std::chrono::steady_clock::now();
  StderrProgress progress(config.policy, /*mid_line=*/true);
  config.progress = progress.Callback();
  try {
    results.push_back({config.policy, RunExperiment(config)});
    if (progress.Finish()) std::cerr << started_line;  // reports replaced or followed it
  } catch (const Interrupted&) {
    progress.Finish();
    std::cerr << "\n";
    throw;
  }
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  char line[160];
  std::snprintf(line, sizeof line, " %lld requests, %lld steps, %.3f s wall\n",
                static_cast<long long>(results.back().result.summary.requests_completed),
                static_cast<long long>(results.back().result.summary.engine.steps), wall_s);
  std::cerr << line;
}

// Checks every run measured requests, then commits each policy's
// requests.csv and summary.json, comparison.csv and the staged folder
// (dropping an earlier compare's other policy folders).
void CommitComparison(const ExperimentConfig& base, const std::vector<PolicyResult>& results,
                      std::vector<std::unique_ptr<RequestsCsvWriter>>& requests_csv,
                      StagedOutputDir& staged) {
  for (size_t i = 0; i < results.size(); ++i) {
    RequireMeasuredRequests(base, results[i].result);
  }
  for (size_t i = 0; i < results.size(); ++i) {
    const PolicyResult& r = results[i];
    requests_csv[i]->Commit();
    WriteSummaryJson(staged.Path(r.policy + "/summary.json"), r.result.info, r.result.summary);
  }
  WriteFileAtomically(staged.Path("comparison.csv"), RenderComparisonCsv(results));
  std::vector<std::string> policy_folders;
  for (const PolicySpec& policy : AllPolicies()) policy_folders.push_back(policy.name);
  staged.Commit(policy_folders);
}

}  // namespace

std::vector<CommandRows> CompareCommandRows() { return {CompareRows()}; }

int RunCompareCommand(int argc, const char* const* argv) {
  po::variables_map values;
  CompareCommandOptions own;
  if (!ParseCommandRows(CompareRows(), CompareParams(), argc, argv, values, own)) return 0;
  const std::vector<std::string> policies = SplitPolicies(own.policies);
  ExperimentConfig base = ExperimentFromOptions(values);
  base.interrupt = InterruptFlag();
  const std::string out_dir = OutputDirOption(own.out);
  // Written whole or not at all; an earlier compare's policy folders that
  // this one does not write are removed at the end, not left beside it.
  StagedOutputDir staged(out_dir);

  std::vector<PolicyResult> results;
  // Each policy's records stream to its requests.csv (memory does not grow
  // with the trace); the files appear only after every policy has run.
  std::vector<std::unique_ptr<RequestsCsvWriter>> requests_csv;
  for (size_t i = 0; i < policies.size(); ++i) {
    RunComparedPolicy(base, policies[i], i, policies.size(), staged, requests_csv, results);
  }
  CommitComparison(base, results, requests_csv, staged);

  std::cout << RenderRunHeader(results.front().result) << "\n"
            << RenderComparisonTable(results) << "\n"
            << RenderGains(results) << "\nwrote " << out_dir << "/comparison.csv and "
            << out_dir << "/<policy>/{summary.json,requests.csv}\n";
  return 0;
}

}  // namespace efimsim::cli
