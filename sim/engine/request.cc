#include "sim/engine/request.h"

#include <algorithm>
#include <string>

#include "sim/base/check.h"

namespace efimsim {

const char* RequestStateName(RequestState state) {
  switch (state) {
    case RequestState::kWaiting: return "waiting";
    case RequestState::kRunning: return "running";
    case RequestState::kPreempted: return "preempted";
    case RequestState::kFinished: return "finished";
    case RequestState::kCancelled: return "cancelled";
    case RequestState::kLoadingKv: return "loading_kv";
  }
  return "unknown";
}

void Request::TransitionTo(RequestState next) {
  const RequestState from = state;
  const bool legal = (from == RequestState::kWaiting && next == RequestState::kRunning) ||
                     (from == RequestState::kRunning && next == RequestState::kPreempted) ||
                     (from == RequestState::kPreempted && next == RequestState::kRunning) ||
                     (from == RequestState::kRunning && next == RequestState::kFinished) ||
                     ((from == RequestState::kWaiting || from == RequestState::kPreempted) &&
                      next == RequestState::kLoadingKv) ||
                     (from == RequestState::kLoadingKv && next == RequestState::kRunning) ||
                     (from == RequestState::kLoadingKv && next == RequestState::kPreempted) ||
                     (from != RequestState::kFinished && from != RequestState::kCancelled &&
                      next == RequestState::kCancelled);
  EFIMSIM_CHECK(legal, std::string("illegal request transition ") + RequestStateName(from) +
                           " -> " + RequestStateName(next) + " (request " + std::to_string(id) +
                           ")");
  state = next;
}

RequestRecord Request::ToRecord() const {
  RequestRecord record;
  record.request_id = id;
  record.user = user;
  record.round = round;
  record.arrival = arrival;
  record.first_scheduled = first_scheduled;
  record.first_token = first_token;
  record.finish = finish;
  record.prompt_tokens = prompt_tokens;
  record.cached_tokens = cached_tokens < 0 ? 0 : cached_tokens;
  record.output_tokens = output_tokens;
  record.preemptions = preemptions;
  record.cancelled = state == RequestState::kCancelled;
  record.parts = parts;
  return record;
}

void InitRequest(const ClientRequest& client, TimePoint arrival, Request& request) {
  request.id = client.request_id;
  request.user = client.user;
  request.round = client.round;
  request.prompt_tokens = client.prompt_tokens();
  request.num_tokens = request.prompt_tokens;
  request.max_output_tokens = client.max_tokens;
  request.output_length = client.output_length > 0
                              ? std::min(client.output_length, client.max_tokens)
                              : client.max_tokens;
  request.arrival = arrival;
}

}  // namespace efimsim
