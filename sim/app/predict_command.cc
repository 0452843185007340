// efimsim predict: one step's latency with its per-operator breakdown.
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "models/latency/latency_model_registry.h"
#include "models/formats/spec_catalog.h"
#include "models/latency/step_report.h"
#include "sim/app/cli_options.h"
#include "sim/app/commands.h"
#include "sim/base/errors.h"

namespace efimsim::cli {
namespace {

int64_t ParseCount(const std::string& text, const std::string& spec, int64_t min_value) {
  size_t used = 0;
  int64_t value = 0;
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  // A sequence longer than 2^31 - 1 tokens is no model's; past it the
  // step's arithmetic in nanoseconds would overflow.
  constexpr int64_t kMaxTokens = 2147483647;
  if (used != text.size() || text.empty() || value < min_value || value > kMaxTokens) {
    throw UsageError("--seq " + spec + ": '" + text + "' is not an integer from " +
                     std::to_string(min_value) + " to " + std::to_string(kMaxTokens) +
                     " (format NEW:CONTEXT[:emit|noemit])");
  }
  return value;
}

// "NEW:CONTEXT[:emit|noemit]"; a sequence emits a token unless told otherwise.
SequenceWork ParseSequence(const std::string& spec) {
  std::vector<std::string> fields;
  size_t start = 0;
  while (true) {
    const size_t colon = spec.find(':', start);
    fields.push_back(spec.substr(start, colon == std::string::npos ? std::string::npos : colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  if (fields.size() < 2 || fields.size() > 3) {
    throw UsageError("--seq " + spec + ": expected NEW:CONTEXT[:emit|noemit]");
  }
  SequenceWork work;
  work.new_tokens = ParseCount(fields[0], spec, 1);
  work.context_tokens = ParseCount(fields[1], spec, 0);
  work.emits_token = true;
  if (fields.size() == 3) {
    if (fields[2] == "emit" || fields[2] == "1") {
      work.emits_token = true;
    } else if (fields[2] == "noemit" || fields[2] == "0") {
      work.emits_token = false;
    } else {
      throw UsageError("--seq " + spec + ": third field must be emit or noemit");
    }
  }
  return work;
}

// predict's own options besides the latency rows (AddLatencyRows).
struct PredictCommandOptions {
  std::vector<std::string> seq;
  bool json = false;
};

const CommandParamTable<PredictCommandOptions>& PredictParams() {
  using C = PredictCommandOptions;
  static const CommandParamTable<C> table = {
      {{"seq", "",
        "sequences of the step, each NEW:CONTEXT[:emit|noemit]: new tokens computed this step, "
        "tokens already in the KV cache, whether it samples a token (default emit)"},
       &C::seq, {.multitoken = true, .required = true}},
      {{"json", "", "print the breakdown as JSON"}, &C::json, {.is_switch = true}},
  };
  return table;
}

CommandRows PredictRows() {
  CommandRows rows("predict",
                   "Prints the predicted time of one engine step over the given sequences, with "
                   "the time of\nevery operator (summed over layers), its share, and whether it "
                   "was extrapolated beyond\nmeasured data. Example:\n"
                   "  efimsim predict --seq 512:4096 1:3000 1:100 --mode graph");
  AddCommandGroup(rows, "Predict", PredictParams());
  AddLatencyRows(rows,
                 "eager (every step launches its kernels) or graph (decode-only steps replay "
                 "CUDA graphs)");
  return rows;
}

}  // namespace

std::vector<CommandRows> PredictCommandRows() { return {PredictRows()}; }

int RunPredictCommand(int argc, const char* const* argv) {
  po::variables_map values;
  PredictCommandOptions own;
  if (!ParseCommandRows(PredictRows(), PredictParams(), argc, argv, values, own)) return 0;
  LatencySetup setup = LatencyFromOptions(values);
  const std::string& mode = setup.mode;
  const LatencyModelOptions& options = setup.latency.options;
  std::vector<SequenceWork> batch;
  for (const std::string& spec : own.seq) {
    batch.push_back(ParseSequence(spec));
  }
  const ModelSpec& model = setup.model;
  const GpuSpec& gpu = setup.gpu;
  const auto latency = MakeLatencyModel(setup.latency, model, gpu);
  const StepBreakdown breakdown = latency->Explain(batch);
  const PredictionContext context{latency->Name(), latency->Description(), model.name, gpu.name,
                                  options.tensor_parallel, mode, ""};
  if (own.json) {
    std::cout << StepBreakdownJson(context, batch, breakdown);
    return 0;
  }

  int64_t new_tokens = 0;
  int64_t emitting = 0;
  for (const SequenceWork& seq : batch) {
    new_tokens += seq.new_tokens;
    emitting += seq.emits_token ? 1 : 0;
  }
  std::printf("latency model: %s\n  %s\n", context.latency_model.c_str(),
              context.description.c_str());
  std::printf("%s on %s, TP=%lld, %s mode; %zu sequences, %lld new tokens (GEMM M=%lld%s), "
              "%lld emitting\n\n",
              model.name.c_str(), gpu.name.c_str(), static_cast<long long>(options.tensor_parallel),
              mode.c_str(), batch.size(), static_cast<long long>(new_tokens),
              static_cast<long long>(breakdown.gemm_tokens),
              breakdown.cuda_graph_step ? ", padded for a CUDA graph" : "",
              static_cast<long long>(emitting));
  const double total_us = ToSeconds(breakdown.cost.Total()) * 1e6;
  std::printf("%-26s %-13s %9s %12s %8s %-12s %s\n", "operator", "part", "instances", "time_us",
              "share_%", "extrapolated", "source");
  for (const OperatorCost& op : breakdown.operators) {
    const double us = ToSeconds(op.time) * 1e6;
    std::printf("%-26s %-13s %9lld %12.1f %8.1f %-12s %s\n", op.name.c_str(), StepPartName(op.part),
                static_cast<long long>(op.instances), us, total_us > 0 ? 100.0 * us / total_us : 0.0,
                op.extrapolated ? "yes" : "no", op.source.c_str());
  }
  std::printf("%-26s %-13s %9s %12.1f %8.1f %-12s\n", "total", "", "", total_us, 100.0,
              breakdown.cost.extrapolated ? "yes" : "no");
  return 0;
}

}  // namespace efimsim::cli
