#include "sim/run/disaggregated_router.h"

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
  prefill_->OnRequestDone(record.request_id);
  if (leg.cancel_requested) {
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
  decode_->Submit(std::move(leg.request));
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
