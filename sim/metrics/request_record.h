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

  Duration ttft() const { return first_token - arrival; }
  Duration e2e() const { return finish - arrival; }
  Duration queueing_delay() const { return first_scheduled - arrival; }
  bool has_tpot() const { return output_tokens > 1; }
  // Precondition: has_tpot(). Milliseconds, double (exact ratio of ints).
  double tpot_ms() const {
    return ToMilliseconds(finish - first_token) / static_cast<double>(output_tokens - 1);
  }
};

}  // namespace efimsim
