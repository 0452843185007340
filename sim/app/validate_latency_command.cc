// efimsim validate-latency: a latency model against measured step times.
#include <cstdio>
#include <iostream>
#include <string>

#include "models/latency/latency_model_registry.h"
#include "models/latency/latency_validation.h"
#include "models/formats/spec_catalog.h"
#include "models/latency/step_report.h"
#include "sim/app/cli_options.h"
#include "sim/app/commands.h"
#include "sim/base/errors.h"

namespace efimsim::cli {

namespace {

// validate-latency's own options besides the latency rows (AddLatencyRows).
struct ValidateLatencyCommandOptions {
  std::string measured;
  std::string timing = "gpu";
  int64_t worst = 3;
  bool json = false;
};

const CommandParamTable<ValidateLatencyCommandOptions>& ValidateLatencyParams() {
  using C = ValidateLatencyCommandOptions;
  static const CommandParamTable<C> table = {
      {{"measured", "",
        "JSON list of measured steps (format: models/PROFILE.md, \"Measured steps\")"},
       &C::measured, {.required = true}},
      {Choice("timing",
              "what measured_ms is: gpu (the forward pass's GPU time, e.g. a CUDA-graph replay "
              "timed with events, as in ../shared/data/gpu; compared with the prediction less its "
              "host overhead) or step (a whole engine step, host overhead included)",
              {"gpu", "step"}),
       &C::timing},
      {{"worst", "rows", "worst rows listed per kind", 0}, &C::worst},
      {{"json", "", "print the report as JSON"}, &C::json, {.is_switch = true}},
  };
  return table;
}

CommandRows ValidateLatencyRows() {
  CommandRows rows("validate-latency",
                   "Predicts every measured step and prints, per kind of step (prefill, decode, "
                   "mixed) and\nover all, the median, p90 and max relative error |predicted - "
                   "measured| / measured,\nthe mean signed error (bias), and the worst rows.");
  AddCommandGroup(rows, "Validate latency", ValidateLatencyParams());
  AddLatencyRows(rows, "overhead model of rows without a \"mode\": eager or graph");
  return rows;
}

}  // namespace

std::vector<CommandRows> ValidateLatencyCommandRows() { return {ValidateLatencyRows()}; }

int RunValidateLatencyCommand(int argc, const char* const* argv) {
  po::variables_map values;
  ValidateLatencyCommandOptions own;
  if (!ParseCommandRows(ValidateLatencyRows(), ValidateLatencyParams(), argc, argv, values, own)) {
    return 0;
  }
  const std::string& timing = own.timing;
  const int64_t worst = own.worst;
  const LatencySetup setup = LatencyFromOptions(values);
  const std::string& mode = setup.mode;
  const LatencyModelOptions& options = setup.latency.options;
  const ModelSpec& model = setup.model;
  const GpuSpec& gpu = setup.gpu;
  // Steps of either mode: each is priced by the model of its own mode.
  LatencyConfig eager_config = setup.latency;
  eager_config.cpu.cuda_graphs = false;
  LatencyConfig graph_config = setup.latency;
  graph_config.cpu.cuda_graphs = true;
  const auto eager = MakeLatencyModel(eager_config, model, gpu);
  const auto graph = MakeLatencyModel(graph_config, model, gpu);
  const std::vector<MeasuredStep> steps = LoadMeasuredSteps(own.measured);
  const ValidationReport report =
      ValidateLatency(steps, *eager, *graph, mode == "graph", static_cast<size_t>(worst),
                      timing == "gpu" ? StepTiming::kGpu : StepTiming::kStep);
  const PredictionContext context{eager->Name(), eager->Description(), model.name, gpu.name,
                                  options.tensor_parallel, mode, timing};
  if (own.json) {
    std::cout << ValidationReportJson(context, report);
    return 0;
  }
  std::printf("latency model: %s\n  %s\n", context.latency_model.c_str(),
              context.description.c_str());
  std::printf("%s on %s, TP=%lld; %zu measured steps from %s (rows without a mode: %s; "
              "compared: %s)\n\n",
              model.name.c_str(), gpu.name.c_str(), static_cast<long long>(options.tensor_parallel),
              steps.size(), own.measured.c_str(), mode.c_str(),
              timing == "gpu" ? "GPU time, host overhead left out" : "whole steps, host overhead included");
  std::printf("%-15s %5s %10s %10s %10s %10s   (relative errors, %%)\n", "kind", "rows", "median",
              "p90", "max", "bias");
  for (const ErrorSummary& s : report.summaries) {
    std::printf("%-15s %5lld %10.1f %10.1f %10.1f %+10.1f\n", s.kind.c_str(),
                static_cast<long long>(s.rows), 100 * s.median, 100 * s.p90, 100 * s.max,
                100 * s.mean_signed);
  }
  for (const ErrorSummary& s : report.summaries) {
    if (s.kind == "all" || s.kind == "prefill+decode" || s.worst.empty()) continue;
    std::printf("\nworst %s rows\n%6s %13s %13s %9s %s\n", s.kind.c_str(), "index",
                "predicted_ms", "measured_ms", "error_%", "extrapolated");
    for (const RowError& row : s.worst) {
      std::printf("%6lld %13.3f %13.3f %9.1f %s\n", static_cast<long long>(row.index),
                  row.predicted_ms, row.measured_ms, 100 * row.relative_error,
                  row.extrapolated ? "yes" : "no");
    }
  }
  return 0;
}

}  // namespace efimsim::cli
