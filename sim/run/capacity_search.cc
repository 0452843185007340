#include "sim/run/capacity_search.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <variant>

#include "models/formats/spec_catalog.h"
#include "sim/base/errors.h"
#include "sim/run/run_params.h"
#include "sim/run/sweep_grid.h"
#include "sim/client/policy.h"
#include "sim/run/workload.h"

namespace efimsim {
namespace {

// The distribution an SLO metric's name (before "_STAT_ms") refers to; null
// for a client-side one the summary lacks (no frontend). Precondition:
// `name` is one of SloMetricNames()' metrics.
const Distribution* DistributionNamed(const RunSummary& s, const std::string& name) {
  auto client = [](const std::optional<Distribution>& d) { return d ? &*d : nullptr; };
  if (name == "ttft") return &s.ttft_ms;
  if (name == "tpot") return &s.tpot_ms;
  if (name == "e2e") return &s.e2e_ms;
  if (name == "queueing") return &s.queueing_ms;
  if (name == "client_ttft") return client(s.client_ttft_ms);
  if (name == "client_tpot") return client(s.client_tpot_ms);
  return client(s.client_e2e_ms);
}

std::string JoinedMetricNames() {
  std::string out;
  for (const std::string& name : SloMetricNames()) out += (out.empty() ? "" : ", ") + name;
  return out;
}

[[noreturn]] void ThrowUnknownMetric(const std::string& metric) {
  throw UsageError("--slo: unknown metric '" + metric + "' (choose one of: " +
                   JoinedMetricNames() + ")");
}

std::string Format(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", value);
  return text;
}

// `value`, known to exceed `limit`, with one decimal, or as many more (up
// to four) as it takes not to print as the limit ("50.0 > 50.0").
std::string FormatAbove(double value, double limit) {
  for (int decimals = 1; decimals < 4; ++decimals) {
    char a[48], b[48];
    std::snprintf(a, sizeof a, "%.*f", decimals, value);
    std::snprintf(b, sizeof b, "%.*f", decimals, limit);
    if (std::string(a) != b) return a;
  }
  char text[48];
  std::snprintf(text, sizeof text, "%.4f", value);
  return text;
}

// Mean queueing delay (ms) of the first and last third of completed
// requests ordered by arrival (ties by request id).
std::pair<double, double> QueueingThirds(std::vector<RequestRecord> records) {
  std::erase_if(records, [](const RequestRecord& r) { return r.cancelled; });
  std::sort(records.begin(), records.end(), [](const RequestRecord& a, const RequestRecord& b) {
    return a.arrival != b.arrival ? a.arrival < b.arrival : a.request_id < b.request_id;
  });
  const size_t third = records.size() / 3;
  if (third == 0) return {0.0, 0.0};
  double first = 0, last = 0;
  for (size_t i = 0; i < third; ++i) {
    first += ToMilliseconds(records[i].queueing_delay());
    last += ToMilliseconds(records[records.size() - 1 - i].queueing_delay());
  }
  return {first / static_cast<double>(third), last / static_cast<double>(third)};
}

}  // namespace

std::vector<std::string> SloMetricNames() {
  std::vector<std::string> names;
  for (const char* metric :
       {"ttft", "tpot", "e2e", "queueing", "client_ttft", "client_tpot", "client_e2e"}) {
    for (const char* stat : {"mean", "p50", "p90", "p99", "max"}) {
      names.push_back(std::string(metric) + "_" + stat + "_ms");
    }
  }
  return names;
}

bool IsSloMetric(const std::string& metric) {
  const std::vector<std::string> names = SloMetricNames();
  return std::find(names.begin(), names.end(), metric) != names.end();
}

bool IsClientSloMetric(const std::string& metric) { return metric.rfind("client_", 0) == 0; }

double SloMetricValue(const RunSummary& summary, const std::string& metric) {
  if (!IsSloMetric(metric)) ThrowUnknownMetric(metric);
  // NAME_STAT_ms: the statistic is the part before "_ms" after the last '_'.
  const std::string head = metric.substr(0, metric.size() - 3);
  const size_t cut = head.rfind('_');
  const std::string stat = head.substr(cut + 1);
  const Distribution* d = DistributionNamed(summary, head.substr(0, cut));
  if (d == nullptr) {
    throw UsageError("--slo: " + metric + ": client-side times need a frontend (--frontend "
                     "default, or its figures); with --frontend none a run has engine times only");
  }
  if (stat == "mean") return d->mean;
  if (stat == "p50") return d->p50;
  if (stat == "p90") return d->p90;
  if (stat == "p99") return d->p99;
  return d->max;
}

Slo ParseSlo(const std::string& text) {
  const size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0 || equals + 1 == text.size()) {
    throw UsageError("--slo: expected METRIC=LIMIT_MS (e.g. ttft_p99_ms=500), got '" + text + "'");
  }
  Slo slo;
  slo.metric = text.substr(0, equals);
  std::replace(slo.metric.begin(), slo.metric.end(), '-', '_');
  if (!IsSloMetric(slo.metric)) ThrowUnknownMetric(slo.metric);
  const std::string limit = text.substr(equals + 1);
  char* end = nullptr;
  slo.limit_ms = std::strtod(limit.c_str(), &end);
  if (end != limit.c_str() + limit.size() || !(slo.limit_ms > 0)) {
    throw UsageError("--slo: " + slo.metric + ": limit must be a positive number of ms, got '" +
                     limit + "'");
  }
  return slo;
}

