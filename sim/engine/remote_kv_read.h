#pragma once
// Disaggregated serving: a decode replica telling the prefill side when it
// has read a request's KV (sim/run/disaggregated_router.h), so the prefill
// replica can free the blocks it held for it (ClientRequest::
// hold_kv_until_read).

#include <cstdint>

#include "sim/base/time.h"

namespace efimsim {

struct RemoteKvRead {
  uint64_t request_id = 0;
  // When the last byte has arrived (the pull's end). A time before the
  // replica's Now() (TimePoint{}) means at once: no pull was needed (the
  // decode side's own prefix cache held the prompt) or the decode leg ended
  // without one (cancelled, rejected).
  TimePoint done;
};

class RemoteKvReadObserver {
 public:
  virtual ~RemoteKvReadObserver() = default;
  virtual void OnRemoteKvRead(const RemoteKvRead& read) = 0;
};

}  // namespace efimsim
