#pragma once
// What every client model offers the run: it sends requests into a
// RequestSink (a router or a replica) on the simulator's clock and is told
// when each one ends. The closed-loop users of the paper's benchmark and the
// trace-replay client of editing sessions implement it; a run never names
// which it has.

#include <cstdint>

#include "sim/client/output_length.h"

namespace efimsim {

class Client {
 public:
  virtual ~Client() = default;
  // Optional (null: every request asks for its cap): draws each request's
  // output length. Must outlive the client. Set before Start.
  virtual void set_output_length(const OutputLengthModel* model) = 0;
  // Schedules the first sends at Now().
  virtual void Start() = 0;
  // The engine is done with `request_id`, sent for `user` (finished,
  // cancelled or rejected), at Now(). The client may send from inside.
  virtual void OnRequestEnded(uint64_t request_id, int64_t user) = 0;
  // End-of-run check once the simulator is idle; `ended` counts the
  // requests that ended (records + rejections). InternalError if a request
  // was never answered or a user never finished.
  virtual void CheckDrained(int64_t ended) const = 0;
  // EFIM prompts rebuilt from scratch after an edit that did not append.
  virtual int64_t efim_rebases() const = 0;
};

}  // namespace efimsim
