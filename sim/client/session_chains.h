#pragma once
// Closed-loop sessions of request records: each request of a session is sent
// `think` after the previous request of that session ended (finished,
// cancelled or rejected), and never before its own earliest time. A
// session's requests go out one at a time, in the order they were added.
// This is how a benchmark's arrival rule is replayed rather than
// approximated: a user who waits for an answer, thinks, then asks again
// (think_time_ns in traces/FORMAT.md), or one whose scheduled turn waits for
// the previous turn to finish (inference-perf's multi-turn chat: think 0).

#include <cstdint>
#include <deque>
#include <functional>
#include <unordered_map>
#include <vector>

#include "sim/client/client_request.h"
#include "sim/core/simulator.h"

namespace efimsim {

class SessionChains : public EventHandler {
 public:
  // `next_id` gives each request its id when it is sent; `submit` sends it
  // at Now() (it may end it at once, e.g. a rejection: OnEnded may be
  // called from inside). Nothing is sent after `stop_sending_at`: a request
  // whose send time falls after it is dropped with the rest of its session
  // (counted in dropped()).
  SessionChains(Simulator& simulator, std::function<uint64_t()> next_id,
                std::function<void(ClientRequest)> submit,
                TimePoint stop_sending_at = TimePoint::max());

  // Queues `request` as the next of `session` (any caller-chosen index):
  // sent at max(earliest, previous request's end + think), or at
  // max(earliest, Now()) when the session has no earlier request.
  void Add(int64_t session, ClientRequest request, TimePoint earliest, Duration think);

  // Sends `request` of `session` now, open loop (a record without think
  // time): a later closed-loop request of the session waits for it too.
  void SendNow(int64_t session, ClientRequest request);

  // `request_id` ended at Now(). True when it was sent by a chain (its
  // session's next request may then go); false for any other request.
  bool OnEnded(uint64_t request_id);

  // Requests queued or in flight over all sessions (0 once drained).
  int64_t outstanding() const { return outstanding_; }
  int64_t dropped() const { return dropped_; }

  void HandleEvent(const Event& event) override;

 private:
  struct Pending {
    ClientRequest request;
    TimePoint earliest;
    Duration think;
  };
  struct Session {
    std::deque<Pending> queue;
    int64_t in_flight = 0;  // requests sent and not yet ended
    bool timer_armed = false;
    bool has_previous = false;
    TimePoint last_end;
  };

  // Sends the session's next request now, or arms a timer for its time.
  void Dispatch(int64_t session);
  // Gives `request` its id and sends it now as one of `session`'s.
  void Send(int64_t session, ClientRequest request);

  Simulator& simulator_;
  std::function<uint64_t()> next_id_;
  std::function<void(ClientRequest)> submit_;
  TimePoint stop_sending_at_;
  std::unordered_map<int64_t, Session> sessions_;
  std::unordered_map<uint64_t, int64_t> in_flight_;  // request id -> session
  int64_t outstanding_ = 0;
  int64_t dropped_ = 0;
};

}  // namespace efimsim
