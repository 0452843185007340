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

int RunReplayCommand(int argc, const char* const* argv) {
  std::string policies_help = "cache policy:";
  for (const PolicySpec& p : AllPolicies()) policies_help += "\n  " + p.name + ": " + p.help;
  po::options_description general("Replay");
  general.add_options()
      ("policy", po::value<std::string>()->default_value("efim"), policies_help.c_str())
      ("out", po::value<std::string>()->default_value("efimsim-out"),
       "output directory for summary.json and requests.csv (created if missing)");
  po::options_description visible;
  visible.add(general);
  for (const auto& group : ExperimentOptionGroups()) visible.add(group);

  po::variables_map values;
  if (!ParseCommandLine("replay",
                        "Replays a workload under one cache policy on one simulated vLLM v1 "
                        "replica and\nprints its summary; writes DIR/summary.json and "
                        "DIR/requests.csv.",
                        visible, argc, argv, values)) {
    return 0;
  }
  ExperimentConfig config = ExperimentFromOptions(values);
  config.interrupt = InterruptFlag();
  config.policy = values["policy"].as<std::string>();
  GetPolicy(config.policy);  // validate before any work
  const std::string out_dir = OutputDirOption(values["out"].as<std::string>());
  StagedOutputDir staged(out_dir);  // nothing appears under --out unless the run succeeds

  const auto started = std::chrono::steady_clock::now();
  // Records stream to requests.csv as requests end, so memory does not grow
  // with the trace's length; the file appears only when the run succeeds.
  RequestsCsvWriter requests_csv(staged.Path("requests.csv"));
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
