#pragma once
// Command-line options built from the documented parameter tables
// (sim/base/params.h; every simulation option is in AllParamTables(),
// sim/run/run_params.h), so --help, parsing and validation share one
// source. Boost.Program_options stays inside sim/app.

#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "models/latency/latency_model_registry.h"
#include "models/formats/spec_catalog.h"
#include "sim/base/params.h"
#include "sim/run/experiment.h"
#include "sim/run/run_params.h"

namespace efimsim::cli {

namespace po = boost::program_options;

// "help [unit] (one of: a, b)": the option's --help line.
std::string ParamHelpText(const ParamInfo& info);
// One option "--name arg (=default)  help [unit]", parsed as text.
// `scope` adds "[--engine sglang only]"-style text when the option applies to
// some parts only.
void AddParamOption(po::options_description& options, const ParamInfo& info,
                    const std::string& default_value, const ParamScope& scope = {});

// Adds one option per parameter: "--name arg (=default)  help [unit]".
template <class Config>
void AddParamOptions(po::options_description& options, const ParamTable<Config>& table,
                     const Config& defaults) {
  for (const Param<Config>& param : table) {
    AddParamOption(options, param.info, ParamValueText(param, defaults));
  }
}

// Copies every parameter's (possibly defaulted) value into `config`.
template <class Config>
void ApplyParamOptions(const po::variables_map& values, const ParamTable<Config>& table,
                       Config& config) {
  for (const Param<Config>& param : table) {
    const auto it = values.find(param.info.name);
    if (it != values.end()) SetParam(param, it->second.template as<std::string>(), config);
  }
}

// The option groups every simulation command takes: AllParamTables(), one
// group per table group, in order.
std::vector<po::options_description> ExperimentOptionGroups();
// Reads them back into a config.
ExperimentConfig ExperimentFromOptions(const po::variables_map& values);

// predict and validate-latency: the model, the GPU and the latency options
// of the simulation commands (the same table rows: --model, --gpu, --engine
// (whose kernels auto prefers), --latency-model, --tp, --profile,
// --kernel-source, host overheads), plus --mode.
po::options_description LatencyOptionGroup(const std::string& mode_help);
struct LatencySetup {
  ModelSpec model;
  GpuSpec gpu;
  LatencyConfig latency;  // cuda_graphs as --mode says (graph: true)
  std::string mode;       // eager | graph
};
LatencySetup LatencyFromOptions(const po::variables_map& values);

// --policies: comma-separated policy names, each known and given once;
// throws UsageError("--policies: ...") otherwise.
std::vector<std::string> SplitPolicies(const std::string& text);

// Parses argv (after the command name) against `visible`; throws UsageError
// naming the option for unknown options or bad syntax. Returns false (and
// prints help) when --help was given.
bool ParseCommandLine(const std::string& command, const std::string& synopsis,
                      const po::options_description& visible, int argc, const char* const* argv,
                      po::variables_map& values,
                      const po::positional_options_description* positional = nullptr);

}  // namespace efimsim::cli
