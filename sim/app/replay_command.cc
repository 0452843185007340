#include <chrono>
#include <cstdio>
#include <iostream>

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

// replay's own options besides the run's (AllParamTables()).
struct ReplayCommandOptions {
  std::string policy = "efim";
  std::string out = "efimsim-out";
};

const CommandParamTable<ReplayCommandOptions>& ReplayParams() {
  using C = ReplayCommandOptions;
  static const CommandParamTable<C> table = {
      {{"policy", "", PolicyListHelp("cache policy:")}, &C::policy},
      {{"out", "", "output directory for summary.json and requests.csv (created if missing)"},
       &C::out},
  };
  return table;
}

CommandRows ReplayRows() {
  return SimulationCommandRows(
      "replay",
      "Replays a workload under one cache policy on one simulated vLLM v1 replica and\nprints its "
      "summary; writes DIR/summary.json and DIR/requests.csv.",
      "Replay", ReplayParams());
}

}  // namespace

std::vector<CommandRows> ReplayCommandRows() { return {ReplayRows()}; }

int RunReplayCommand(int argc, const char* const* argv) {
  po::variables_map values;
  ReplayCommandOptions own;
  if (!ParseCommandRows(ReplayRows(), ReplayParams(), argc, argv, values, own)) return 0;
  ExperimentConfig config = ExperimentFromOptions(values);
  config.interrupt = InterruptFlag();
  config.policy = own.policy;
  GetPolicy(config.policy);  // validate before any work
  const std::string out_dir = OutputDirOption(own.out);
  StagedOutputDir staged(out_dir);  // nothing appears under --out unless the run succeeds

  const auto started = std::chrono::steady_clock::now();
  // Records stream to requests.csv as requests end, so memory does not grow
  // with the trace's length; the file appears only when the run succeeds.
  RequestsCsvWriter requests_csv(staged.Path("requests.csv"), RequestColumnsFor(config));
  config.record_sink = &requests_csv;
  StderrProgress progress("replay " + config.policy);
  config.progress = progress.Callback();
  ExperimentResult result;
  try {
    result = RunExperiment(config);
    progress.Finish();
  } catch (const Interrupted&) {
    progress.Finish();
    throw;  // main reports it; unwinding removes the staged files
  }
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  RequireMeasuredRequests(config, result);
  requests_csv.Commit();
  WriteSummaryJson(staged.Path("summary.json"), result.info, result.summary);
  staged.Commit();

  std::cout << RenderRunHeader(result) << "\n"
            << RenderComparisonTable({{config.policy, result}}) << "\n"
            << "wrote " << out_dir << "/summary.json, " << out_dir << "/requests.csv\n";
  char line[160];
  std::snprintf(line, sizeof line, "simulated %lld requests in %lld steps, %.3f s wall\n",
                static_cast<long long>(result.summary.requests_completed),
                static_cast<long long>(result.summary.engine.steps), wall_s);
  std::cerr << line;
  return 0;
}

}  // namespace efimsim::cli
