#include "sim/metrics/summary.h"

#include <algorithm>
#include <cmath>

#include "sim/base/check.h"

namespace efimsim {

double PercentileOfSorted(std::span<const double> sorted, double q) {
  EFIMSIM_CHECK(!sorted.empty(), "percentile of nothing");
  EFIMSIM_CHECK(q >= 0.0 && q <= 100.0, "percentile out of range");
  const double rank = q / 100.0 * static_cast<double>(sorted.size() - 1);
  const size_t below = static_cast<size_t>(std::floor(rank));
  const size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = rank - static_cast<double>(below);
  return sorted[below] + (sorted[above] - sorted[below]) * fraction;
}

Distribution Summarize(std::vector<double> values) {
  Distribution d;
  if (values.empty()) return d;
  std::sort(values.begin(), values.end());
  d.count = static_cast<int64_t>(values.size());
  double sum = 0;
  for (const double v : values) sum += v;  // sorted order: deterministic
  d.mean = sum / static_cast<double>(values.size());
  d.p50 = PercentileOfSorted(values, 50);
  d.p90 = PercentileOfSorted(values, 90);
  d.p99 = PercentileOfSorted(values, 99);
  d.max = values.back();
  return d;
}

RunSummary SummarizeRun(std::span<const RequestRecord> records, const EngineCounters& counters) {
  RunSummary s;
  s.engine = counters;
  std::vector<double> ttft, tpot, e2e, queueing;
  TimePoint first_arrival = TimePoint::max();
  TimePoint last_finish = kTimeZero;
  for (const RequestRecord& r : records) {
    if (r.cancelled) {
      ++s.requests_cancelled;
      continue;
    }
    ++s.requests_completed;
    ttft.push_back(ToMilliseconds(r.ttft()));
    e2e.push_back(ToMilliseconds(r.e2e()));
    queueing.push_back(ToMilliseconds(r.queueing_delay()));
    if (r.has_tpot()) tpot.push_back(r.tpot_ms());
    first_arrival = std::min(first_arrival, r.arrival);
    last_finish = std::max(last_finish, r.finish);
    s.prompt_tokens += r.prompt_tokens;
    s.output_tokens += r.output_tokens;
    s.cached_tokens += r.cached_tokens;
  }
  s.ttft_ms = Summarize(std::move(ttft));
  s.tpot_ms = Summarize(std::move(tpot));
  s.e2e_ms = Summarize(std::move(e2e));
  s.queueing_ms = Summarize(std::move(queueing));
  if (s.requests_completed > 0) {
    s.makespan = last_finish - first_arrival;
    const double seconds = ToSeconds(s.makespan);
    if (seconds > 0) {
      s.request_throughput_per_s = static_cast<double>(s.requests_completed) / seconds;
      s.output_token_throughput_per_s = static_cast<double>(s.output_tokens) / seconds;
      s.total_token_throughput_per_s =
          static_cast<double>(s.prompt_tokens + s.output_tokens) / seconds;
    }
  }
  if (counters.prefix_cache_query_tokens > 0) {
    s.prefix_cache_hit_rate = static_cast<double>(counters.prefix_cache_hit_tokens) /
                              static_cast<double>(counters.prefix_cache_query_tokens);
  }
  if (s.prompt_tokens > 0) {
    s.first_admission_hit_rate =
        static_cast<double>(s.cached_tokens) / static_cast<double>(s.prompt_tokens);
  }
  if (counters.kv_blocks_total > 0) {
    s.peak_kv_usage = static_cast<double>(counters.kv_blocks_peak_used) /
                      static_cast<double>(counters.kv_blocks_total);
  }
  return s;
}

}  // namespace efimsim
