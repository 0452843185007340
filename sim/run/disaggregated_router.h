#pragma once
// Disaggregated prefill and decode (docs/disaggregation.md): the client's
// front door to two pools of replicas, as vLLM's P/D proxy with a KV
// connector (NixlConnector) runs them.
//
// A request goes first to the prefill pool (its router's policy) with
// max_tokens 1: the prefill replica computes the prompt and one token,
// which is dropped (the proxy streams the decode instance's tokens). When
// it finishes, the original request goes to the decode pool with
// remote_prefill_tokens = its prompt: the decode replica pulls that KV past
// its own prefix-cache hit over its KV link (kv_link.h), recomputes the
// last prompt token and generates every output token. The client sees the
// decode replica's tokens, with the arrival it sent: TTFT includes the
// prefill, the pull and the decode replica's queueing.
//
// Simplifications (stated in the run's "disaggregation" section): the
// prefill replica frees the request's KV when it finishes, not when the
// decode side has read it; the decode side takes blocks for the pull when
// it admits the request, as vLLM does, and the pull starts then.
//
// Cancel goes to whichever pool holds the request. A request rejected or
// cancelled in the prefill pool is reported to the client's observer as
// it would be by a co-located replica.

#include <cstdint>
#include <string>
#include <unordered_map>

#include "sim/client/client_request.h"
#include "sim/engine/engine_replica.h"
#include "sim/run/router.h"

namespace efimsim {

// What the prefill pool did, for the run's description.
struct PrefillPoolStats {
  int64_t handed_to_decode = 0;  // prefill legs finished and sent on
  int64_t cancelled = 0;         // cancelled by the client during prefill (never sent on)
  int64_t rejected = 0;
  Duration leg_time{0};          // sum over handed-on legs of (prefill finish - sent)
};

class DisaggregatedRouter final : public RequestSink, public RequestObserver {
 public:
  // `client_side` (the run's observer, also the decode replicas') outlives
  // this. The prefill replicas report to this object, so it exists before
  // them; Connect gives it the pools' routers before the first request.
  explicit DisaggregatedRouter(RequestObserver& client_side);
  // Precondition: both outlive this.
  void Connect(Router& prefill, Router& decode);

  void Submit(ClientRequest request) override;
  void Cancel(uint64_t request_id) override;

  // The prefill replicas' observer.
  void OnRequestFinished(const RequestRecord& record) override;
  void OnRequestCancelled(const RequestRecord& record) override;
  void OnRequestRejected(const ClientRequest& request, const std::string& reason) override;

  const PrefillPoolStats& prefill_stats() const { return stats_; }

 private:
  Router* prefill_ = nullptr;
  Router* decode_ = nullptr;
  RequestObserver& client_side_;
  // A request in the prefill pool, as the client sent it. The replica
  // cancels a request in its step in flight only after the step, which
  // may finish the leg: a finished leg the client cancelled ends as
  // cancelled instead of moving on.
  struct PrefillLeg {
    ClientRequest request;
    bool cancel_requested = false;
  };
  std::unordered_map<uint64_t, PrefillLeg> in_prefill_;
  PrefillPoolStats stats_;
};

}  // namespace efimsim
