#pragma once
// A workload's own options: each workload (efim-paper, typing,
// inference-perf, vllm-bench) keeps a plain config struct with a
// ParamTable, and publishes the table bound to that struct inside a run's
// ExperimentConfig, so --help, parsing, sweep axes and checks list its
// options beside every other run option (run_params.h, AllParamTables).
//
// The struct is held in ExperimentConfig::workload_options, a type-erased
// store of per-component settings (sim/base/option_store.h), under the
// workload's name: a workload's options then need no field of their own in
// ExperimentConfig, as an engine's do not. Options several workloads read
// (--users, --duration-s, the completion client's) stay run options,
// scoped to the workloads that read them.
//
// The generators' rows (inference-perf, vllm-bench) are marked
// quiet_default, so sweep.csv and run descriptions of runs that do not use
// them keep the bytes they had before they existed; a workload writes its
// settings into its own "workload" section (Workload::Describe).

#include <cstdio>
#include <string>

#include "sim/base/bound_params.h"
#include "sim/base/params.h"
#include "sim/run/experiment.h"
#include "sim/run/run_params.h"

namespace efimsim {

// "2", "0.25", "1e+03": a number as a user would write it (%g), for
// workload descriptions.
inline std::string ShortNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

// The key of workload `name`'s settings in ExperimentConfig::workload_options.
inline std::string WorkloadOptionsKey(const std::string& name) { return name; }

// The settings of workload `name` in `config` (its defaults when none set).
template <class Config>
const Config& WorkloadOptions(const ExperimentConfig& config, const std::string& name) {
  return config.workload_options.Get<Config>(WorkloadOptionsKey(name));
}

// The settings of the built-in workloads in the store: efim-paper's rounds
// and document sizes (its users and seed fields unused: a run's are
// ExperimentConfig::users and seed) and typing's population and behaviour
// (users, seed and source_dir likewise the run's).
inline const PaperWorkloadConfig& PaperSettings(const ExperimentConfig& config) {
  return WorkloadOptions<PaperWorkloadConfig>(config, "efim-paper");
}
inline PaperWorkloadConfig& PaperSettings(ExperimentConfig& config) {
  return config.workload_options.Get<PaperWorkloadConfig>(WorkloadOptionsKey("efim-paper"));
}
inline const TypingWorkloadConfig& TypingSettings(const ExperimentConfig& config) {
  return WorkloadOptions<TypingWorkloadConfig>(config, "typing");
}
inline TypingWorkloadConfig& TypingSettings(ExperimentConfig& config) {
  return config.workload_options.Get<TypingWorkloadConfig>(WorkloadOptionsKey("typing"));
}

// `table`'s rows bound to workload `name`'s Config in a run's config,
// scoped to that workload (set under another --workload: a usage error).
// `table` must outlive the result (tables are function-local statics).
template <class Config>
RunParamTable BindWorkloadOptions(const std::string& name, std::string group,
                                  const ParamTable<Config>& table) {
  const std::string key = WorkloadOptionsKey(name);
  PartAccess<ExperimentConfig, Config> access{
      [key](ExperimentConfig& c) -> Config& { return c.workload_options.Get<Config>(key); },
      [key](const ExperimentConfig& c) -> const Config& {
        return c.workload_options.Get<Config>(key);
      }};
  return BindParamTable(std::move(group), table, std::move(access), ParamScope{"workload", {name}});
}

}  // namespace efimsim
