#pragma once
// Command-line options built from the documented parameter tables
// (sim/base/params.h), so --help, parsing and validation share one source.
// Boost.Program_options stays inside sim/app.

#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "sim/base/params.h"
#include "sim/serving/experiment.h"

namespace efimsim::cli {

namespace po = boost::program_options;

// Adds one option per parameter: "--name arg (=default)  help [unit]".
template <class Config>
void AddParamOptions(po::options_description& options, const ParamTable<Config>& table,
                     const Config& defaults) {
  for (const Param<Config>& param : table) {
    std::string help = param.info.help;
    if (!param.info.unit.empty()) help += " [" + param.info.unit + "]";
    const std::string value = ParamValueText(param, defaults);
    auto* semantic = po::value<std::string>()->default_value(value);
    if (value == "true" || value == "false") semantic->implicit_value("true");
    options.add_options()(param.info.name.c_str(), semantic, help.c_str());
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

// Parameter tables of the experiment's parts not owned by the engine.
const ParamTable<PaperWorkloadConfig>& WorkloadParams();
const ParamTable<ExperimentConfig>& RunParams();  // max tokens, documents, trace, ...
const ParamTable<CompletionClientConfig>& CompletionParams();
const ParamTable<TypingBehavior>& TypingParams();
const ParamTable<TypingWorkloadConfig>& TypingPopulationParams();
const ParamTable<CpuOverheadConfig>& CpuOverheadParams();

// The option groups every simulation command takes.
std::vector<po::options_description> ExperimentOptionGroups();
// Reads them back into a config.
ExperimentConfig ExperimentFromOptions(const po::variables_map& values);

// Parses argv (after the command name) against `visible`; throws UsageError
// naming the option for unknown options or bad syntax. Returns false (and
// prints help) when --help was given.
bool ParseCommandLine(const std::string& command, const std::string& synopsis,
                      const po::options_description& visible, int argc, const char* const* argv,
                      po::variables_map& values,
                      const po::positional_options_description* positional = nullptr);

}  // namespace efimsim::cli
