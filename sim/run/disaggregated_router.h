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
// The prefill replica keeps a finished leg's KV until the decode replica
// has read it (vLLM's NixlConnector delays freeing the blocks of a request
// sent on for remote decode): the decode replica reports each read
// (RemoteKvReadObserver) and this object asks the prefill replica that
// holds the KV to free it then. A decode leg that needs no pull (its own
// prefix cache holds the prompt), is rejected or is cancelled before its
// pull frees it at once; vLLM would hold it until the decode side says so
// or, for an abandoned read, a timeout (VLLM_NIXL_ABORT_REQUEST_TIMEOUT).
//
// Simplification (stated in the run's "disaggregation" section): the
// decode side takes blocks for the pull when it admits the request, as
// vLLM does, and the pull starts then.
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
  int64_t kv_releases = 0;       // held prefill KV freed after a decode-side read
  Duration kv_hold_time{0};      // sum over them of (freed - prefill finish)
};

class DisaggregatedRouter final : public RequestSink, public RequestObserver, public RemoteKvReadObserver {
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
  // The decode replicas' reads: frees the prefill KV held for the request
  // (a read for a request whose KV is no longer held changes nothing).
  void OnRemoteKvRead(const RemoteKvRead& read) override;

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
  // Finished legs whose prefill KV is held: the holding replica and when the
  // leg finished.
  struct HeldKv {
    EngineReplica* replica = nullptr;
    TimePoint since;
  };
  std::unordered_map<uint64_t, HeldKv> held_kv_;
  PrefillPoolStats stats_;
};

}  // namespace efimsim
