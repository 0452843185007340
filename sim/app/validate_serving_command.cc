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

namespace efimsim::cli {
namespace {

// Adds validate-serving's own options (the run, workload, latency model,
// arrivals, JSON output, host overlap) to general.
void AddGeneralOptions(po::options_description& general) {
  general.add_options()
      ("run", po::value<std::vector<std::string>>()->multitoken(),
       "the run: an LLMServingSim bench run folder (with vllm/meta.json and "
       "vllm/requests.jsonl), or its meta.json, requests.jsonl and workload JSONL, or one "
       "`vllm bench serve --save-result --save-detailed` JSON, or vLLM's OpenTelemetry spans "
       "(traces.json) and/or GuideLLM's results JSON with the server's vllm.log, or a folder "
       "holding them (also positional)")
      ("workload", po::value<std::string>()->default_value(""),
       "the workload JSONL of an LLMServingSim run (default: meta.json's dataset_path, looked "
       "up in every folder above the run)")
      ("latency-model", po::value<std::string>()->default_value("auto"),
       ParamHelpText(*FindRunParam("latency-model")->info).c_str())
      ("arrivals", po::value<std::string>()->default_value("auto"),
       "replayed arrival times: auto (the engine's queue times when the run has them, else the "
       "workload's), workload (the workload's schedule) or engine")
      ("json", po::value<std::string>()->default_value(""), "also write the comparison as JSON here")
      ("frontend", po::value<std::string>()->default_value("default"),
       "the API server's time outside the engine, added to predictions compared with client-side "
       "timings (vllm bench, GuideLLM): default (the engine's: vLLM's fitted on vLLM 0.11 on an "
       "H100, docs/validation.md), none, or PER_REQUEST_US,PER_PROMPT_TOKEN_US[,PER_OUTPUT_TOKEN_US]")
      ("host-overlap", po::value<std::string>()->default_value("auto")->implicit_value("true"),
       "host/GPU overlap (vLLM V1 async scheduling): a step's host time adds only where it exceeds "
       "the step's GPU time (models/README.md); false: it adds in full; auto: the run's "
       "async_scheduling (false when the run does not record it)");
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

}  // namespace

int RunValidateServingCommand(int argc, const char* const* argv) {
  po::options_description general("Validate serving");
  AddGeneralOptions(general);
  po::options_description engine(
      "Engine settings the run does not record, or overrides (vLLM v1); --gpu and --model default "
      "to the run's device and model names mapped to the catalogue");
  po::options_description overheads("Latency model: tensor parallelism, profile, host overheads");
  AddEngineOptions(engine, overheads);
  po::options_description visible;
  visible.add(general).add(engine).add(overheads);
  po::positional_options_description positional;
  positional.add("run", -1);

  po::variables_map values;
  if (!ParseCommandLine(
          "validate-serving",
          "Replays a real serving run's exact workload (prompts, arrival times, forced output "
          "lengths) on\nefimsim's vLLM v1 engine with the run's configuration, and prints TTFT, "
          "TPOT and E2E (mean,\nmedian, p90, p95, p99) measured and predicted with signed errors. "
          "What the run's configuration\nhas that efimsim cannot reproduce is listed.",
          visible, argc, argv, values, &positional)) {
    return 0;
  }
  if (!values.count("run")) throw UsageError("validate-serving: give the run (a folder or files)");
  const std::vector<std::string> paths = values["run"].as<std::vector<std::string>>();

  const ServingValidationOptions options = ValidationOptions(values);
  const ServingRun run = ReadServingRun(paths, values["workload"].as<std::string>());
  ThrowIfInterrupted();
  const ServingValidation validation = ValidateServing(run, options);
  ThrowIfInterrupted();  // before anything is printed or written
  std::cout << RenderServingValidation(run, validation);
  const std::string json = values["json"].as<std::string>();
  if (!json.empty()) {
    WriteServingValidationJson(json, run, validation);
    std::cout << "wrote " << json << "\n";
  }
  return 0;
}

}  // namespace efimsim::cli
