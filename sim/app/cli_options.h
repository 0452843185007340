#pragma once
// Command-line options built from the documented parameter tables
// (sim/base/params.h; every simulation option is in AllParamTables(),
// sim/run/run_params.h), so --help, parsing and validation share one
// source. Boost.Program_options stays inside sim/app.

#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "models/latency/latency_model_registry.h"
#include "sim/app/command_rows.h"
#include "models/formats/spec_catalog.h"
#include "sim/base/params.h"
#include "sim/run/experiment.h"
#include "sim/run/run_params.h"

namespace efimsim::cli {

namespace po = boost::program_options;

// "help [unit] (one of: a, b)": the option's --help line.
std::string ParamHelpText(const ParamInfo& info);
// One option "--name arg (=default)  help [unit]" ("--name arg" when the
// default is empty), parsed as text.
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

// The ParamInfo of the run option `name` (a row of AllParamTables()), for a
// command that takes the same option: one text, never a second copy.
// InternalError when there is none.
const ParamInfo& RunParamInfo(const std::string& name);

// The option groups every simulation command takes: AllParamTables(), one
// group per table group, in order.
std::vector<po::options_description> ExperimentOptionGroups();
// Those groups appended to rows.visible.
void AddExperimentRows(CommandRows& rows);
// Reads them back into a config.
ExperimentConfig ExperimentFromOptions(const po::variables_map& values);

// A simulation command's rows: its own `table` as the group `title`, then
// every run option (compare, replay, sweep).
template <class Config>
CommandRows SimulationCommandRows(std::string command, std::string synopsis,
                                  const std::string& title, const CommandParamTable<Config>& table) {
  CommandRows rows = OwnRows(std::move(command), std::move(synopsis), title, table);
  AddExperimentRows(rows);
  return rows;
}

// predict and validate-latency: the model, the GPU and the latency options
// of the simulation commands (the same table rows: --model, --gpu, --engine
// (whose kernels auto prefers), --latency-model, --tp, --profile,
// --kernel-source, host overheads), plus --mode (a row of the command's own,
// with `mode_help`), as one group appended to rows.visible.
void AddLatencyRows(CommandRows& rows, const std::string& mode_help);
struct LatencySetup {
  ModelSpec model;
  GpuSpec gpu;
  LatencyConfig latency;  // cuda_graphs as --mode says (graph: true)
  std::string mode;       // eager | graph
};
LatencySetup LatencyFromOptions(const po::variables_map& values);

// `intro` followed by one line per policy with its help ("\n  efim: ...").
std::string PolicyListHelp(const std::string& intro);

// --policies: comma-separated policy names, each known and given once;
// throws UsageError("--policies: ...") otherwise.
std::vector<std::string> SplitPolicies(const std::string& text);

}  // namespace efimsim::cli
