// JSON writers for predict and validate-latency output.
#include <nlohmann/json.hpp>

#include "models/latency/step_report.h"

namespace efimsim {
namespace {

using nlohmann::ordered_json;

ordered_json ContextJson(const PredictionContext& c) {
  ordered_json out;
  out["latency_model"] = c.latency_model;
  out["description"] = c.description;
  out["model"] = c.model;
  out["gpu"] = c.gpu;
  out["tensor_parallel"] = c.tensor_parallel;
  out["mode"] = c.mode;
  if (!c.timing.empty()) out["timing"] = c.timing;
  return out;
}

double Us(Duration d) { return static_cast<double>(d.count()) * 1e-3; }

ordered_json RowJson(const RowError& row) {
  ordered_json out;
  out["index"] = row.index;
  out["kind"] = MeasuredStepKindName(row.kind);
  out["predicted_ms"] = row.predicted_ms;
  out["measured_ms"] = row.measured_ms;
  out["relative_error"] = row.relative_error;
  out["extrapolated"] = row.extrapolated;
  return out;
}

}  // namespace

std::string StepBreakdownJson(const PredictionContext& context,
                              const std::vector<SequenceWork>& batch,
                              const StepBreakdown& breakdown) {
  ordered_json out = ContextJson(context);
  ordered_json sequences = ordered_json::array();
  for (const SequenceWork& seq : batch) {
    sequences.push_back({{"new_tokens", seq.new_tokens},
                         {"context_tokens", seq.context_tokens},
                         {"emits_token", seq.emits_token}});
  }
  out["sequences"] = sequences;
  out["gemm_tokens"] = breakdown.gemm_tokens;
  out["cuda_graph_step"] = breakdown.cuda_graph_step;
  const double total = Us(breakdown.cost.Total());
  ordered_json operators = ordered_json::array();
  for (const OperatorCost& op : breakdown.operators) {
    operators.push_back({{"name", op.name},
                         {"part", StepPartName(op.part)},
                         {"instances", op.instances},
                         {"time_us", Us(op.time)},
                         {"share", total > 0 ? Us(op.time) / total : 0.0},
                         {"extrapolated", op.extrapolated},
                         {"source", op.source}});
  }
  out["operators"] = operators;
  const StepCost& c = breakdown.cost;
  out["parts_us"] = {{"gemm", Us(c.gemm)},           {"attention", Us(c.attention)},
                     {"elementwise", Us(c.elementwise)}, {"lm_head", Us(c.lm_head)},
                     {"communication", Us(c.communication)}, {"cpu_overhead", Us(c.cpu_overhead)}};
  out["total_us"] = total;
  out["extrapolated"] = c.extrapolated;
  return out.dump(2) + "\n";
}

std::string ValidationReportJson(const PredictionContext& context, const ValidationReport& report) {
  ordered_json out = ContextJson(context);
  ordered_json summaries = ordered_json::array();
  for (const ErrorSummary& s : report.summaries) {
    ordered_json worst = ordered_json::array();
    for (const RowError& row : s.worst) worst.push_back(RowJson(row));
    summaries.push_back({{"kind", s.kind},
                         {"rows", s.rows},
                         {"median_relative_error", s.median},
                         {"p90_relative_error", s.p90},
                         {"max_relative_error", s.max},
                         {"mean_signed_relative_error", s.mean_signed},
                         {"worst", worst}});
  }
  out["summaries"] = summaries;
  ordered_json rows = ordered_json::array();
  for (const RowError& row : report.rows) rows.push_back(RowJson(row));
  out["rows"] = rows;
  return out.dump(2) + "\n";
}

}  // namespace efimsim
