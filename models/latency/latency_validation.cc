#include "models/latency/latency_validation.h"

#include <algorithm>
#include <cmath>

#include "sim/base/check.h"

namespace efimsim {

const char* MeasuredStepKindName(MeasuredStepKind kind) {
  switch (kind) {
    case MeasuredStepKind::kPrefill: return "prefill";
    case MeasuredStepKind::kDecode: return "decode";
    case MeasuredStepKind::kMixed: return "mixed";
  }
  return "?";
}

double Quantile(std::vector<double> values, double q) {
  EFIMSIM_CHECK(!values.empty() && q >= 0 && q <= 1, "quantile of a non-empty list");
  std::sort(values.begin(), values.end());
  const double position = q * static_cast<double>(values.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(position));
  const size_t hi = std::min(lo + 1, values.size() - 1);
  const double t = position - static_cast<double>(lo);
  return values[lo] + t * (values[hi] - values[lo]);
}

namespace {

ErrorSummary Summarize(const std::string& kind, const std::vector<RowError>& rows, size_t worst_rows) {
  ErrorSummary s;
  s.kind = kind;
  s.rows = static_cast<int64_t>(rows.size());
  std::vector<double> errors;
  double signed_sum = 0;
  for (const RowError& row : rows) {
    errors.push_back(row.relative_error);
    signed_sum += (row.predicted_ms - row.measured_ms) / row.measured_ms;
  }
  s.median = Quantile(errors, 0.5);
  s.p90 = Quantile(errors, 0.9);
  s.max = *std::max_element(errors.begin(), errors.end());
  s.mean_signed = signed_sum / static_cast<double>(rows.size());
  s.worst = rows;
  std::stable_sort(s.worst.begin(), s.worst.end(), [](const RowError& a, const RowError& b) {
    return a.relative_error > b.relative_error;
  });
  if (s.worst.size() > worst_rows) s.worst.resize(worst_rows);
  return s;
}

}  // namespace

ValidationReport ValidateLatency(const std::vector<MeasuredStep>& steps, const LatencyModel& eager,
                                 const LatencyModel& graph, bool default_graph, size_t worst_rows,
                                 StepTiming timing) {
  ValidationReport report;
  for (const MeasuredStep& step : steps) {
    const LatencyModel& model = step.cuda_graphs.value_or(default_graph) ? graph : eager;
    const StepCost cost = model.Predict(step.sequences);
    RowError row;
    row.index = step.index;
    row.kind = step.kind;
    row.predicted_ms = ToMilliseconds(timing == StepTiming::kGpu ? cost.Total() - cost.cpu_overhead
                                                                 : cost.Total());
    row.measured_ms = step.measured_ms;
    row.relative_error = std::abs(row.predicted_ms - row.measured_ms) / row.measured_ms;
    row.extrapolated = cost.extrapolated;
    report.rows.push_back(row);
  }
  for (MeasuredStepKind kind : {MeasuredStepKind::kPrefill, MeasuredStepKind::kDecode, MeasuredStepKind::kMixed}) {
    std::vector<RowError> of_kind;
    for (const RowError& row : report.rows) {
      if (row.kind == kind) of_kind.push_back(row);
    }
    if (!of_kind.empty()) report.summaries.push_back(Summarize(MeasuredStepKindName(kind), of_kind, worst_rows));
  }
  std::vector<RowError> judged;
  for (const RowError& row : report.rows) {
    if (row.kind != MeasuredStepKind::kMixed) judged.push_back(row);
  }
  if (!judged.empty()) report.summaries.push_back(Summarize("prefill+decode", judged, worst_rows));
  if (!report.rows.empty()) report.summaries.push_back(Summarize("all", report.rows, worst_rows));
  return report;
}

}  // namespace efimsim