const LoadProbe* CapacityResult::answer() const {
  for (const LoadProbe& probe : probes) {
    if (probe.load_steps == max_load_steps) return &probe;
  }
  return nullptr;
}

namespace {

// What one search varies: an integer number of steps k >= 1, turned into
// a run's config, a label for verdicts ("63 users", "1.2 sessions/s") and
// the requests a probe is judged on.
struct LoadAxis {
  int64_t max_steps = 1;
  std::string limit_text;  // why the search stopped at max_steps
  // Closed loop: doubling the load without gaining throughput is
  // saturation. Open loop: not used; the served rate follows the offered
  // one until queues grow (the queue-growth test), and on a few sessions
  // its noise would read as a plateau.
  bool plateau_test = true;
  std::function<void(int64_t, ExperimentConfig&, LoadProbe&)> apply;
  std::function<std::string(int64_t)> label;
  std::function<std::vector<RequestRecord>(const std::vector<RequestRecord>&)> measured;
};

// One probe: a run at `steps`, judged on the axis's measured requests
// against the SLOs (rejections and empty runs fail) and the queue-growth
// test. The plateau test needs the previous probes and is the search's.
LoadProbe RunProbe(const ExperimentConfig& base, const std::vector<Slo>& slos,
                   const CapacitySearchConfig& search, const LoadAxis& axis, int64_t steps) {
  ExperimentConfig config = base;
  config.timeline_path.clear();
  LoadProbe p;
  p.load_steps = steps;
  axis.apply(steps, config, p);
  ExperimentResult run = RunExperiment(config);
  std::vector<RequestRecord> measured = axis.measured(run.records);
  if (measured.empty()) measured = run.records;
  run.summary = SummarizeRun(measured, run.summary.engine,
                             ParseFrontend(config.frontend, config.engine.name));
  const std::string at = " at " + axis.label(steps);
  p.summary = run.summary;
  p.latency_model = SettingText(run.info, "latency_model", "description", 0);
  p.meets_slos = run.summary.requests_completed > 0 && run.summary.engine.rejected_requests == 0;
  p.verdict = "ok";
  if (run.summary.requests_completed == 0) p.verdict = "no request completed";
  p.rejected = run.summary.engine.rejected_requests;
  if (p.rejected > 0) {
    p.verdict = "rejected" + at + ": " + std::to_string(p.rejected) +
                " requests the engine can never serve (" +
                SettingText(run.info, "warnings", "rejected_requests", 0) +
                "): a configuration limit (--max-model-len, KV cache size), not load";
  }
  for (const Slo& slo : slos) {
    const double value = SloMetricValue(run.summary, slo.metric);
    if (p.meets_slos && value > slo.limit_ms) {
      p.meets_slos = false;
      p.verdict = "SLO " + slo.metric + " " + FormatAbove(value, slo.limit_ms) + " > " + Format(slo.limit_ms) + at;
    }
  }
  const auto [first_ms, last_ms] = QueueingThirds(measured);
  if (p.rejected == 0 &&
      last_ms > search.queue_growth_ratio * first_ms + search.queue_growth_min_ms) {
    p.saturated = true;
    p.verdict = "saturated" + at + ": queueing delay grows (" + Format(first_ms) +
                " ms in the first third of requests, " + Format(last_ms) + " ms in the last)";
  }
  return p;
}

// The search over one axis: doubling from 1 until a probe fails (or the
// axis's limit), then bisection between the last pass and the first fail.
// A probe passes when it meets the SLOs and is not saturated.
class LoadSearch {
 public:
  LoadSearch(const ExperimentConfig& base, const std::vector<Slo>& slos,
             const CapacitySearchConfig& search, const LoadAxis& axis)
      : base_(base), slos_(slos), search_(search), axis_(axis) {
    result_.policy = base.policy;
  }

