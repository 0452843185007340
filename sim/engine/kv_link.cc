#include "sim/engine/kv_link.h"

#include <algorithm>

#include "sim/base/check.h"

namespace efimsim {

KvLink::KvLink(KvLinkSpec spec) : spec_(spec) {
  EFIMSIM_CHECK(spec_.enabled(), "a KV link needs a positive rate");
  EFIMSIM_CHECK(spec_.bytes_per_token > 0, "a KV link needs the KV bytes of a token");
}

TimePoint KvLink::StartTransfer(TimePoint now, int64_t tokens) {
  EFIMSIM_CHECK(tokens >= 1, "a KV transfer moves at least one token");
  const int64_t bytes = tokens * spec_.bytes_per_token;
  const TimePoint start = std::max(now, link_free_);
  const TimePoint ready =
      start + spec_.latency + FromSeconds(static_cast<double>(bytes) / spec_.bytes_per_s);
  link_free_ = ready;
  ++stats_.transfers;
  stats_.tokens += tokens;
  stats_.bytes += bytes;
  stats_.time += ready - now;
  return ready;
}

}  // namespace efimsim
