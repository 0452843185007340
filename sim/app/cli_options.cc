#include "sim/app/cli_options.h"

#include <memory>
#include <sstream>

#include "sim/base/check.h"
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
  // An empty default is still stored (the option reads as defaulted) but not shown.
  auto* semantic = po::value<std::string>()->default_value(default_value, default_value);
  if (default_value == "true" || default_value == "false") semantic->implicit_value("true");
  std::string help = ParamHelpText(info);
  if (!scope.applies_to_every_run()) {
    std::string parts;
    for (const std::string& part : scope.parts) parts += (parts.empty() ? "" : ", ") + part;
    help += " [--" + scope.selector + " " + parts + " only]";
  }
  options.add_options()(info.name.c_str(), semantic, help.c_str());
}

const ParamInfo& RunParamInfo(const std::string& name) {
  const RunParam* param = FindRunParam(name);
  if (param == nullptr) throw InternalError("no run option --" + name);
  return *param->info;
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

void AddExperimentRows(CommandRows& rows) {
  for (const auto& group : ExperimentOptionGroups()) rows.visible.add(group);
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
                                     "kv-cache-dtype", "enable-expert-parallel", "data-parallel-size", "moe-routing"};

ParamInfo ModeInfo(const std::string& help) { return Choice("mode", help, {"eager", "graph"}); }

}  // namespace

void AddLatencyRows(CommandRows& rows, const std::string& mode_help) {
  const ExperimentConfig defaults;
  po::options_description group("Model, GPU and latency model (the rows of efimsim replay)");
  for (const char* name : kLatencyRows) {
    const RunParam* param = FindRunParam(name);
    AddParamOption(group, *param->info, param->value(defaults));
  }
  AddCommandRow(rows, group, ModeInfo(mode_help), {}, "eager", false);
  AddParamOptions(group, LatencyParams(), defaults.latency);
  AddParamOptions(group, CpuOverheadParams(), defaults.cpu);
  rows.visible.add(group);
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

std::string PolicyListHelp(const std::string& intro) {
  std::string help = intro;
  for (const PolicySpec& p : AllPolicies()) help += "\n  " + p.name + ": " + p.help;
  return help;
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

}  // namespace efimsim::cli
