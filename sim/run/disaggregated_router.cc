#include "sim/run/disaggregated_router.h"

#include <algorithm>
#include <utility>

#include "sim/base/check.h"

namespace efimsim {

DisaggregatedRouter::DisaggregatedRouter(RequestObserver& client_side)
    : client_side_(client_side) {}

void DisaggregatedRouter::Connect(Router& prefill, Router& decode) {
  prefill_ = &prefill;
  decode_ = &decode;
}

void DisaggregatedRouter::Submit(ClientRequest request) {
  EFIMSIM_CHECK(prefill_ != nullptr && decode_ != nullptr, "DisaggregatedRouter not connected");
  ClientRequest leg = request;
  leg.max_tokens = 1;
  leg.output_length = 1;
  leg.reference_output.clear();
  leg.remote_prefill_tokens = 0;
  leg.hold_kv_until_read = true;
  const uint64_t id = request.request_id;
  EFIMSIM_CHECK(in_prefill_.emplace(id, PrefillLeg{std::move(request)}).second,
                "request id submitted twice");
  prefill_->Submit(std::move(leg));  // may report a rejection at once
}

void DisaggregatedRouter::Cancel(uint64_t request_id) {
  if (const auto it = in_prefill_.find(request_id); it != in_prefill_.end()) {
    it->second.cancel_requested = true;
    prefill_->Cancel(request_id);
  } else {
    decode_->Cancel(request_id);
  }
}

void DisaggregatedRouter::OnRequestFinished(const RequestRecord& record) {
  const auto it = in_prefill_.find(record.request_id);
  EFIMSIM_CHECK(it != in_prefill_.end(), "a prefill leg finished for an unknown request");
  PrefillLeg leg = std::move(it->second);
  in_prefill_.erase(it);
  EngineReplica* holder = prefill_->ReplicaOf(record.request_id);
  EFIMSIM_CHECK(holder != nullptr, "a finished prefill leg has no replica");
  prefill_->OnRequestDone(record.request_id);
  if (leg.cancel_requested) {
    holder->ReleaseHeldKv(record.request_id, record.finish);  // nobody will read it
    // Cancelled by the client while the leg's last step ran: the client
    // sees a cancel at this instant, with no token.
    RequestRecord cancelled = record;
    cancelled.cancelled = true;
    cancelled.first_token = TimePoint::max();
    cancelled.output_tokens = 0;
    ++stats_.cancelled;
    client_side_.OnRequestCancelled(cancelled);
    return;
  }
  ++stats_.handed_to_decode;
  stats_.leg_time += record.finish - leg.request.sent;
  leg.request.remote_prefill_tokens = leg.request.prompt_tokens();
  // Before the submit: a decode replica that refuses the leg reports its
  // (empty) read at once.
  held_kv_.emplace(record.request_id, HeldKv{holder, record.finish});
  decode_->Submit(std::move(leg.request));
}

void DisaggregatedRouter::OnRemoteKvRead(const RemoteKvRead& read) {
  const auto it = held_kv_.find(read.request_id);
  if (it == held_kv_.end()) return;
  const HeldKv held = it->second;
  held_kv_.erase(it);
  ++stats_.kv_releases;
  stats_.kv_hold_time += std::max(read.done, held.since) - held.since;
  held.replica->ReleaseHeldKv(read.request_id, read.done);
}

void DisaggregatedRouter::OnRequestCancelled(const RequestRecord& record) {
  in_prefill_.erase(record.request_id);
  prefill_->OnRequestDone(record.request_id);
  ++stats_.cancelled;
  client_side_.OnRequestCancelled(record);
}

void DisaggregatedRouter::OnRequestRejected(const ClientRequest& request,
                                            const std::string& reason) {
  const auto it = in_prefill_.find(request.request_id);
  EFIMSIM_CHECK(it != in_prefill_.end(), "a prefill leg was rejected for an unknown request");
  const ClientRequest original = std::move(it->second.request);
  in_prefill_.erase(it);
  prefill_->OnRequestDone(request.request_id);
  ++stats_.rejected;
  client_side_.OnRequestRejected(original, reason);
}

}  // namespace efimsim
