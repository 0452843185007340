#pragma once
// One serving engine replica: the step driver every engine shares, around
// an engine core (engine_core.h: vLLM v1, SGLang) and a latency model,
// driven by events.
//
// Step protocol (predict-then-apply): at a kSchedule event the core builds
// the step (allocating KV and advancing progress, as the engines do at
// schedule time); the latency model predicts its duration; a kStepComplete
// event at now + duration applies the rest: one pass over the step in which
// the driver's TokenEmitter draws one token per sequence whose prompt is
// computed and finishes requests that reached their length while the core
// appends the tokens to its own state; the core then frees the finished
// requests' KV, and observers get the records. One event pair per step, never one per
// token. The next step is scheduled at the completion instant, after that
// instant's arrivals (event class order).
//
// Aborts happen between steps: a request in the step in flight is cancelled
// when that step completes; any other at once.

#include <cstdint>
#include <functional>
#include <memory>
#include <queue>
#include <utility>
#include <vector>

#include "models/latency/latency_model.h"
#include "sim/client/client_request.h"
#include "sim/core/simulator.h"
#include "sim/metrics/summary.h"
#include "sim/engine/engine_core.h"
#include "sim/engine/engine_replica.h"
#include "sim/engine/token_draw.h"

namespace efimsim {

// What a replica that is one rank of a lockstep group (data_parallel_group.h)
// asks of the group instead of scheduling its own steps.
class StepGate {
 public:
  virtual ~StepGate() = default;
  // A rank has work: the group should start a step (now, or when the one
  // in flight completes).
  virtual void RequestGroupStep() = 0;
};

struct ReplicaConfig {
  int32_t replica_index = 0;       // names the replica in step records
  bool check_invariants = false;   // the core's invariants after every step
  TokenId output_token_first = 0;  // generated token ids are drawn from
  TokenId output_token_last = 0;   // [first, last]
  // The latency model of a separate draft model (vLLM's draft_model method),
  // pricing StepPlan::draft_model_passes; null: none. Not owned.
  const LatencyModel* draft_latency = nullptr;
};

class Replica final : public EngineReplica {
 public:
  Replica(Simulator& simulator, ReplicaConfig config, std::unique_ptr<EngineCore> core,
          const LatencyModel& latency, RequestObserver& observer);
  ~Replica() override;

  void Submit(ClientRequest request) override;
  void Cancel(uint64_t request_id) override;
  int64_t UnreadPromptTokens(int64_t user, int64_t round, int64_t shared_tokens) const override {
    return core_->UnreadPromptTokens(user, round, shared_tokens);
  }
  void HandleEvent(const Event& event) override;

  bool idle() const override { return !step_in_flight_ && !core_->has_work(); }
  EngineCounters Counters() const override;
  void CheckInvariants() const override { core_->CheckInvariants(live_); }
  void set_step_observer(StepObserver* observer) override { step_observer_ = observer; }
  int64_t outstanding_requests() const override { return static_cast<int64_t>(live_.size()); }
  bool kv_all_free() const override { return core_->kv_all_free(); }
  void set_remote_kv_read_observer(RemoteKvReadObserver* observer) override { remote_reads_observer_ = observer; }
  void ReleaseHeldKv(uint64_t request_id, TimePoint at) override;
  // Whether the core holds `request_id`'s KV for a remote read.
  bool holds_kv(uint64_t request_id) const { return core_->holds_kv(request_id); }

  // Requests in the core's waiting queue, and all it holds (data-parallel
  // routing: vLLM scores a rank 4 x waiting + running).
  int64_t waiting_requests() const { return core_->waiting_requests(); }
  bool has_work() const { return core_->has_work(); }

  // Lockstep (data_parallel_group.h). With a gate, the replica never starts
  // or completes a step by itself: it asks the gate, and the group calls
  // PlanStep on every rank, PriceStep with the group's largest batch,
  // LaunchStep with the group's duration, and FinishStep at its end.
  // Precondition of set_step_gate: no step planned or in flight.
  void set_step_gate(StepGate* gate) { gate_ = gate; }
  // The core builds the next step; false when there is none (a wake-up or
  // retry is arranged as for a replica of its own).
  bool PlanStep();
  int64_t planned_tokens() const { return plan_.total_tokens; }
  // The planned step's cost, its MoE layers in a group whose largest rank
  // runs `group_rows` tokens (0: this rank's own).
  StepCost PriceStep(int64_t group_rows);
  // Starts the planned step for `duration` (>= cost.Total(); the difference
  // is time spent waiting for the group's other ranks at the MoE layers'
  // collectives, counted as communication).
  void LaunchStep(StepCost cost, Duration duration);
  // The step in flight completed.
  void FinishStep() { CompleteStep(); }

 private:
  void RequestSchedule();
  void StartStep();
  void CompleteStep();
  void CancelNow(Request& request);
  // Passes the core's remote KV reads to the observer (decode side).
  void ReportRemoteKvReads();
  // Frees held KV whose release time has come (prefill side).
  void ReleaseDueKv();
  void RecordStep(const StepCost& cost, Duration duration, const KvUsage& kv);
  // The step's speculative drafting (StepPlan::draft_host, draft-head
  // passes priced from work_, draft-model passes by its latency model).
  Duration DraftingTime();
  // One decode pass of a drafter: a one-token step over each emitting
  // sequence of work_ at its new context; filled into draft_work_.
  const std::vector<SequenceWork>& DraftDecodeWork();

  Simulator& simulator_;
  ReplicaConfig config_;
  TokenDraw draw_;
  std::unique_ptr<EngineCore> core_;
  const LatencyModel& latency_;
  RequestObserver& observer_;

  // Requests not yet finished or cancelled, by id (O(1) finish and cancel).
  LiveRequests live_;
  StepPlan plan_;
  std::vector<SequenceWork> work_;
  std::vector<SequenceWork> draft_work_;  // DraftDecodeWork's batch
  std::vector<Request*> finished_;         // CompleteStep's, in plan order
  std::vector<uint64_t> finished_ids_;     // CompleteStep's, sorted
  std::vector<uint64_t> pending_cancels_;  // requests of the step in flight
  StepObserver* step_observer_ = nullptr;
  StepGate* gate_ = nullptr;  // set: one rank of a lockstep group
  KvUsage step_kv_;           // after the planned step's allocations
  RemoteKvReadObserver* remote_reads_observer_ = nullptr;
  std::vector<RemoteKvRead> remote_reads_;  // ReportRemoteKvReads' buffer
  // Held KV to free later: (release time, request id), earliest first.
  std::priority_queue<std::pair<TimePoint, uint64_t>, std::vector<std::pair<TimePoint, uint64_t>>,
                      std::greater<>>
      pending_releases_;
  bool step_in_flight_ = false;
  bool schedule_pending_ = false;

  int64_t steps_ = 0;
  Duration busy_{0};  // sum of step durations
  int64_t peak_used_blocks_ = 0;
  int64_t rejected_ = 0;
  int64_t prefill_tokens_ = 0;
  int64_t decode_tokens_ = 0;
};

}  // namespace efimsim
