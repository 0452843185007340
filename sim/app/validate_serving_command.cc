// efimsim validate-serving: a real serving run replayed and compared.
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "sim/app/cli_options.h"
#include "sim/app/commands.h"
#include "sim/app/interrupt.h"
#include "traces/serving_run.h"
#include "sim/run/serving_validation.h"
#include "sim/base/errors.h"
#include "sim/base/output_dir.h"

namespace efimsim::cli {
namespace {

// validate-serving's own options besides the engine and latency rows
// (AddEngineOptions, read by ValidationOptions from the parsed values).
struct ValidateServingCommandOptions {
  std::vector<std::string> run;
  std::string workload_file;
  std::string latency_model = "auto";
  std::string arrivals = "auto";
  std::string out;
  std::string frontend = "default";
  std::string host_overlap = "auto";
};

const CommandParamTable<ValidateServingCommandOptions>& ValidateServingParams() {
  using C = ValidateServingCommandOptions;
  static const CommandParamTable<C> table = {
      {{"run", "",
        "the run: an LLMServingSim bench run folder (with vllm/meta.json and "
        "vllm/requests.jsonl), or its meta.json, requests.jsonl and workload JSONL, or one "
        "`vllm bench serve --save-result --save-detailed` JSON, or vLLM's OpenTelemetry spans "
        "(traces.json) and/or GuideLLM's results JSON with the server's vllm.log, or a folder "
        "holding them (also positional)"},
       &C::run, {.multitoken = true, .positional = -1}},
      {{"workload-file", "",
        "the workload JSONL of an LLMServingSim run (default: meta.json's dataset_path, looked "
        "up in every folder above the run)"},
       &C::workload_file},
      {RunParamInfo("latency-model"), &C::latency_model},
      {Choice("arrivals",
              "replayed arrival times: auto (the engine's queue times when the run has them, "
              "else the workload's), workload (the workload's schedule) or engine",
              {"auto", "workload", "engine"}),
       &C::arrivals},
      {{"out", "", "also write the comparison as JSON to this file"}, &C::out},
      {Noted(RunParamInfo("frontend"),
             "here added to the predictions compared with client-side timings (vllm bench, "
             "GuideLLM)"),
       &C::frontend},
      {Noted(Choice("host-overlap", RunParamInfo("host-overlap").help, {"auto", "true", "false"}),
             "auto: the run's async_scheduling (false when the run does not record it)"),
       &C::host_overlap},
  };
  return table;
}

// Adds validate-serving's own options (the run, workload file, latency
// model, arrivals, JSON output, frontend, host overlap) to general, and the
// old spellings it refuses.
void AddGeneralOptions(CommandRows& rows, po::options_description& general) {
  AddCommandRows(rows, general, ValidateServingParams());
  rows.retired = {
      {"json", "validate-serving writes the comparison JSON with --out FILE (--json FILE was "
               "renamed; elsewhere --json prints JSON to standard output)"},
      {"workload", "the run's workload JSONL is --workload-file PATH (--workload PATH was "
                   "renamed; the run commands' --workload names a workload)"},
  };
}

// The run rows validate-serving takes for its replay: the engine's rows
// that apply to vLLM v1 (the shared ones and vLLM's limits; not --engine,
// the replay is vLLM's) and the latency model's, but --host-overlap, which
// validate-serving takes with "auto" (AddGeneralOptions).
bool IsReplayRow(const RunParamTable& table, const RunParam& row) {
  const bool engine = table.group == "Engine (vLLM v1)";
  if (!engine && table.group != kLatencyGroup) return false;
  if (row.info->name == "engine" || row.info->name == "host-overlap") return false;
  const auto& parts = row.scope.parts;
  return row.scope.applies_to_every_run() ||
         std::find(parts.begin(), parts.end(), "vllm_v1") != parts.end();
}

// Adds the replay's engine rows to engine, the latency-model and
// host-overhead rows to overheads (IsReplayRow), with their run defaults.
void AddEngineOptions(po::options_description& engine, po::options_description& overheads) {
  const ExperimentConfig defaults;
  for (const RunParamTable& table : AllParamTables()) {
    for (const RunParam& row : table.params) {
      if (!IsReplayRow(table, row)) continue;
      AddParamOption(table.group == kLatencyGroup ? overheads : engine, *row.info,
                     row.value(defaults));
    }
  }
}

// The validation options from parsed values: the replay's engine, latency
// and host settings (every IsReplayRow, by its row), with the ones given on
// the command line named in explicit_options.
ServingValidationOptions ValidationOptions(const po::variables_map& values) {
  ServingValidationOptions options;
  options.latency_model = values["latency-model"].as<std::string>();
  options.arrivals = values["arrivals"].as<std::string>();
  for (const RunParamTable& table : AllParamTables()) {
    for (const RunParam& row : table.params) {
      if (!IsReplayRow(table, row)) continue;
      const auto it = values.find(row.info->name);
      if (it == values.end()) continue;
      row.set(it->second.as<std::string>(), options.replay);
      if (!it->second.defaulted()) options.explicit_options.push_back(row.info->name);
    }
  }
  options.check_invariants = options.replay.engine.check_invariants;
  // --gpu and --model (engine options): given, they replace the mapping of
  // the run's device and model names to the catalogue.
  for (const std::string& name : options.explicit_options) {
    if (name == "gpu") options.gpu = options.replay.engine.gpu;
    if (name == "model") options.model = options.replay.engine.model;
  }
  options.host_overlap = values["host-overlap"].as<std::string>();
  options.frontend = values["frontend"].as<std::string>();
  return options;
}

CommandRows ValidateServingRows() {
  CommandRows rows(
      "validate-serving",
      "Replays a real serving run's exact workload (prompts, arrival times, forced output "
      "lengths) on\nefimsim's vLLM v1 engine with the run's configuration, and prints TTFT, "
      "TPOT and E2E (mean,\nmedian, p90, p95, p99) measured and predicted with signed errors. "
      "What the run's configuration\nhas that efimsim cannot reproduce is listed.");
  po::options_description general("Validate serving");
  AddGeneralOptions(rows, general);
  po::options_description engine(
      "Engine settings the run does not record, or overrides (vLLM v1); --gpu and --model default "
      "to the run's device and model names mapped to the catalogue");
  po::options_description overheads("Latency model: tensor parallelism, profile, host overheads");
  AddEngineOptions(engine, overheads);
  rows.visible.add(general).add(engine).add(overheads);
  return rows;
}

}  // namespace

std::vector<CommandRows> ValidateServingCommandRows() { return {ValidateServingRows()}; }

int RunValidateServingCommand(int argc, const char* const* argv) {
  po::variables_map values;
  ValidateServingCommandOptions own;
  if (!ParseCommandRows(ValidateServingRows(), ValidateServingParams(), argc, argv, values, own)) {
    return 0;
  }
  if (own.run.empty()) throw UsageError("validate-serving: give the run (a folder or files)");
  if (!own.out.empty()) CheckOutputFileDir("--out", own.out);  // before the work

  const ServingValidationOptions options = ValidationOptions(values);
  const ServingRun run = ReadServingRun(own.run, own.workload_file);
  ThrowIfInterrupted();
  const ServingValidation validation = ValidateServing(run, options);
  ThrowIfInterrupted();  // before anything is printed or written
  std::cout << RenderServingValidation(run, validation);
  if (!own.out.empty()) {
    WriteServingValidationJson(own.out, run, validation);
    std::cout << "wrote " << own.out << "\n";
  }
  return 0;
}

}  // namespace efimsim::cli
