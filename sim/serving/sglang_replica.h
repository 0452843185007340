#pragma once
// One SGLang engine replica (SGLang 0.5.3 scheduler + RadixCache, run
// synchronously): the same step protocol as the vLLM replica
// (predict-then-apply, one kSchedule / kStepComplete event pair per step),
// with SglangScheduler choosing each step and a RadixCache over token slots
// holding KV.
//
// Prompts as token streams: a request with token ids uses them (exact
// token-level matching). A trace request with only block keys (Mooncake)
// becomes block_key_tokens pseudo-tokens per key, derived from the key, so
// equal keys match in full and different keys differ at their first token
// (up to a 2^-32 chance per comparison): block-granular sharing, as the
// trace defines it. Positions past the keys, and prompts given only as a
// length (Azure), get tokens unique to the request: no sharing.
// Generated tokens are drawn as in the vLLM replica.
//
// KV accounting: the cache has num_blocks x block_tokens token slots (the
// same memory as the vLLM pool). Step records report KV in blocks of
// block_tokens: slots held by requests or locked in the tree, rounded up.

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "sim/cache/radix_cache.h"
#include "sim/serving/engine_replica.h"
#include "sim/serving/sglang_scheduler.h"

namespace efimsim {

struct SglangReplicaConfig {
  int32_t replica_index = 0;
  SglangLimits limits;
  int32_t block_tokens = 16;      // only for KV figures in blocks
  int32_t num_blocks = 0;         // KV memory: num_blocks x block_tokens slots
  int32_t page_size = 1;
  bool prefix_caching = true;     // false: SGLang's ChunkCache (no sharing)
  bool check_invariants = false;
  int64_t max_context_tokens = 0; // 0: no limit
  TokenId output_token_first = 0;
  TokenId output_token_last = 0;
};

class SglangReplica : public EngineReplica {
 public:
  SglangReplica(Simulator& simulator, SglangReplicaConfig config, const LatencyModel& latency,
                RequestObserver& observer);
  ~SglangReplica() override;

  void Submit(ClientRequest request) override;
  // SGLang aborts between steps: a request in the step in flight is
  // released when that step completes; any other at once. A request that
  // holds KV inserts its computed tokens into the tree (they stay cached).
  void Cancel(uint64_t request_id) override;
  void HandleEvent(const Event& event) override;

  bool idle() const override;
  EngineCounters Counters() const override;
  // Radix tree invariants (every slot referenced once, lock counts equal
  // holders) plus request/queue consistency.
  void CheckInvariants() const override;
  void set_step_observer(StepObserver* observer) override { step_observer_ = observer; }
  int64_t outstanding_requests() const override { return static_cast<int64_t>(live_.size()); }
  bool kv_all_free() const override;

  const RadixCache& cache() const { return cache_; }
  const SglangScheduler& scheduler() const { return scheduler_; }

 private:
  void RequestSchedule();
  void StartStep();
  void CompleteStep();
  TokenId TextToken(uint64_t draw) const;
  void FillPrompt(const ClientRequest& client_request, SglangRequest& request) const;
  void Finish(SglangRequest& request, bool cancelled);

  Simulator& simulator_;
  SglangReplicaConfig config_;
  const LatencyModel& latency_;
  RequestObserver& observer_;
  RadixCache cache_;
  SglangScheduler scheduler_;

  std::unordered_map<uint64_t, std::unique_ptr<SglangRequest>> live_;
  SglangPlan plan_;
  std::vector<SequenceWork> work_;
  std::vector<uint64_t> pending_cancels_;
  std::vector<uint64_t> finished_ids_;
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
