#pragma once
// Checking a latency model against measured step times: a table of steps
// (the file format is in models/PROFILE.md, "Measured steps"), the model's
// prediction for each, and relative-error statistics per kind of step.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/latency/latency_model.h"

namespace efimsim {

// A measured step's kind, as its file names it (not the engine's StepKind,
// sim/engine/engine_core.h, which says how a simulated step counts).
enum class MeasuredStepKind : uint8_t { kPrefill, kDecode, kMixed };
const char* MeasuredStepKindName(MeasuredStepKind kind);  // "prefill", "decode", "mixed"

struct MeasuredStep {
  int64_t index = 0;  // position in the file's list (0-based), for messages
  MeasuredStepKind kind = MeasuredStepKind::kPrefill;
  std::vector<SequenceWork> sequences;
  double measured_ms = 0;
  std::optional<bool> cuda_graphs;  // the row's "mode"; unset: the command's default
};

// Reads the measured-steps file. Throws InputError naming the file, the row
// ("[3].sequences[0].new_tokens") and the problem. A row's kind must agree
// with its sequences: prefill = every sequence has new_tokens >= 2, decode =
// every sequence has new_tokens == 1, mixed = some of each.
std::vector<MeasuredStep> ParseMeasuredSteps(const std::string& json_text, const std::string& origin);
std::vector<MeasuredStep> LoadMeasuredSteps(const std::string& path);

struct RowError {
  int64_t index = 0;
  MeasuredStepKind kind = MeasuredStepKind::kPrefill;
  double predicted_ms = 0;
  double measured_ms = 0;
  double relative_error = 0;  // |predicted - measured| / measured
  bool extrapolated = false;
};

struct ErrorSummary {
  std::string kind;  // "prefill", "decode", "mixed", "prefill+decode" or "all"
  int64_t rows = 0;
  double median = 0;  // relative errors; quantiles interpolate between order statistics
  double p90 = 0;
  double max = 0;
  double mean_signed = 0;     // mean of (predicted - measured) / measured: the bias
  std::vector<RowError> worst;  // largest errors first
};

struct ValidationReport {
  std::vector<RowError> rows;            // in file order
  // Per kind present, then "prefill+decode" (the rows a model is judged on
  // when mixed rows come from a stack unlike an engine's), then "all".
  std::vector<ErrorSummary> summaries;
};

// What a row's measured_ms is compared with.
enum class StepTiming : uint8_t {
  kGpu,   // the step's GPU time: the prediction without its host (CPU) overhead
  kStep,  // the whole step, host overhead included
};

// `eager` prices rows whose mode is eager, `graph` rows in CUDA-graph mode;
// rows without a mode use `default_graph`. Keeps `worst_rows` per summary.
ValidationReport ValidateLatency(const std::vector<MeasuredStep>& steps, const LatencyModel& eager,
                                 const LatencyModel& graph, bool default_graph, size_t worst_rows,
                                 StepTiming timing = StepTiming::kStep);

// The q-quantile (0 <= q <= 1) of `values`, linear between order statistics
// (the median of an even count is the mean of the middle two).
double Quantile(std::vector<double> values, double q);

}  // namespace efimsim
