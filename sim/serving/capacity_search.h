#pragma once
// Capacity search: the largest load (closed-loop users of the efim-paper or
// typing workload) one deployment (one replica, or a cluster of
// `replicas` behind a router) sustains while meeting every latency SLO.
//
// Search (deterministic: every probe is one RunExperiment with the base
// config's seed, only `users` changes):
//   1. Exponential: users = 1, 2, 4, ... up to max_users (the last probe is
//      max_users itself), until a probe fails.
//   2. Binary search between the last passing and the first failing load,
//      to the exact integer.
// A probe passes when it completed requests, rejected none, meets every SLO
// (metric <= limit) and is not saturated. SLOs and saturation are judged on
// the requests after warm-up (round >= warmup_rounds): every efim-paper user
// sends its first request at t = 0, a cold burst with nothing cached whose
// tail would otherwise decide every policy's p99 alike. With too few rounds
// to leave any request, all requests count.
//
// Saturation (the replica cannot keep up, so a latency figure would only
// measure how long the run was):
//   - queue growth: ordered by arrival, the mean queueing delay of the last
//     third of requests exceeds queue_growth_ratio x that of the first third
//     plus queue_growth_min_ms (queues that grow without bound: open-loop
//     style workloads such as typing);
//   - throughput plateau (exponential phase only): doubling the users raised
//     request throughput by less than plateau_gain; beyond this load more
//     users add only waiting (closed loops cannot grow queues without
//     bound, they stop gaining instead).
// A saturated probe fails even when its latencies meet the SLOs, and the
// result says so (limited_by). When max_users still passes, the answer is a
// lower bound and the result says that instead of pretending it is the
// capacity.

#include <cstdint>
#include <string>
#include <vector>

#include "sim/serving/experiment.h"

namespace efimsim {

// One SLO: a summary latency metric and its limit, e.g. ttft_p99_ms <= 500.
struct Slo {
  std::string metric;  // {ttft,tpot,e2e,queueing}_{mean,p50,p90,p99,max}_ms
  double limit_ms = 0;
};

// Parses "ttft_p99_ms=500" (dashes or underscores); throws
// UsageError("--slo: ...") naming the valid metrics.
Slo ParseSlo(const std::string& text);
// The metric's value in a summary; throws UsageError for an unknown name.
double SloMetricValue(const RunSummary& summary, const std::string& metric);
std::vector<std::string> SloMetricNames();

struct CapacitySearchConfig {
  int64_t max_users = 1024;          // search bound (users)
  double plateau_gain = 0.05;        // < 5% more throughput for 2x users: saturated
  double queue_growth_ratio = 2.0;   // last third vs first third of requests
  double queue_growth_min_ms = 50;   // and by more than this
  int64_t warmup_rounds = 1;         // rounds per user left out of SLOs and saturation
};

struct LoadProbe {
  int64_t users = 0;
  RunSummary summary;  // of the requests after warm-up (the engine counters are the run's)
  bool meets_slos = false;
  bool saturated = false;
  std::string verdict;  // "ok", or why the probe failed
};

struct CapacityResult {
  std::string policy;
  // Largest probed load that passed; 0 when even one user failed.
  int64_t max_users = 0;
  // True when max_users == the search bound and it passed: a lower bound.
  bool at_search_limit = false;
  // Why the next load up failed (SLO, saturation), or "search limit".
  std::string limited_by;
  // Smallest load found saturated; 0 when none was.
  int64_t saturated_from_users = 0;
  std::vector<LoadProbe> probes;  // in probe order
  const LoadProbe* answer() const;  // the probe at max_users, or null
};

// Throws UsageError for a trace workload (its load is fixed by the file)
// or a bad search bound; whatever RunExperiment throws.
CapacityResult SearchCapacity(const ExperimentConfig& base, const std::vector<Slo>& slos,
                              const CapacitySearchConfig& search);

}  // namespace efimsim
