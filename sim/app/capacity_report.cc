#include "sim/app/capacity_report.h"

#include <cmath>
#include <cstdio>
#include <iostream>

#include "sim/base/atomic_file.h"
#include "sim/metrics/output_writers.h"
#include "sim/run/workload.h"

namespace efimsim::cli {

std::string Pad(const std::string& text, size_t width, bool right) {
  if (text.size() >= width) return text;
  const std::string fill(width - text.size(), ' ');
  return right ? fill + text : text + fill;
}

std::string Percent(double fraction) { return FormatFixed(100.0 * fraction, 1) + "%"; }

std::string PlansLatencyModel(const std::vector<Plan>& plans) {
  return plans.empty() ? std::string() : plans.front().search.LatencyModel();
}

const Plan* FindPlan(const std::vector<Plan>& plans, const std::string& policy) {
  const Plan* first = nullptr;
  for (const Plan& plan : plans) {
    if (plan.search.policy != policy || plan.gpus <= 0) continue;
    if (plan.cheapest) return &plan;
    if (first == nullptr) first = &plan;
  }
  return first;
}

std::string CsvQuoted(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string AnswerCells(const LoadProbe* answer) {
  if (answer == nullptr) return Pad("-", 10) + Pad("-", 10) + Pad("-", 10) + Pad("-", 9);
  const RunSummary& s = answer->summary;
  const Distribution& ttft = s.client_ttft_ms ? *s.client_ttft_ms : s.ttft_ms;
  const Distribution& tpot = s.client_tpot_ms ? *s.client_tpot_ms : s.tpot_ms;
  return Pad(Percent(s.prefix_cache_hit_rate), 10) + Pad(FormatFixed(ttft.p99, 1), 10) +
         Pad(FormatFixed(tpot.p99, 2), 10) + Pad(FormatFixed(s.request_throughput_per_s, 2), 9);
}

int64_t GpusPerDeployment(const ExperimentConfig& config, int64_t gpus_per_replica_option) {
  return gpus_per_replica_option > 0 ? TotalReplicas(config) * gpus_per_replica_option
                                     : DeploymentGpus(config);
}

bool HasClientTimes(const ExperimentConfig& base) {
  return ParseFrontend(base.frontend, base.engine.name).enabled();
}

std::string ClientTimesLine(const ExperimentConfig& base) {
  if (!HasClientTimes(base)) return "";
  return "times:    client-side, as a benchmark client sees them (engine + frontend: " +
         ParseFrontend(base.frontend, base.engine.name).Describe() +
         "); capacity.csv adds client_*_p99_ms beside the engine's\n";
}

namespace {

// The client-side p99s of `s` as CSV cells (",a,b,c"), empty cells if absent.
std::string ClientCsvCells(const RunSummary& s) {
  std::string out;
  for (const std::optional<Distribution>* d : {&s.client_ttft_ms, &s.client_tpot_ms, &s.client_e2e_ms}) {
    out += ',';
    if (d->has_value()) out += CsvFixed((*d)->p99);
  }
  return out;
}

}  // namespace

void PrintWrote(const std::vector<Plan>& plans, const std::string& out_dir, double wall_s) {
  int64_t probes = 0;
  for (const Plan& plan : plans) probes += static_cast<int64_t>(plan.search.probes.size());
  char line[300];
  std::snprintf(line, sizeof line, "\nwrote %s/capacity.csv and %s/probes.csv (%lld runs, %.1f s)\n",
                out_dir.c_str(), out_dir.c_str(), static_cast<long long>(probes), wall_s);
  std::cout << line;
}

void PrintRejectionWarnings(const std::vector<Plan>& plans) {
  for (const Plan& plan : plans) {
    if (!plan.search.limited_by_rejections) continue;
    std::cout << "WARNING: " << plan.search.policy
              << ": the engine rejected requests, which is not saturation; no replica or GPU "
                 "count follows (" << plan.search.limited_by << ")\n";
  }
}

void PrintEfimSaving(const std::vector<Plan>& plans) {
  if (const Plan* efim = FindPlan(plans, "efim")) {
    for (const char* other_name : {"fim", "baseline"}) {
      const Plan* other = FindPlan(plans, other_name);
      if (other == nullptr) continue;
      const int64_t saved = other->gpus - efim->gpus;
      char line[200];
      std::snprintf(line, sizeof line, "EFIM vs %-9s %lld GPUs instead of %lld: %lld %s (%.1f%%)\n",
                    (std::string(other_name) + ":").c_str(), static_cast<long long>(efim->gpus),
                    static_cast<long long>(other->gpus),
                    static_cast<long long>(saved >= 0 ? saved : -saved),
                    saved >= 0 ? "fewer" : "more",
                    100.0 * static_cast<double>(saved >= 0 ? saved : -saved) /
                        static_cast<double>(other->gpus));
      std::cout << line;
    }
  }
}

std::string DeploymentText(const ExperimentConfig& base) {
  if (base.prefill_replicas > 0) {
    return std::to_string(base.prefill_replicas) + " prefill + " +
           std::to_string(base.decode_replicas) + " decode replicas (disaggregated, " +
           base.router + ")";
  }
  return base.replicas == 1 ? std::string("one replica")
                            : std::to_string(base.replicas) + " replicas behind " + base.router;
}

std::string ReplicaCells(const Plan& plan) {
  const bool bound = plan.search.at_search_limit;
  std::string replicas =
      plan.gpus > 0 ? (bound ? "<=" : "") + std::to_string(plan.replicas) : "-";
  std::string gpus = plan.gpus > 0 ? std::to_string(plan.gpus) : "-";
  return Pad(replicas, 10) + Pad(gpus, 7);
}

std::string CsvFixed(double value) { return FormatFixed(value, 6); }

std::string AnswerCsvTail(const CapacityResult& r, const std::string& slo_text, bool client) {
  const LoadProbe* answer = r.answer();
  const RunSummary empty;
  const RunSummary& s = answer != nullptr ? answer->summary : empty;
  return CsvFixed(s.prefix_cache_hit_rate) + "," + CsvFixed(s.ttft_ms.p99) + "," +
         CsvFixed(s.tpot_ms.p99) + "," + CsvFixed(s.e2e_ms.p99) + "," +
         CsvFixed(s.request_throughput_per_s) + "," + std::to_string(r.probes.size()) + "," +
         CsvQuoted(slo_text) + "," + CsvQuoted(r.limited_by) + (client ? ClientCsvCells(s) : "") +
         "\n";
}

std::string ProbeCsvTail(const LoadProbe& p, bool client) {
  return std::string(p.meets_slos && !p.saturated ? "true" : "false") + "," +
         (p.meets_slos ? "true" : "false") + "," + (p.saturated ? "true" : "false") + "," +
         CsvFixed(p.summary.request_throughput_per_s) + "," + CsvFixed(p.summary.ttft_ms.p99) +
         "," + CsvFixed(p.summary.tpot_ms.p99) + "," + CsvFixed(p.summary.e2e_ms.p99) + "," +
         CsvFixed(p.summary.queueing_ms.mean) + "," + CsvFixed(p.summary.prefix_cache_hit_rate) +
         "," + CsvQuoted(p.verdict) + (client ? ClientCsvCells(p.summary) : "") + "\n";
}

namespace {

// Fills each plan that sustains some rate with the deployments, replicas
// and GPUs that serve the target rate (rounded up).
void PlanForTargetRate(std::vector<Plan>& plans, const ExperimentConfig& base,
                       const RateReportSetup& setup) {
  for (Plan& plan : plans) {
    if (plan.search.max_rate_per_s <= 0 || plan.search.limited_by_rejections) continue;
    plan.deployments =
        static_cast<int64_t>(std::ceil(setup.target_rate / plan.search.max_rate_per_s));
    plan.replicas = plan.deployments * TotalReplicas(base);
    plan.gpus = plan.deployments * GpusPerDeployment(base, setup.gpus_per_replica_option);
  }
}

// Writes the open-loop capacity.csv (one row per plan) and probes.csv (one
// row per probe) into setup.out_dir, each whole or not at all.
void WriteRateCapacityCsvs(const std::vector<Plan>& plans, const ExperimentConfig& base,
                           const RateReportSetup& setup) {
  const bool client = HasClientTimes(base);
  const std::string client_columns = client ? kClientCsvColumns : "";
  std::string capacity_csv =
      "policy,search,rate_unit,max_rate_per_s,max_rate_scale,recorded_rate_per_s,rate_step,"
      "at_search_limit,saturated_from_rate_per_s,replicas_per_deployment,router,"
      "target_rate_per_s,replicas_needed,gpus_per_replica,gpus_needed,prefix_cache_hit_rate,"
      "ttft_p99_ms,tpot_p99_ms,e2e_p99_ms,request_throughput_per_s,probes,slos,limited_by" +
      client_columns + "\n";
  std::string probes_csv =
      "policy,search,rate_unit,rate_per_s,rate_scale,passed,meets_slos,saturated,"
      "request_throughput_per_s,ttft_p99_ms,tpot_p99_ms,e2e_p99_ms,queueing_mean_ms,"
      "prefix_cache_hit_rate,verdict" + client_columns + "\n";
  for (const Plan& plan : plans) {
    const CapacityResult& r = plan.search;
    capacity_csv += r.policy + ",rate," + CsvQuoted(r.rate_unit) + "," +
                    CsvFixed(r.max_rate_per_s) + "," + CsvFixed(r.max_rate_scale) + "," +
                    CsvFixed(r.recorded_rate_per_s) + "," + CsvFixed(r.rate_step) + "," +
                    (r.at_search_limit ? "true" : "false") + "," +
                    CsvFixed(r.saturated_from_rate_per_s) + "," +
                    std::to_string(TotalReplicas(base)) + "," + base.router + "," + CsvFixed(setup.target_rate) + "," +
                    std::to_string(plan.replicas) + "," + std::to_string(setup.gpus_per_replica) +
                    "," + std::to_string(plan.gpus) + "," + AnswerCsvTail(r, setup.slo_text, client);
    for (const LoadProbe& p : r.probes) {
      probes_csv += r.policy + ",rate," + CsvQuoted(r.rate_unit) + "," + CsvFixed(p.rate_per_s) +
                    "," + CsvFixed(p.rate_scale) + "," + ProbeCsvTail(p, client);
    }
  }
  WriteFileAtomically(setup.out_dir + "/capacity.csv", capacity_csv);
  WriteFileAtomically(setup.out_dir + "/probes.csv", probes_csv);
}

// The open-loop report's first lines: what was searched, the workload (a
// trace's recorded rate, or typing's session arrivals), model, latency
// model and target, then a blank line.
void PrintRateReportHeader(const std::vector<Plan>& plans, const ExperimentConfig& base,
                           const RateReportSetup& setup, const std::string& unit) {
  std::cout << "capacity: highest arrival rate (open loop) " << DeploymentText(base)
            << " serves with " << setup.slo_text << " (ms)\n";
  const bool sessions =
      CapacityAxes(base.workload).rate == WorkloadCapacityAxes::Rate::kSessions;
  if (!sessions && !plans.empty()) {
    std::cout << "workload: "
              << (base.trace_path.empty() ? base.workload : "trace " + base.trace_path)
              << ", recorded rate "
              << FormatFixed(plans.front().search.recorded_rate_per_s, 3) << " " << unit
              << " (arrivals / time of the last), replayed at --rate-scale k x "
              << FormatFixed(plans.front().search.rate_step, 4)
              << "; sessions keep their internal timing\n";
  } else {
    std::cout << "workload: " << base.workload << ", open population: sessions arrive (Poisson) over "
              << FormatFixed(base.duration_s, 0)
              << " s at --session-rate k x "
              << FormatFixed(plans.empty() ? 0.0 : plans.front().search.rate_step, 4)
              << " sessions/s, each a user typing one file\n";
  }
  std::cout << "model:    " << base.engine.model << " on " << base.engine.gpu
            << "; SLOs on requests after the first " << FormatFixed(100 * setup.warmup_fraction, 0)
            << "% by arrival\n"
            << "latency:  " << PlansLatencyModel(plans) << "\n"
            << ClientTimesLine(base)
            << "target:   " << FormatFixed(setup.target_rate, 3) << " " << unit
            << "; GPUs = replicas x " << setup.gpus_per_replica << " (" << setup.gpus_source
            << ")\n\n";
}

// The open-loop table: one row per plan, with a rate-scale column for a
// trace, then a blank line.
void PrintRateTable(const std::vector<Plan>& plans, bool trace, const std::string& unit) {
  const std::string rate_header = "max " + unit;
  std::cout << Pad("policy", 10, false) << Pad(rate_header, 18)
            << (trace ? Pad("scale", 8) : std::string()) << Pad("replicas", 10) << Pad("GPUs", 7)
            << Pad("hit rate", 10) << Pad("p99 TTFT", 10) << Pad("p99 TPOT", 10) << Pad("req/s", 9)
            << "  next load up fails because\n";
  for (const Plan& plan : plans) {
    const CapacityResult& r = plan.search;
    const std::string bound = r.at_search_limit ? ">=" : "";
    std::cout << Pad(r.policy, 10, false) << Pad(bound + FormatFixed(r.max_rate_per_s, 3), 18)
              << (trace ? Pad(FormatFixed(r.max_rate_scale, 4), 8) : std::string())
              << ReplicaCells(plan)
              << AnswerCells(r.answer())
              << "  " << (r.max_load_steps == 0 ? "even the first step fails: " : "")
              << r.limited_by << "\n";
  }
  std::cout << "\n";
}

}  // namespace

int ReportRateCapacity(std::vector<Plan>& plans, const ExperimentConfig& base,
                       const RateReportSetup& setup) {
  const std::string unit = plans.empty() ? std::string() : plans.front().search.rate_unit;
  PlanForTargetRate(plans, base, setup);
  WriteRateCapacityCsvs(plans, base, setup);
  PrintRateReportHeader(plans, base, setup, unit);
  PrintRateTable(plans,
                 CapacityAxes(base.workload).rate == WorkloadCapacityAxes::Rate::kArrivals, unit);
  PrintRejectionWarnings(plans);
  PrintEfimSaving(plans);
  PrintWrote(plans, setup.out_dir, setup.wall_s);
  return 0;
}

}  // namespace efimsim::cli
