#include "sim/client/session_chains.h"

#include <algorithm>

namespace efimsim {

SessionChains::SessionChains(Simulator& simulator, std::function<uint64_t()> next_id,
                             std::function<void(ClientRequest)> submit, TimePoint stop_sending_at)
    : simulator_(simulator), next_id_(std::move(next_id)), submit_(std::move(submit)),
      stop_sending_at_(stop_sending_at) {}

void SessionChains::Add(int64_t session, ClientRequest request, TimePoint earliest,
                        Duration think) {
  sessions_[session].queue.push_back({std::move(request), earliest, think});
  ++outstanding_;
  Dispatch(session);
}

void SessionChains::Dispatch(int64_t index) {
  Session& session = sessions_.at(index);
  while (session.in_flight == 0 && !session.timer_armed && !session.queue.empty()) {
    Pending& next = session.queue.front();
    TimePoint at = std::max(next.earliest, simulator_.Now());
    if (session.has_previous) at = std::max(at, session.last_end + next.think);
    if (at > stop_sending_at_) {
      // Beyond the run: this request and every later one of the session.
      dropped_ += static_cast<int64_t>(session.queue.size());
      outstanding_ -= static_cast<int64_t>(session.queue.size());
      session.queue.clear();
      return;
    }
    if (at > simulator_.Now()) {
      session.timer_armed = true;
      simulator_.Schedule(at, EventClass::kClientTimer, this, static_cast<uint64_t>(index));
      return;
    }
    ClientRequest request = std::move(next.request);
    session.queue.pop_front();
    Send(index, std::move(request));
  }
}

void SessionChains::SendNow(int64_t index, ClientRequest request) {
  ++outstanding_;
  Send(index, std::move(request));
}

void SessionChains::Send(int64_t index, ClientRequest request) {
  request.request_id = next_id_();
  request.sent = simulator_.Now();
  ++sessions_[index].in_flight;
  in_flight_.emplace(request.request_id, index);
  submit_(std::move(request));  // may end it at once (OnEnded re-enters)
}

bool SessionChains::OnEnded(uint64_t request_id) {
  const auto it = in_flight_.find(request_id);
  if (it == in_flight_.end()) return false;
  const int64_t index = it->second;
  in_flight_.erase(it);
  Session& session = sessions_.at(index);
  --session.in_flight;
  session.has_previous = true;
  session.last_end = simulator_.Now();
  --outstanding_;
  Dispatch(index);
  return true;
}

void SessionChains::HandleEvent(const Event& event) {
  const int64_t index = static_cast<int64_t>(event.payload);
  sessions_.at(index).timer_armed = false;
  Dispatch(index);
}

}  // namespace efimsim
