#pragma once
// One serving engine replica (vLLM v1 engine core, synchronous): a
// scheduler, a KV cache manager and a latency model, driven by events.
//
// Step protocol (predict-then-apply): at a kSchedule event the scheduler
// builds the step (allocating blocks, registering them in the prefix cache
// and advancing progress, as vLLM does at schedule time); the latency model
// predicts its duration; a kStepComplete event at now + duration applies the
// rest: emitted tokens, finishes, block releases, records. One event pair per
// step, never one per token. The next step is scheduled at the completion
// instant, after that instant's arrivals (event class order).

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "models/latency_model.h"
#include "sim/cache/prefix_cache_manager.h"
#include "sim/client/client_request.h"
#include "sim/core/simulator.h"
#include "sim/metrics/summary.h"
#include "sim/serving/engine_config.h"
#include "sim/serving/engine_replica.h"
#include "sim/serving/vllm_v1_scheduler.h"

namespace efimsim {

struct ReplicaConfig {
  int32_t replica_index = 0;       // names the replica in step records
  SchedulerLimits limits;
  int32_t block_tokens = 16;
  int32_t num_blocks = 0;
  bool prefix_caching = true;
  bool check_invariants = false;
  int64_t max_context_tokens = 0;  // 0: no limit
  TokenId output_token_first = 0;  // generated token ids are drawn from
  TokenId output_token_last = 0;   // [first, last]
  // CPU KV tier (sim/cache/cpu_kv_tier.h): none when cpu_kv_blocks is 0 or
  // prefix caching is off.
  int64_t cpu_kv_blocks = 0;
  int64_t kv_bytes_per_block = 0;     // block_tokens x KV bytes per token
  double offload_bytes_per_s = 0;     // host -> GPU link
  Duration offload_latency{0};        // per load transfer
};

class Replica : public EngineReplica {
 public:
  Replica(Simulator& simulator, ReplicaConfig config, const LatencyModel& latency,
          RequestObserver& observer);
  ~Replica() override;

  void Submit(ClientRequest request) override;
  // vLLM aborts between steps: a request in the step in flight is cancelled
  // when that step completes; any other at once.
  void Cancel(uint64_t request_id) override;
  void HandleEvent(const Event& event) override;

  // True when nothing is running, waiting or in flight.
  bool idle() const override;
  // Counters for the run summary (events are filled in by the caller).
  EngineCounters Counters() const override;
  // Verifies block reference counts against the requests holding them,
  // free + used == pool, and request/queue consistency. Throws on violation.
  void CheckInvariants() const override;
  const PrefixCacheManager& cache() const { return cache_; }
  // Null when the replica has no CPU KV tier.
  const CpuKvTier* cpu_tier() const { return cpu_tier_.get(); }
  // Optional; must outlive the replica. Null: no step records.
  void set_step_observer(StepObserver* observer) override { step_observer_ = observer; }
  // Requests waiting, running or in the step in flight (for routers).
  int64_t outstanding_requests() const override { return static_cast<int64_t>(live_.size()); }
  bool kv_all_free() const override {
    return cache_.pool().num_free_blocks() == cache_.pool().num_blocks();
  }

 private:
  void RequestSchedule();
  void StartStep();
  void CompleteStep();
  // A token id in [output_token_first, output_token_last] picked by `draw`.
  TokenId TextToken(uint64_t draw) const;
  TokenId GeneratedToken(const Request& request) const;
  TokenId SyntheticPromptToken(uint64_t request_id, int64_t position) const;
  void FillPrompt(const ClientRequest& client_request, Request& request) const;
  void CancelNow(Request& request);
  // An empty plan with requests still waiting: wakes the replica when the
  // next CPU KV load is done, or frees loaded blocks to break a stall.
  // Returns false if neither applies.
  bool HandleLoadWait();

  Simulator& simulator_;
  ReplicaConfig config_;
  const LatencyModel& latency_;
  RequestObserver& observer_;
  std::unique_ptr<CpuKvTier> cpu_tier_;  // before cache_: the cache points at it
  PrefixCacheManager cache_;
  VllmV1Scheduler scheduler_;

  // Requests not yet finished or cancelled, by id (O(1) finish and cancel).
  std::unordered_map<uint64_t, std::unique_ptr<Request>> live_;
  StepPlan plan_;
  std::vector<SequenceWork> work_;
  std::vector<uint64_t> pending_cancels_;  // requests of the step in flight
  std::vector<uint64_t> finished_ids_scratch_;  // CompleteStep's, kept to reuse its memory
  StepObserver* step_observer_ = nullptr;
  bool step_in_flight_ = false;
  bool schedule_pending_ = false;

  int64_t steps_ = 0;
  int64_t peak_used_blocks_ = 0;
  int64_t rejected_ = 0;
  int64_t prefill_tokens_ = 0;
  int64_t decode_tokens_ = 0;
};

}  // namespace efimsim