  CapacityResult Run() {
    Exponential();
    Bisect();
    result_.max_load_steps = good_;
    result_.max_users = good_;
    result_.saturated_from_users = saturated_from_;
    if (bad_ == 0) {
      result_.at_search_limit = true;
      result_.limited_by = axis_.limit_text;
    } else {
      result_.limited_by = bad_reason_;
      result_.limited_by_rejections = bad_rejected_;
    }
    return std::move(result_);
  }

 private:
  static bool Passes(const LoadProbe& p) { return p.meets_slos && !p.saturated; }

  LoadProbe& Probe(int64_t steps) {
    LoadProbe p = RunProbe(base_, slos_, search_, axis_, steps);
    throughput_[steps] = p.summary.request_throughput_per_s;
    result_.probes.push_back(std::move(p));
    return result_.probes.back();
  }

  // `steps` is the smallest failing load so far, failed as `p` says.
  void Fail(int64_t steps, const LoadProbe& p) {
    bad_ = steps;
    bad_reason_ = p.verdict;
    bad_rejected_ = p.rejected > 0;
  }

  void MarkSaturated(int64_t steps) {
    if (saturated_from_ == 0 || steps < saturated_from_) saturated_from_ = steps;
  }

  // Closed loop: doubling the load from the last passing probe without
  // gaining plateau_gain of throughput is saturation.
  void CheckPlateau(LoadProbe& p, int64_t steps) const {
    const auto half = throughput_.find(steps / 2);
    if (!axis_.plateau_test || p.saturated || p.rejected > 0 || good_ == 0 || steps != 2 * good_ ||
        half == throughput_.end() ||
        p.summary.request_throughput_per_s >= (1.0 + search_.plateau_gain) * half->second) {
      return;
    }
    p.saturated = true;
    p.verdict = "saturated at " + axis_.label(steps) + ": throughput " +
                Format(p.summary.request_throughput_per_s) + " req/s, < " +
                Format(100 * search_.plateau_gain) + "% above " + Format(half->second) +
                " req/s at " + axis_.label(steps / 2);
  }

  void Exponential() {
    for (int64_t steps = 1;; steps = std::min(steps * 2, axis_.max_steps)) {
      LoadProbe& p = Probe(steps);
      CheckPlateau(p, steps);
      if (p.saturated) MarkSaturated(steps);
      if (!Passes(p)) {
        Fail(steps, p);
        return;
      }
      good_ = steps;
      if (steps == axis_.max_steps) return;
    }
  }

  void Bisect() {
    while (bad_ > 0 && bad_ - good_ > 1) {
      const int64_t mid = good_ + (bad_ - good_) / 2;
      const LoadProbe& p = Probe(mid);
      if (p.saturated) MarkSaturated(mid);
      if (Passes(p)) {
        good_ = mid;
      } else {
        Fail(mid, p);
      }
    }
  }

  const ExperimentConfig& base_;
  const std::vector<Slo>& slos_;
  const CapacitySearchConfig& search_;
  const LoadAxis& axis_;
  CapacityResult result_;
  std::map<int64_t, double> throughput_;  // steps -> request throughput, probes so far
  int64_t good_ = 0;  // largest passing load so far
  int64_t bad_ = 0;   // smallest failing load so far; 0: none yet
  std::string bad_reason_;
  bool bad_rejected_ = false;  // the probe at bad_ failed by rejecting requests
  int64_t saturated_from_ = 0;
};

CapacityResult SearchLoad(const ExperimentConfig& base, const std::vector<Slo>& slos,
                          const CapacitySearchConfig& search, const LoadAxis& axis) {
  return LoadSearch(base, slos, search, axis).Run();
}

// Arrivals in a trace: request records and sessions, and the time of the
// last one, read once with the run's reader options.
struct TraceArrivals {
  int64_t requests = 0;
  int64_t sessions = 0;
  int64_t last_ns = 0;
};

// The open-loop arrivals of the run's workload as recorded or generated
// (Workload::Arrivals at --rate-scale 1: the search scales them itself);
// null unless its capacity axis is Rate::kArrivals.
std::unique_ptr<TraceReader> OpenArrivals(const ExperimentConfig& config) {
  if (CapacityAxes(config.workload).rate != WorkloadCapacityAxes::Rate::kArrivals) return nullptr;
  ExperimentConfig recorded = config;
  recorded.rate_scale = 1;
  const ModelSpec model = LoadServedModel(recorded.engine);
  const std::unique_ptr<Workload> workload = MakeWorkload(
      recorded.workload, {recorded, GetPolicy(recorded.policy), model, nullptr, nullptr});
  return workload->Arrivals();
}

TraceArrivals CountTraceArrivals(TraceReader& reader) {
  TraceArrivals arrivals;
  while (const std::optional<TraceRecord> record = reader.Next()) {
    if (const auto* request = std::get_if<TraceRequest>(&*record)) {
      ++arrivals.requests;
      arrivals.last_ns = request->arrival_ns;
    } else if (const auto* start = std::get_if<SessionStart>(&*record)) {
      ++arrivals.sessions;
      arrivals.last_ns = start->time_ns;
    }
  }
  return arrivals;
}

std::string FormatRate(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}

}  // namespace

