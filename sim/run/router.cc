#include "sim/run/router.h"

#include <functional>

#include "sim/base/check.h"
#include "sim/base/errors.h"
#include "sim/base/registry.h"
#include "sim/core/random.h"

namespace efimsim {
namespace {

class RoundRobin : public RoutingPolicy {
 public:
  size_t Pick(const ClientRequest&, const std::vector<EngineReplica*>& replicas) override {
    const size_t index = next_ % replicas.size();
    ++next_;
    return index;
  }

 private:
  size_t next_ = 0;
};

class LeastOutstanding : public RoutingPolicy {
 public:
  size_t Pick(const ClientRequest&, const std::vector<EngineReplica*>& replicas) override {
    size_t best = 0;
    for (size_t i = 1; i < replicas.size(); ++i) {
      if (replicas[i]->outstanding_requests() < replicas[best]->outstanding_requests()) best = i;
    }
    return best;
  }
};

class SessionAffinity : public RoutingPolicy {
 public:
  size_t Pick(const ClientRequest& request, const std::vector<EngineReplica*>& replicas) override {
    if (request.user < 0) {
      ++without_session_;
      return round_robin_.Pick(request, replicas);
    }
    return static_cast<size_t>(Mix64(static_cast<uint64_t>(request.user)) % replicas.size());
  }
  std::string Note() const override {
    if (without_session_ == 0) return "";
    return std::to_string(without_session_) +
           " requests of no user or session went round-robin (no session to keep together)";
  }

 private:
  RoundRobin round_robin_;     // for requests without a session
  int64_t without_session_ = 0;
};

using Factory = std::function<std::unique_ptr<RoutingPolicy>()>;

const Registry<Factory>& Policies() {
  static const Registry<Factory> registry = [] {
    Registry<Factory> r("router");
    r.Add("round-robin", [] { return std::make_unique<RoundRobin>(); });
    r.Add("least-outstanding", [] { return std::make_unique<LeastOutstanding>(); });
    r.Add("session-affinity", [] { return std::make_unique<SessionAffinity>(); });
    return r;
  }();
  return registry;
}

}  // namespace

std::unique_ptr<RoutingPolicy> MakeRoutingPolicy(const std::string& name) {
  const Factory* factory = Policies().Find(name);
  if (factory == nullptr) {
    throw UsageError("--router: unknown router '" + name + "' (choose one of: " +
                     RoutingPolicyNames() + ")");
  }
  return (*factory)();
}

std::string RoutingPolicyNames() { return Policies().JoinedNames(); }

std::vector<std::string> RoutingPolicyNameList() { return Policies().Names(); }

Router::Router(std::vector<EngineReplica*> replicas, std::unique_ptr<RoutingPolicy> policy)
    : replicas_(std::move(replicas)), policy_(std::move(policy)), routed_(replicas_.size(), 0) {
  EFIMSIM_CHECK(!replicas_.empty(), "a router needs at least one replica");
}

void Router::Submit(ClientRequest request) {
  const size_t index = policy_->Pick(request, replicas_);
  EFIMSIM_CHECK(index < replicas_.size(), "routing policy picked no replica");
  placement_[request.request_id] = index;
  ++routed_[index];
  replicas_[index]->Submit(std::move(request));
}

void Router::Cancel(uint64_t request_id) {
  const auto it = placement_.find(request_id);
  if (it == placement_.end()) return;
  replicas_[it->second]->Cancel(request_id);
}

}  // namespace efimsim
