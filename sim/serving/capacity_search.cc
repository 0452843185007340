#include "sim/serving/capacity_search.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "sim/base/errors.h"

namespace efimsim {
namespace {

const Distribution* DistributionNamed(const RunSummary& s, const std::string& name) {
  if (name == "ttft") return &s.ttft_ms;
  if (name == "tpot") return &s.tpot_ms;
  if (name == "e2e") return &s.e2e_ms;
  if (name == "queueing") return &s.queueing_ms;
  return nullptr;
}

std::string JoinedMetricNames() {
  std::string out;
  for (const std::string& name : SloMetricNames()) out += (out.empty() ? "" : ", ") + name;
  return out;
}

std::string Format(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", value);
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
  for (const char* metric : {"ttft", "tpot", "e2e", "queueing"}) {
    for (const char* stat : {"mean", "p50", "p90", "p99", "max"}) {
      names.push_back(std::string(metric) + "_" + stat + "_ms");
    }
  }
  return names;
}

double SloMetricValue(const RunSummary& summary, const std::string& metric) {
  const size_t first = metric.find('_');
  const size_t second = first == std::string::npos ? first : metric.find('_', first + 1);
  if (second != std::string::npos && metric.substr(second) == "_ms") {
    const Distribution* d = DistributionNamed(summary, metric.substr(0, first));
    const std::string stat = metric.substr(first + 1, second - first - 1);
    if (d != nullptr) {
      if (stat == "mean") return d->mean;
      if (stat == "p50") return d->p50;
      if (stat == "p90") return d->p90;
      if (stat == "p99") return d->p99;
      if (stat == "max") return d->max;
    }
  }
  throw UsageError("--slo: unknown metric '" + metric + "' (choose one of: " +
                   JoinedMetricNames() + ")");
}

Slo ParseSlo(const std::string& text) {
  const size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0 || equals + 1 == text.size()) {
    throw UsageError("--slo: expected METRIC=LIMIT_MS (e.g. ttft_p99_ms=500), got '" + text + "'");
  }
  Slo slo;
  slo.metric = text.substr(0, equals);
  std::replace(slo.metric.begin(), slo.metric.end(), '-', '_');
  SloMetricValue(RunSummary{}, slo.metric);  // validates the name
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
    if (probe.users == max_users) return &probe;
  }
  return nullptr;
}

CapacityResult SearchCapacity(const ExperimentConfig& base, const std::vector<Slo>& slos,
                              const CapacitySearchConfig& search) {
  if (base.workload == "trace") {
    throw UsageError("--workload: capacity searches over users (efim-paper or typing); a "
                     "trace's load is fixed by its file");
  }
  if (search.max_users < 1) throw UsageError("--max-users: must be at least 1");
  if (search.warmup_rounds < 0) throw UsageError("--warmup-rounds: must be >= 0");
  CapacityResult result;
  result.policy = base.policy;
  std::map<int64_t, double> throughput;  // users -> request throughput, probes so far

  auto probe = [&](int64_t users) -> LoadProbe& {
    ExperimentConfig config = base;
    config.workload_paper.users = users;
    config.timeline_path.clear();
    ExperimentResult run = RunExperiment(config);
    std::vector<RequestRecord> measured;
    for (const RequestRecord& r : run.records) {
      if (r.round >= search.warmup_rounds) measured.push_back(r);
    }
    if (measured.empty()) measured = run.records;
    run.summary = SummarizeRun(measured, run.summary.engine);
    run.records = std::move(measured);
    LoadProbe p;
    p.users = users;
    p.summary = run.summary;
    p.meets_slos = run.summary.requests_completed > 0 && run.summary.engine.rejected_requests == 0;
    p.verdict = "ok";
    if (run.summary.requests_completed == 0) p.verdict = "no request completed";
    if (run.summary.engine.rejected_requests > 0) {
      p.verdict = std::to_string(run.summary.engine.rejected_requests) + " requests rejected";
    }
    for (const Slo& slo : slos) {
      const double value = SloMetricValue(run.summary, slo.metric);
      if (p.meets_slos && value > slo.limit_ms) {
        p.meets_slos = false;
        p.verdict = "SLO " + slo.metric + " " + Format(value) + " > " + Format(slo.limit_ms) +
                    " at " + std::to_string(users) + " users";
      }
    }
    const auto [first_ms, last_ms] = QueueingThirds(run.records);
    if (last_ms > search.queue_growth_ratio * first_ms + search.queue_growth_min_ms) {
      p.saturated = true;
      p.verdict = "saturated at " + std::to_string(users) + " users: queueing delay grows (" +
                  Format(first_ms) + " ms in the first third of requests, " + Format(last_ms) +
                  " ms in the last)";
    }
    throughput[users] = run.summary.request_throughput_per_s;
    result.probes.push_back(std::move(p));
    return result.probes.back();
  };
  auto passes = [](const LoadProbe& p) { return p.meets_slos && !p.saturated; };
  auto mark_saturated = [&](int64_t users) {
    if (result.saturated_from_users == 0 || users < result.saturated_from_users) {
      result.saturated_from_users = users;
    }
  };

  // 1. Exponential phase.
  int64_t good = 0;
  int64_t bad = 0;
  std::string bad_reason;
  for (int64_t users = 1;; users = std::min(users * 2, search.max_users)) {
    LoadProbe& p = probe(users);
    const auto half = throughput.find(users / 2);
    if (!p.saturated && good > 0 && users == 2 * good && half != throughput.end() &&
        p.summary.request_throughput_per_s < (1.0 + search.plateau_gain) * half->second) {
      p.saturated = true;
      p.verdict = "saturated at " + std::to_string(users) + " users: throughput " +
                  Format(p.summary.request_throughput_per_s) + " req/s, < " +
                  Format(100 * search.plateau_gain) + "% above " + Format(half->second) +
                  " req/s at " + std::to_string(users / 2) + " users";
    }
    if (p.saturated) mark_saturated(users);
    if (!passes(p)) {
      bad = users;
      bad_reason = p.verdict;
      break;
    }
    good = users;
    if (users == search.max_users) break;
  }
  // 2. Binary search in (good, bad).
  while (bad > 0 && bad - good > 1) {
    const int64_t mid = good + (bad - good) / 2;
    const LoadProbe& p = probe(mid);
    if (p.saturated) mark_saturated(mid);
    if (passes(p)) {
      good = mid;
    } else {
      bad = mid;
      bad_reason = p.verdict;
    }
  }
  result.max_users = good;
  if (bad == 0) {
    result.at_search_limit = true;
    result.limited_by = "search limit (--max-users " + std::to_string(search.max_users) +
                        "): a lower bound";
  } else {
    result.limited_by = bad_reason;
  }
  return result;
}

}  // namespace efimsim
