#pragma once
// What routers and the run see of a replica (Replica, replica.h: the one
// step driver, whatever its engine core). A replica is the RequestSink its
// client or router talks to and the EventHandler of its own step events; it
// tells a RequestObserver about every request that ends and a StepObserver
// about every step.

#include <cstdint>
#include <string>

#include "models/latency/latency_model.h"
#include "sim/client/client_request.h"
#include "sim/core/simulator.h"
#include "sim/engine/remote_kv_read.h"
#include "sim/metrics/summary.h"

namespace efimsim {

// Told about every finished request, at its finish instant.
class RequestObserver {
 public:
  virtual ~RequestObserver() = default;
  virtual void OnRequestFinished(const RequestRecord& record) = 0;
  // A cancelled request's record (record.cancelled is true).
  virtual void OnRequestCancelled(const RequestRecord& record) = 0;
  virtual void OnRequestRejected(const ClientRequest& request, const std::string& reason) = 0;
};

// One engine step as it was scheduled, for timelines and step-level
// statistics. Told when the step starts (its duration is already known).
struct StepRecord {
  int32_t replica = 0;
  TimePoint start;
  TimePoint end;
  int64_t sequences = 0;
  int64_t prefill_sequences = 0;   // sequences computing prompt positions
  int64_t decode_sequences = 0;    // sequences computing one generated position
  int64_t tokens = 0;              // all tokens of the step
  int64_t kv_used_blocks = 0;      // after the step's allocations
  int64_t kv_total_blocks = 0;
  int64_t preempted = 0;           // requests preempted while building the step
  StepCost cost;
};

class StepObserver {
 public:
  virtual ~StepObserver() = default;
  virtual void OnStep(const StepRecord& step) = 0;
};

class EngineReplica : public RequestSink, public EventHandler {
 public:
  ~EngineReplica() override = default;
  // True when nothing is running, waiting or in flight.
  virtual bool idle() const = 0;
  // Counters for the run summary (events are filled in by the caller).
  virtual EngineCounters Counters() const = 0;
  // Verifies the engine's KV and request invariants. Throws on violation.
  virtual void CheckInvariants() const = 0;
  // Optional; must outlive the replica. Null: no step records.
  virtual void set_step_observer(StepObserver* observer) = 0;
  // Requests waiting, running or in the step in flight (for routers).
  virtual int64_t outstanding_requests() const = 0;
  // True when every KV slot / block is free or held only by the prefix
  // cache (end-of-run check: no request holds KV).
  virtual bool kv_all_free() const = 0;

  // Disaggregated serving (remote_kv_read.h). Decode side: where to report
  // the reads of remote KV (optional; must outlive the replica). Prefill
  // side: frees the KV held for `request_id` at `at` (now if earlier).
  virtual void set_remote_kv_read_observer(RemoteKvReadObserver* /*observer*/) {}
  virtual void ReleaseHeldKv(uint64_t /*request_id*/, TimePoint /*at*/) {}
};

}  // namespace efimsim
