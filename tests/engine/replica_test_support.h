#pragma once
// Shared by the replica and data-parallel group tests: an observer that
// keeps every record, a callback at a simulated time, and a request whose
// prompt is `length` consecutive token ids from `first`.

#include <cstdint>
#include <functional>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/core/simulator.h"
#include "sim/engine/engine_replica.h"

namespace efimsim::testing_support {

class Recorder : public RequestObserver, public StepObserver {
 public:
  void OnRequestFinished(const RequestRecord& r) override { finished.push_back(r); }
  void OnRequestCancelled(const RequestRecord& r) override { cancelled.push_back(r); }
  void OnRequestRejected(const ClientRequest& r, const std::string& reason) override {
    rejected.push_back(r.request_id);
    last_reason = reason;
  }
  void OnStep(const StepRecord& step) override { steps.push_back(step); }
  const RequestRecord& Finished(uint64_t id) const {
    for (const RequestRecord& r : finished) {
      if (r.request_id == id) return r;
    }
    throw std::runtime_error("request " + std::to_string(id) + " did not finish");
  }
  std::vector<RequestRecord> finished, cancelled;
  std::vector<uint64_t> rejected;
  std::string last_reason;
  std::vector<StepRecord> steps;
};

// Runs a callback at a given simulated time.
class At : public EventHandler {
 public:
  At(Simulator& simulator, TimePoint time, std::function<void()> action) : action_(std::move(action)) {
    simulator.Schedule(time, EventClass::kClientTimer, this);
  }
  void HandleEvent(const Event&) override { action_(); }

 private:
  std::function<void()> action_;
};

inline ClientRequest TokenRequest(uint64_t id, int64_t length, TokenId first, int64_t output) {
  ClientRequest r;
  r.request_id = id;
  r.prompt.resize(static_cast<size_t>(length));
  std::iota(r.prompt.begin(), r.prompt.end(), first);
  r.max_tokens = output;
  return r;
}

}  // namespace efimsim::testing_support