CapacityResult SearchCapacity(const ExperimentConfig& base, const std::vector<Slo>& slos,
                              const CapacitySearchConfig& search) {
  const WorkloadCapacityAxes axes = CapacityAxes(base.workload);
  if (!axes.users) {
    throw UsageError("--workload " + base.workload + ": capacity searches over users for " +
                     WorkloadsWithAxis([](const WorkloadCapacityAxes& a) { return a.users; }) +
                     "; open-loop workloads search the arrival rate (--search rate)");
  }
  if (search.max_users < 1) throw UsageError("--max-users: must be at least 1");
  if (search.warmup_rounds < 0) throw UsageError("--warmup-rounds: must be >= 0");
  // Every round left out would leave nothing to judge (the search then fell
  // back to judging every request, the cold burst included: a wrong answer).
  // --rounds is the workload's own option: read through its row.
  const std::string rounds = axes.rounds ? FindRunParam("rounds")->value(base) : "";
  if (axes.rounds && search.warmup_rounds >= std::stoll(rounds)) {
    throw UsageError("--warmup-rounds: " + std::to_string(search.warmup_rounds) +
                     " leaves none of the " + rounds +
                     " --rounds to judge; give fewer warm-up rounds or more rounds");
  }
  LoadAxis axis;
  axis.max_steps = search.max_users;
  // Exponential pauses: a run lasts until its slowest user has paused
  // rounds x mean, so requests / makespan hardly grows with users even far
  // below saturation, and the plateau test would misread it. As in open
  // loop, queue growth and the SLOs decide.
  axis.plateau_test = !(base.think_time_dist == "exponential" && base.think_time_ms > 0);
  axis.limit_text =
      "search limit (--max-users " + std::to_string(search.max_users) + "): a lower bound";
  axis.apply = [](int64_t users, ExperimentConfig& config, LoadProbe& probe) {
    config.users = users;
    probe.users = users;
  };
  axis.label = [](int64_t users) { return std::to_string(users) + " users"; };
  axis.measured = [&](const std::vector<RequestRecord>& records) {
    std::vector<RequestRecord> measured;
    for (const RequestRecord& r : records) {
      if (r.round >= search.warmup_rounds) measured.push_back(r);
    }
    return measured;
  };
  return SearchLoad(base, slos, search, axis);
}

namespace {

// The open-loop search's grid: load k is k x step sessions/s (typing) or a
// rate scale of k x step on a trace's recorded rate.
struct RateGrid {
  bool trace = false;
  double step = 0;
  std::string unit = "sessions/s";
  double recorded_rate = 0;  // trace: arrivals per second as recorded
  double RateOf(int64_t steps) const {
    return trace ? static_cast<double>(steps) * step * recorded_rate
                 : static_cast<double>(steps) * step;
  }
};

// `arrivals`: the workload's open-loop arrivals (OpenArrivals), read here to
// its end; null for typing, whose grid is its session rate.
RateGrid MakeRateGrid(const ExperimentConfig& base, const CapacitySearchConfig& search,
                      TraceReader* arrivals) {
  RateGrid grid;
  grid.trace = arrivals != nullptr;
  grid.step = search.rate_step;
  if (!grid.trace) {
    if (grid.step == 0) grid.step = 0.01;
    return grid;
  }
  if (grid.step == 0) grid.step = 1.0 / 16;
  const TraceArrivals counted = CountTraceArrivals(*arrivals);
  const int64_t count = counted.requests + counted.sessions;
  if (count == 0 || counted.last_ns <= 0) {
    throw InputError(base.trace_path, 0, "",
                     "open-loop capacity needs arrivals spread over time (found " +
                         std::to_string(count) + " arrivals, the last at " +
                         std::to_string(counted.last_ns) + " ns)");
  }
  grid.recorded_rate = static_cast<double>(count) / (static_cast<double>(counted.last_ns) * 1e-9);
  grid.unit = counted.sessions == 0   ? "requests/s"
              : counted.requests == 0 ? "sessions/s"
                                       : "arrivals/s";
  return grid;
}

// The requests after the first `fraction` by arrival (ties by id).
std::vector<RequestRecord> AfterWarmupFraction(std::vector<RequestRecord> records,
                                               double fraction) {
  std::sort(records.begin(), records.end(), [](const RequestRecord& a, const RequestRecord& b) {
    return a.arrival != b.arrival ? a.arrival < b.arrival : a.request_id < b.request_id;
  });
  const auto warmup =
      static_cast<std::ptrdiff_t>(std::floor(fraction * static_cast<double>(records.size())));
  records.erase(records.begin(), records.begin() + warmup);
  return records;
}

}  // namespace

