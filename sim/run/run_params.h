#pragma once
// The one list of a run's options: every parameter table of ExperimentConfig
// and its parts, in --help order. `--help`, command-line parsing, sweep grid
// axes, sweep.csv columns and the run description (RunInfo) all read it, so
// adding an option is one row in one of these tables.
//
// A row is a ParamInfo (sim/base/params.h: name, unit, help, range, allowed
// values) plus the field it sets; AllParamTables() binds each table to the
// part of ExperimentConfig that holds its fields.

#include <functional>
#include <string>
#include <vector>

#include "models/latency/latency_model_registry.h"
#include "sim/base/bound_params.h"
#include "sim/base/params.h"
#include "sim/run/experiment.h"

namespace efimsim {

// Parameter tables of the run's parts not owned by an engine. The engines'
// are EngineTargetParams and EngineParams (shared, --engine last) and each
// engine's limits, own tables and its parts' from its registry entry
// (EngineEntry::limit_option_tables, option_tables and part_option_tables,
// bound to ExperimentConfig::engine_options). Rows read by some workloads only are
// scoped to them (ParamScope).
const ParamTable<ExperimentConfig>& UserParams();  // --users (efim-paper, typing)
const ParamTable<PaperWorkloadConfig>& PaperRoundParams();  // --rounds
const ParamTable<ExperimentConfig>& SeedParams();  // --seed (every run)
const ParamTable<PaperWorkloadConfig>& PaperDocumentParams();  // --doc-min/max-tokens
const ParamTable<ExperimentConfig>& RunParams();  // max tokens, pauses, latency model, documents
const ParamTable<ExperimentConfig>& TraceAndClusterParams();  // trace, replicas, rate, timeline, ...
const ParamTable<ExperimentConfig>& RunLimitParams();  // what a run may use (--max-memory-gib)
const ParamTable<CompletionClientConfig>& CompletionParams();
const ParamTable<TypingBehavior>& TypingParams();
const ParamTable<TypingWorkloadConfig>& TypingPopulationParams();
// The latency model's settings besides its name (--latency-model, a run
// option): tensor parallelism and the kernel profile file.
const ParamTable<LatencyModelOptions>& LatencyParams();
const ParamTable<CpuOverheadConfig>& CpuOverheadParams();

// One option bound to its field inside an ExperimentConfig, and a table of
// them with its --help group (sim/base/bound_params.h: the one binder).
using RunParam = BoundParam<ExperimentConfig>;
using RunParamTable = BoundParamTable<ExperimentConfig>;

// Every option of the simulation commands, in --help order (which is also
// the order of sweep.csv's option columns).
const std::vector<RunParamTable>& AllParamTables();

// The option named `name` (CLI spelling), or null.
const RunParam* FindRunParam(const std::string& name);

// Throws UsageError("--name: ...") for the first option whose value in
// `config` is out of range or not one of its allowed values, or that is set
// away from its default while the run uses another part than the ones that
// read it (--cpu-kv-gib under --engine sglang, --trace without --workload
// trace): an option is never silently ignored.
void CheckRunParams(const ExperimentConfig& config);

// True when option `name` is read by the run `config` describes (its scope
// names the run's engine or workload, or every run).
bool OptionApplies(const ExperimentConfig& config, const std::string& name);

// The name of the part `selector` ("engine", "workload") chooses in `config`.
std::string SelectedPart(const ExperimentConfig& config, const std::string& selector);

// The options of `group` with ParamInfo::quiet_default set that `config`
// sets to another value than the default, as settings keyed by their
// underscored names ("tp"): what a run's description adds for them.
std::vector<Setting> NonDefaultQuietSettings(const ExperimentConfig& config,
                                             const std::string& group);

// The option group of the latency model's tables (LatencyParams,
// CpuOverheadParams).
extern const char* const kLatencyGroup;

}  // namespace efimsim
