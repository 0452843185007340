#pragma once
// What `efimsim capacity` prints and writes: the plan per policy, table
// cells, the EFIM-saving lines, and the open-loop (arrival rate) report.

#include <cstdint>
#include <string>
#include <vector>

#include "sim/run/capacity_search.h"

namespace efimsim::cli {

struct Plan {
  CapacityResult search;
  // capacity --pd-splits: the deployment searched ("colocated", "1P2D");
  // "" without it.
  std::string deployment;
  int64_t replicas_per_deployment = 1;  // prefill + decode, or --replicas
  int64_t gpus_per_deployment = 0;  // GpusPerDeployment
  bool cheapest = false;  // --pd-splits: the fewest GPUs of its policy (first on a tie)
  int64_t deployments = 0;  // deployments of `replicas` replicas for the target; 0: none can
  int64_t replicas = 0;
  int64_t gpus = 0;
};

std::string Pad(const std::string& text, size_t width, bool right = true);
std::string Percent(double fraction);
std::string CsvQuoted(const std::string& text);
// The latency model the plans' probes ran with (every probe builds the
// same one; the first describes it), for the report's header.
std::string PlansLatencyModel(const std::vector<Plan>& plans);
// The plan of `policy` when it has a GPU count, else null (the first such,
// or with --pd-splits the cheapest).
const Plan* FindPlan(const std::vector<Plan>& plans, const std::string& policy);
// Hit rate, p99 TTFT, p99 TPOT and req/s of the answer, as table cells;
// TTFT and TPOT client-side when the run had a frontend.
std::string AnswerCells(const LoadProbe* answer);
// "one replica" or "N replicas behind ROUTER".
std::string DeploymentText(const ExperimentConfig& base);
// The replicas and GPUs cells of a plan's table row ("-" without a GPU
// count; "<=" when its search stopped at the search limit).
std::string ReplicaCells(const Plan& plan);
// A number in capacity.csv and probes.csv: 6 decimals.
std::string CsvFixed(double value);
// With a frontend (--frontend not none), capacity.csv and probes.csv end
// with these columns, the client-side p99s (kClientCsvColumns' order).
inline constexpr const char* kClientCsvColumns = ",client_ttft_p99_ms,client_tpot_p99_ms,client_e2e_p99_ms";
// GPUs one deployment of `config` occupies: its replicas x
// --gpus-per-replica when given (> 0), else each pool's TP (DeploymentGpus).
int64_t GpusPerDeployment(const ExperimentConfig& config, int64_t gpus_per_replica_option);
// Whether the runs of `base` have client-side times (a frontend).
bool HasClientTimes(const ExperimentConfig& base);
// "times:    client-side ..." for the report's header when `base` has a
// frontend, else "".
std::string ClientTimesLine(const ExperimentConfig& base);
// capacity.csv's last columns, shared by both searches, from
// prefix_cache_hit_rate to limited_by (the answer's, or zeros without
// one), then the client columns when `client`, with the newline.
std::string AnswerCsvTail(const CapacityResult& r, const std::string& slo_text, bool client);
// probes.csv's last columns, shared by both searches, from passed to
// verdict, then the client columns when `client`, with the newline.
std::string ProbeCsvTail(const LoadProbe& p, bool client);
// "wrote DIR/capacity.csv and DIR/probes.csv (N runs, S s)".
void PrintWrote(const std::vector<Plan>& plans, const std::string& out_dir, double wall_s);
// "EFIM vs fim: 15 GPUs instead of 19: 4 fewer (21.1%)", and vs baseline.
void PrintEfimSaving(const std::vector<Plan>& plans);
// A WARNING line for each policy whose search ended on rejected requests:
// its answer is a configuration limit, and no replicas or GPUs follow.
void PrintRejectionWarnings(const std::vector<Plan>& plans);

// What the open-loop report states besides the plans.
struct RateReportSetup {
  std::string slo_text;       // "ttft_p99_ms <= 500.0, ..."
  double target_rate = 0;     // in the search's rate unit
  int64_t gpus_per_replica = 1;
  int64_t gpus_per_replica_option = 0;  // --gpus-per-replica as given (0: each pool's TP)
  std::string gpus_source;  // "TP 2" or "--gpus-per-replica"
  double warmup_fraction = 0;
  std::string out_dir;
  double wall_s = 0;
};
// Fills the plans' replica and GPU counts for the target rate, writes
// capacity.csv and probes.csv (open-loop columns: search, rate_unit,
// rates) and prints the table. Returns the exit status.
int ReportRateCapacity(std::vector<Plan>& plans, const ExperimentConfig& base,
                       const RateReportSetup& setup);

}  // namespace efimsim::cli
