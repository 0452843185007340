#include "sim/metrics/summary.h"

#include <algorithm>
#include <cmath>

#include "sim/base/check.h"

namespace efimsim {

void EngineCounters::Add(const EngineCounters& replica) {
  steps += replica.steps;
  events += replica.events;
  prefix_cache_lookups += replica.prefix_cache_lookups;
  prefix_cache_query_tokens += replica.prefix_cache_query_tokens;
  prefix_cache_hit_tokens += replica.prefix_cache_hit_tokens;
  preemptions += replica.preemptions;
  evicted_tokens += replica.evicted_tokens;
  rejected_requests += replica.rejected_requests;
  prefill_tokens_computed += replica.prefill_tokens_computed;
  decode_tokens_computed += replica.decode_tokens_computed;
  busy += replica.busy;
  for (const PartCounter& counter : replica.parts) {
    auto it = std::find_if(parts.begin(), parts.end(),
                           [&](const PartCounter& mine) { return mine.name == counter.name; });
    if (it == parts.end()) {
      parts.push_back(counter);
    } else if (counter.combine == PartCounter::Combine::kMax) {
      it->value = std::max(it->value, counter.value);
    } else {
      it->value += counter.value;
    }
  }
  kv_blocks_total = std::max(kv_blocks_total, replica.kv_blocks_total);
  const double usage = replica.kv_blocks_total > 0
                           ? static_cast<double>(replica.kv_blocks_peak_used) /
                                 static_cast<double>(replica.kv_blocks_total)
                           : 0.0;
  const double best = kv_blocks_total > 0
                          ? static_cast<double>(kv_blocks_peak_used) /
                                static_cast<double>(kv_blocks_total)
                          : 0.0;
  if (usage > best) kv_blocks_peak_used = replica.kv_blocks_peak_used;
}

int64_t EngineCounters::part(const std::string& name) const {
  for (const PartCounter& counter : parts) {
    if (counter.name == name) return counter.value;
  }
  return 0;
}

void RunSummaryBuilder::Add(const RequestRecord& r) {
  if (r.cancelled) {
    ++summary_.requests_cancelled;
    return;
  }
  ++summary_.requests_completed;
  ttft_ms_.Add(ToMilliseconds(r.ttft()));
  e2e_ms_.Add(ToMilliseconds(r.e2e()));
  queueing_ms_.Add(ToMilliseconds(r.queueing_delay()));
  if (r.has_tpot()) tpot_ms_.Add(r.tpot_ms());
  if (frontend_.enabled()) {
    client_ttft_ms_.Add(ToMilliseconds(r.ttft() + frontend_.Ttft(r.prompt_tokens)));
    client_e2e_ms_.Add(ToMilliseconds(r.e2e() + frontend_.E2e(r.prompt_tokens, r.output_tokens)));
    if (r.has_tpot()) {
      client_tpot_ms_.Add(r.tpot_ms() + ToMilliseconds(Duration{frontend_.per_output_token_ns}));
    }
  }
  first_arrival_ = std::min(first_arrival_, r.arrival);
  last_finish_ = std::max(last_finish_, r.finish);
  summary_.prompt_tokens += r.prompt_tokens;
  summary_.output_tokens += r.output_tokens;
  summary_.cached_tokens += r.cached_tokens;
}

RunSummary RunSummaryBuilder::Build(const EngineCounters& counters) {
  // Every statistic below is independent of the order records came in
  // (Summarize sorts before it sums), so streaming in finish order gives
  // the same bytes as summarizing records sorted by id.
  RunSummary s = summary_;
  s.engine = counters;
  s.ttft_ms = ttft_ms_.Summarize();
  s.tpot_ms = tpot_ms_.Summarize();
  s.e2e_ms = e2e_ms_.Summarize();
  s.queueing_ms = queueing_ms_.Summarize();
  if (frontend_.enabled()) {
    s.client_ttft_ms = client_ttft_ms_.Summarize();
    s.client_tpot_ms = client_tpot_ms_.Summarize();
    s.client_e2e_ms = client_e2e_ms_.Summarize();
  }
  if (s.requests_completed > 0) {
    s.makespan = last_finish_ - first_arrival_;
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

RunSummary SummarizeRun(std::span<const RequestRecord> records, const EngineCounters& counters,
                        const FrontendCosts& frontend) {
  RunSummaryBuilder builder;
  builder.SetFrontend(frontend);
  for (const RequestRecord& r : records) builder.Add(r);
  return builder.Build(counters);
}

}  // namespace efimsim
