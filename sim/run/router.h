#pragma once
// Several replicas behind one front door. A Router is the RequestSink the
// client talks to; a RoutingPolicy picks the replica of each new request.
//
// Policies (registered by name, RoutingPolicyNames()):
//   round-robin        requests in send order go to replicas 0, 1, ..., N-1, 0, ...
//   least-outstanding  the replica with the fewest requests waiting, running or
//                      in flight (EngineReplica::outstanding_requests()); ties go to
//                      the lowest index
//   session-affinity   every request of a user goes to replica
//                      Mix64(user) % N, so a user's rounds find their prefix
//                      in that replica's cache (stable: depends on the user id
//                      and N only); requests of no user or session (trace
//                      request records, vllm-bench) go round-robin instead
//                      of all to one replica, and the run says how many
// Cancel goes to the replica that holds the request; unknown ids are a
// no-op, as for a single replica. Routing is deterministic: no hash-map
// iteration decides anything.

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/client/client_request.h"
#include "sim/engine/engine_replica.h"

namespace efimsim {

class RoutingPolicy {
 public:
  virtual ~RoutingPolicy() = default;
  // Index in [0, replicas.size()) of the replica that gets `request`.
  virtual size_t Pick(const ClientRequest& request, const std::vector<EngineReplica*>& replicas) = 0;
  // What the run's description should say about how the policy routed
  // (a fallback it had to take); "" when nothing.
  virtual std::string Note() const { return ""; }
};

// Throws UsageError("--router: ...") naming the valid policies.
std::unique_ptr<RoutingPolicy> MakeRoutingPolicy(const std::string& name);
// "round-robin, least-outstanding, session-affinity"
std::string RoutingPolicyNames();
std::vector<std::string> RoutingPolicyNameList();

class Router : public RequestSink {
 public:
  // Precondition: replicas is non-empty; they outlive the router.
  Router(std::vector<EngineReplica*> replicas, std::unique_ptr<RoutingPolicy> policy);

  void Submit(ClientRequest request) override;
  void Cancel(uint64_t request_id) override;
  // The replica's answer when there is one replica (its pick is certain);
  // else 0: which replica a request goes to is decided when it is sent.
  int64_t UnreadPromptTokens(int64_t user, int64_t round, int64_t shared_tokens) const override {
    return replicas_.size() == 1 ? replicas_[0]->UnreadPromptTokens(user, round, shared_tokens) : 0;
  }
  // Forget a request that finished, was cancelled or was rejected.
  void OnRequestDone(uint64_t request_id) { placement_.erase(request_id); }
  // The replica a live request was routed to; null for an unknown id.
  EngineReplica* ReplicaOf(uint64_t request_id) const {
    const auto it = placement_.find(request_id);
    return it == placement_.end() ? nullptr : replicas_[it->second];
  }

  // Requests routed to each replica so far.
  const std::vector<int64_t>& routed() const { return routed_; }
  // The policy's note on how it routed (RoutingPolicy::Note).
  std::string note() const { return policy_->Note(); }

 private:
  std::vector<EngineReplica*> replicas_;
  std::unique_ptr<RoutingPolicy> policy_;
  std::unordered_map<uint64_t, size_t> placement_;  // live request -> replica index
  std::vector<int64_t> routed_;
};

}  // namespace efimsim
