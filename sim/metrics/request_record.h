#pragma once
// One finished request, as docs/semantics.md §7 measures it. Times are absolute
// simulated instants; spans are derived by the accessors.
//   TTFT: arrival -> first output token
//   TPOT: (E2E - TTFT) / (output tokens - 1), undefined for one token
//   E2E:  arrival -> last output token
//   queueing delay: arrival -> first scheduled
// A cancelled request's `finish` is when it was aborted; its first_token and
// first_scheduled may be TimePoint::max() (never reached). Cancelled
// requests are counted but excluded from latency statistics.

#include <cstdint>

#include "sim/base/time.h"

namespace efimsim {

// Figures of an engine's optional parts for one request, 0 where the run
// has none (requests.csv writes their columns only for runs that have the
// part, RequestColumns). The engine keeps them in Request::parts.
struct RequestPartFigures {
  int64_t draft_tokens = 0;      // speculative decoding: drafts verified (scheduled) for it
  int64_t accepted_tokens = 0;   // of those, accepted
  int64_t kv_pulled_tokens = 0;  // disaggregated serving: prompt tokens pulled over the KV link
  Duration kv_pull{0};           // from asking for those pulls to their last byte, summed
};

struct RequestRecord {
  uint64_t request_id = 0;
  int64_t user = 0;
  int64_t round = 0;
  TimePoint arrival;
  TimePoint first_scheduled;
  TimePoint first_token;
  TimePoint finish;
  int64_t prompt_tokens = 0;
  int64_t cached_tokens = 0;   // prefix-cache hit at first admission (vLLM num_cached_tokens)
  int64_t output_tokens = 0;
  int64_t preemptions = 0;
  bool cancelled = false;
  RequestPartFigures parts;

  Duration ttft() const { return first_token - arrival; }
  Duration e2e() const { return finish - arrival; }
  Duration queueing_delay() const { return first_scheduled - arrival; }
  bool has_tpot() const { return output_tokens > 1; }
  // Precondition: has_tpot(). Milliseconds, double (exact ratio of ints).
  double tpot_ms() const {
    return ToMilliseconds(finish - first_token) / static_cast<double>(output_tokens - 1);
  }
};

// Which optional column groups a run's requests.csv has: a run without the
// part writes the columns it always wrote.
struct RequestColumns {
  bool speculation = false;  // draft_tokens, accepted_tokens
  bool kv_pull = false;      // kv_pulled_tokens, kv_pull_ms
};

}  // namespace efimsim
