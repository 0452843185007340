#include "sim/app/cli_options.h"

#include <iostream>
#include <memory>
#include <sstream>

#include "sim/base/errors.h"
#include "sim/client/policy.h"

namespace efimsim::cli {

std::string ParamHelpText(const ParamInfo& info) {
  std::string help = info.help;
  if (!info.unit.empty()) help += " [" + info.unit + "]";
  if (!info.allowed.empty()) {
    std::string values;
    for (const std::string& value : info.allowed) values += (values.empty() ? "" : ", ") + value;
    help += " (one of: " + values + ")";
  }
  return help;
}

void AddParamOption(po::options_description& options, const ParamInfo& info,
                    const std::string& default_value, const ParamScope& scope) {
  auto* semantic = po::value<std::string>()->default_value(default_value);
  if (default_value == "true" || default_value == "false") semantic->implicit_value("true");
  std::string help = ParamHelpText(info);
  if (!scope.applies_to_every_run()) {
    std::string parts;
    for (const std::string& part : scope.parts) parts += (parts.empty() ? "" : ", ") + part;
    help += " [--" + scope.selector + " " + parts + " only]";
  }
  options.add_options()(info.name.c_str(), semantic, help.c_str());
}

std::vector<po::options_description> ExperimentOptionGroups() {
  const ExperimentConfig defaults;
  std::vector<po::options_description> groups;
  std::string group;
  for (const RunParamTable& table : AllParamTables()) {
    if (groups.empty() || table.group != group) {
      group = table.group;
      groups.emplace_back(group);
    }
    for (const RunParam& param : table.params) {
      AddParamOption(groups.back(), *param.info, param.value(defaults), param.scope);
    }
  }
  return groups;
}

ExperimentConfig ExperimentFromOptions(const po::variables_map& values) {
  ExperimentConfig config;
  for (const RunParamTable& table : AllParamTables()) {
    for (const RunParam& param : table.params) {
      const auto it = values.find(param.info->name);
      if (it != values.end()) param.set(it->second.as<std::string>(), config);
    }
  }
  // One tokenizer for every run made from these options (compare, sweep
  // and capacity run many), loaded by the first that needs text.
  config.shared_tokenizer = std::make_shared<const SharedTokenizer>(config.tokenizer_path);
  return config;
}

namespace {

// The rows of AllParamTables() that predict and validate-latency take.
const char* const kLatencyRows[] = {"model", "gpu", "engine", "latency-model", "quantization",
                                     "kv-cache-dtype", "enable-expert-parallel"};

ParamInfo ModeInfo(const std::string& help) { return Choice("mode", help, {"eager", "graph"}); }

}  // namespace

po::options_description LatencyOptionGroup(const std::string& mode_help) {
  const ExperimentConfig defaults;
  po::options_description group("Model, GPU and latency model (the rows of efimsim replay)");
  for (const char* name : kLatencyRows) {
    const RunParam* param = FindRunParam(name);
    AddParamOption(group, *param->info, param->value(defaults));
  }
  AddParamOption(group, ModeInfo(mode_help), "eager");
  AddParamOptions(group, LatencyParams(), defaults.latency);
  AddParamOptions(group, CpuOverheadParams(), defaults.cpu);
  return group;
}

LatencySetup LatencyFromOptions(const po::variables_map& values) {
  ExperimentConfig config;
  for (const char* name : kLatencyRows) {
    FindRunParam(name)->set(values[name].as<std::string>(), config);
  }
  ApplyParamOptions(values, LatencyParams(), config.latency);
  ApplyParamOptions(values, CpuOverheadParams(), config.cpu);
  LatencySetup setup;
  setup.mode = values["mode"].as<std::string>();
  CheckAllowedValue(ModeInfo(""), setup.mode);
  setup.model = LoadServedModel(config.engine);
  setup.gpu = LoadGpuSpec(config.engine.gpu);
  config.engine.cuda_graphs = setup.mode == "graph";
  setup.latency = RunLatencyConfig(config);
  return setup;
}

std::vector<std::string> SplitPolicies(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    if (item.empty()) throw UsageError("--policies: empty name in '" + text + "'");
    for (const std::string& seen : items) {
      if (seen == item) throw UsageError("--policies: '" + item + "' given twice");
    }
    GetPolicy(item);  // throws naming the known policies
    items.push_back(item);
  }
  if (items.empty()) throw UsageError("--policies: no policy given");
  return items;
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
    const po::parsed_options parsed = parser.run();
    // A command without positional arguments refuses them: boost would
    // otherwise drop `efimsim replay trace.csv`'s file without a word.
    for (const po::option& option : parsed.options) {
      if (positional == nullptr && option.position_key >= 0 && !option.value.empty()) {
        throw UsageError(command + ": unexpected argument '" + option.value.front() +
                         "'; settings are --options (a trace is --workload trace --trace FILE; "
                         "see efimsim " + command + " --help)");
      }
    }
    po::store(parsed, values);
    // --help before notify: notify checks required options, which a user
    // asking for help has not given.
    if (values.count("help")) {
      std::cout << "usage: efimsim " << command << " [options]\n\n" << synopsis << "\n\n"
                << visible << "\n";
      return false;
    }
    po::notify(values);
  } catch (const po::error& error) {
    throw UsageError(std::string(error.what()) + " (see efimsim " + command + " --help)");
  }
  return true;
}

}  // namespace efimsim::cli
