#include "sim/app/cli_options.h"

#include <iostream>

#include "sim/base/errors.h"

namespace efimsim::cli {

const ParamTable<PaperWorkloadConfig>& WorkloadParams() {
  using C = PaperWorkloadConfig;
  static const ParamTable<C> table = {
      {{"users", "users", "closed-loop users, one document each", 1}, &C::users},
      {{"rounds", "rounds", "requests per user (the paper's R)", 1}, &C::rounds},
      {{"seed", "", "seed of every random stream (documents, ...)", 0}, &C::seed},
      {{"doc-min-tokens", "tokens", "documents are longer than this (exclusive bound)", 1},
       &C::doc_min_tokens},
      {{"doc-max-tokens", "tokens", "documents are shorter than this (exclusive bound)", 3},
       &C::doc_max_tokens},
  };
  return table;
}

const ParamTable<ExperimentConfig>& RunParams() {
  using C = ExperimentConfig;
  static const ParamTable<C> table = {
      {{"max-tokens", "tokens", "output tokens per request (generation never stops early)", 1},
       &C::max_output_tokens},
      {{"think-time-ms", "ms", "pause between a response's end and the user's next request", 0},
       &C::think_time_ms},
      {{"latency-model", "", "step latency model (roofline)"}, &C::latency_model},
  };
  return table;
}

const ParamTable<CpuOverheadConfig>& CpuOverheadParams() {
  using C = CpuOverheadConfig;
  static const ParamTable<C> table = {
      {{"cpu-step-overhead-us", "us", "host time per step: scheduling, inputs, sampling (estimate)",
        0},
       &C::step_us},
      {{"cpu-per-sequence-us", "us", "host time per scheduled sequence (estimate)", 0},
       &C::per_sequence_us},
      {{"eager-launch-per-layer-us", "us",
        "kernel-launch time of one layer in eager mode; hides behind GPU time (estimate)", 0},
       &C::eager_launch_per_layer_us},
      {{"graph-launch-us", "us", "one CUDA-graph replay, decode-only steps (estimate)", 0},
       &C::graph_launch_us},
  };
  return table;
}

std::vector<po::options_description> ExperimentOptionGroups() {
  const ExperimentConfig defaults;
  po::options_description workload("Workload (efim-paper: the EFIM paper's multi-round benchmark)");
  AddParamOptions(workload, WorkloadParams(), defaults.workload);
  AddParamOptions(workload, RunParams(), defaults);
  po::options_description engine("Engine (vLLM v1)");
  AddParamOptions(engine, EngineParams(), defaults.engine);
  po::options_description latency("Latency model host overheads");
  AddParamOptions(latency, CpuOverheadParams(), defaults.cpu);
  return {workload, engine, latency};
}

ExperimentConfig ExperimentFromOptions(const po::variables_map& values) {
  ExperimentConfig config;
  ApplyParamOptions(values, WorkloadParams(), config.workload);
  ApplyParamOptions(values, RunParams(), config);
  ApplyParamOptions(values, EngineParams(), config.engine);
  ApplyParamOptions(values, CpuOverheadParams(), config.cpu);
  return config;
}

bool ParseCommandLine(const std::string& command, const std::string& synopsis,
                      const po::options_description& visible, int argc, const char* const* argv,
                      po::variables_map& values,
                      const po::positional_options_description* positional) {
  po::options_description all;
  all.add(visible);
  all.add_options()("help,h", "show this help");
  try {
    po::command_line_parser parser(argc, argv);
    parser.options(all);
    if (positional != nullptr) parser.positional(*positional);
    po::store(parser.run(), values);
    po::notify(values);
  } catch (const po::error& error) {
    throw UsageError(std::string(error.what()) + " (see efimsim " + command + " --help)");
  }
  if (values.count("help")) {
    std::cout << "usage: efimsim " << command << " [options]\n\n" << synopsis << "\n\n"
              << visible << "\n";
    return false;
  }
  return true;
}

}  // namespace efimsim::cli
