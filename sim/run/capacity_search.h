#pragma once
// Capacity search: the largest load (closed-loop users of the efim-paper or
// typing workload; or, open loop, an arrival rate: SearchRateCapacity) one
// deployment (one replica, or a cluster of `replicas` behind a router)
// sustains while meeting every latency SLO.
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

#include "sim/run/experiment.h"

namespace efimsim {

// One SLO: a summary latency metric and its limit, e.g. ttft_p99_ms <= 500.
// client_{ttft,tpot,e2e}_* judge the times a benchmark client sees (engine
// + frontend, sim/metrics/frontend.h): only with a frontend (--frontend).
struct Slo {
  std::string metric;  // {ttft,tpot,e2e,queueing,client_ttft,client_tpot,client_e2e}_{mean,p50,p90,p99,max}_ms
  double limit_ms = 0;
};

// Parses "ttft_p99_ms=500" (dashes or underscores); throws
// UsageError("--slo: ...") naming the valid metrics.
Slo ParseSlo(const std::string& text);
// The metric's value in a summary; throws UsageError for an unknown name,
// or a client-side metric of a summary without a frontend.
double SloMetricValue(const RunSummary& summary, const std::string& metric);
std::vector<std::string> SloMetricNames();
bool IsSloMetric(const std::string& metric);
// client_ttft_*, client_tpot_*, client_e2e_*.
bool IsClientSloMetric(const std::string& metric);

struct CapacitySearchConfig {
  int64_t max_users = 1024;          // search bound (users)
  double plateau_gain = 0.05;        // < 5% more throughput for 2x users: saturated
  double queue_growth_ratio = 2.0;   // last third vs first third of requests
  double queue_growth_min_ms = 50;   // and by more than this
  int64_t warmup_rounds = 1;         // rounds per user left out of SLOs and saturation
  // Open loop (SearchRateCapacity).
  double rate_step = 0;              // grid step; 0 = auto (see SearchRateCapacity)
  int64_t max_rate_steps = 1024;     // search bound, in steps
  double warmup_fraction = 0.2;      // first requests by arrival left out of SLOs and saturation
  double typing_window_s = 180;      // typing: sessions arrive over this when duration_s is 0
};

struct LoadProbe {
  int64_t users = 0;          // closed loop
  double rate_per_s = 0;      // open loop: offered arrival rate (CapacityResult::rate_unit)
  double rate_scale = 0;      // open loop, trace: --rate-scale of the probe
  int64_t load_steps = 0;     // the searched integer: users, or rate / rate step
  RunSummary summary;  // of the requests after warm-up (the engine counters are the run's)
  bool meets_slos = false;
  bool saturated = false;
  // Requests the engine rejected (too long for --max-model-len or the KV
  // cache): a probe with any fails as "rejected", never as saturated.
  int64_t rejected = 0;
  std::string verdict;  // "ok", or why the probe failed
  // The latency model the probe's run built, as it described itself
  // (summary.json's latency_model.description).
  std::string latency_model;
};

struct CapacityResult {
  std::string policy;
  // Largest probed load that passed; 0 when even one user failed.
  int64_t max_users = 0;
  // True when max_users == the search bound and it passed: a lower bound.
  bool at_search_limit = false;
  // Why the next load up failed (SLO, saturation, rejection), or "search limit".
  std::string limited_by;
  // The next load up failed because the engine rejected requests: the
  // answer reflects a configuration limit, not load, and no replica or GPU
  // count follows from it.
  bool limited_by_rejections = false;
  // Smallest load found saturated; 0 when none was.
  int64_t saturated_from_users = 0;
  std::vector<LoadProbe> probes;  // in probe order
  const LoadProbe* answer() const;  // the probe at max_load_steps, or null
  // The latency model every probe used (the first probe's description);
  // "" before any probe ran.
  std::string LatencyModel() const { return probes.empty() ? "" : probes.front().latency_model; }
  // The searched integer at the answer (closed loop: max_users).
  int64_t max_load_steps = 0;
  // Open loop: the answer as a rate, and what it is measured in.
  bool open_loop = false;
  std::string rate_unit;                  // "requests/s", "sessions/s", ...
  double rate_step = 0;                   // the search grid (trace: in rate scale)
  double recorded_rate_per_s = 0;         // trace: its arrivals / time of its last arrival
  double max_rate_per_s = 0;              // 0 when even the first step failed
  double max_rate_scale = 0;              // trace: the --rate-scale of the answer
  double saturated_from_rate_per_s = 0;   // smallest rate found saturated; 0 when none was
};

// Throws UsageError for a trace workload (its load is fixed by the file)
// or a bad search bound; whatever RunExperiment throws.
CapacityResult SearchCapacity(const ExperimentConfig& base, const std::vector<Slo>& slos,
                              const CapacitySearchConfig& search);

// Open loop: the highest arrival rate one deployment serves, on the grid
// rate = k x step (k = 1, 2, 4, ... up to max_rate_steps, then binary
// search to the exact k), with the same SLO judging and saturation tests.
//   trace:  the trace replayed at --rate-scale k x step (step default 1/16,
//           so the grid holds the recorded rate, k = 16); the rate is the
//           scale x the recorded rate: the trace's arrivals (request
//           records and sessions) over the time of its last arrival, read
//           once before the search. Unit: requests/s (request records
//           only), sessions/s (sessions only), else arrivals/s.
//   typing: an open population at --session-rate k x step (default 0.01
//           sessions/s); every probe covers the same arrival window
//           (duration_s, or typing_window_s when it is 0), so it has
//           ceil(rate x window) sessions and nothing is sent after it.
// Saturation is the queue-growth test only: the throughput-plateau test
// is for closed loops (open-loop throughput follows the offered rate until
// queues grow, and on few sessions its noise would read as a plateau).
// Warm-up: requests are ordered by arrival and the first warmup_fraction
// of them are left out of SLOs and saturation (the run starts with an
// empty server and, for typing, fewer sessions open than in steady state).
// Throws UsageError for efim-paper (closed loop only) or bad settings.
CapacityResult SearchRateCapacity(const ExperimentConfig& base, const std::vector<Slo>& slos,
                                  const CapacitySearchConfig& search);

}  // namespace efimsim