CapacityResult SearchRateCapacity(const ExperimentConfig& base, const std::vector<Slo>& slos,
                                  const CapacitySearchConfig& search) {
  using Rate = WorkloadCapacityAxes::Rate;
  const Rate rate = CapacityAxes(base.workload).rate;
  if (rate == Rate::kNone) {
    throw UsageError(
        "--search rate: open-loop capacity needs a workload with its own arrival schedule (" +
        WorkloadsWithAxis([](const WorkloadCapacityAxes& a) { return a.rate == Rate::kArrivals; }) +
        ") or an open population of sessions (" +
        WorkloadsWithAxis([](const WorkloadCapacityAxes& a) { return a.rate == Rate::kSessions; }) +
        ") (" + base.workload +
        "'s requests wait for earlier ones: search users, or give its load in its own options)");
  }
  const std::unique_ptr<TraceReader> arrivals = OpenArrivals(base);
  if (search.max_rate_steps < 1) throw UsageError("--max-rate-steps: must be at least 1");
  if (!(search.rate_step >= 0) || !std::isfinite(search.rate_step)) {
    throw UsageError("--rate-step: must be >= 0 (0 = auto)");
  }
  if (!(search.warmup_fraction >= 0 && search.warmup_fraction < 1)) {
    throw UsageError("--warmup-fraction: must be in [0, 1)");
  }
  const RateGrid grid = MakeRateGrid(base, search, arrivals.get());
  const double window_s = base.duration_s > 0 ? base.duration_s : search.typing_window_s;
  LoadAxis axis;
  axis.max_steps = search.max_rate_steps;
  axis.plateau_test = false;
  axis.limit_text = "search limit (--max-rate-steps " + std::to_string(search.max_rate_steps) +
                    " = " + FormatRate(grid.RateOf(search.max_rate_steps)) + " " + grid.unit +
                    "): a lower bound";
  axis.apply = [=](int64_t steps, ExperimentConfig& config, LoadProbe& probe) {
    probe.rate_per_s = grid.RateOf(steps);
    if (grid.trace) {
      config.rate_scale = static_cast<double>(steps) * grid.step;
      probe.rate_scale = config.rate_scale;
    } else {
      config.session_rate_per_s = probe.rate_per_s;
      config.duration_s = window_s;
      const int64_t sessions =
          std::max<int64_t>(1, static_cast<int64_t>(std::ceil(probe.rate_per_s * window_s)));
      SetExperimentOption(config, "sessions", std::to_string(sessions));
    }
  };
  axis.label = [=](int64_t steps) {
    std::string text = FormatRate(grid.RateOf(steps)) + " " + grid.unit;
    if (grid.trace) text += " (rate scale " + FormatRate(static_cast<double>(steps) * grid.step) + ")";
    return text;
  };
  axis.measured = [&](const std::vector<RequestRecord>& records) {
    return AfterWarmupFraction(records, search.warmup_fraction);
  };
  CapacityResult result = SearchLoad(base, slos, search, axis);
  result.open_loop = true;
  result.rate_unit = grid.unit;
  result.rate_step = grid.step;
  result.recorded_rate_per_s = grid.recorded_rate;
  result.max_users = 0;
  result.saturated_from_users = 0;
  if (result.max_load_steps > 0) {
    result.max_rate_per_s = grid.RateOf(result.max_load_steps);
    if (grid.trace) result.max_rate_scale = static_cast<double>(result.max_load_steps) * grid.step;
  }
  for (const LoadProbe& p : result.probes) {
    if (p.saturated && (result.saturated_from_rate_per_s == 0 ||
                        p.rate_per_s < result.saturated_from_rate_per_s)) {
      result.saturated_from_rate_per_s = p.rate_per_s;
    }
  }
  return result;
}

}  // namespace efimsim
