#pragma once
// The SGLang engine (SGLang 0.5.3 scheduler + RadixCache, run
// synchronously) as a core of the step driver (engine_core.h):
// SglangScheduler chooses each step and a RadixCache over token slots holds
// KV. Registered as "sglang" (SglangEngine, engines.cc).
//
// Prompts as token streams: a request with token ids uses them (exact
// token-level matching). A trace request with only block keys (Mooncake)
// becomes block_key_tokens pseudo-tokens per key, derived from the key, so
// equal keys match in full and different keys differ at their first token
// (up to a 2^-32 chance per comparison): block-granular sharing, as the
// trace defines it. Positions past the keys, and prompts given only as a
// length (Azure), get tokens unique to the request: no sharing.
//
// KV accounting: the cache has num_blocks x block_tokens token slots (the
// same memory as the vLLM pool). KV figures are in blocks of block_tokens:
// slots held by requests or locked in the tree, rounded up.

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "sim/engine/sglang/radix_cache.h"
#include "sim/engine/engine_core.h"
#include "sim/engine/engine_entry.h"
#include "sim/engine/sglang/sglang_scheduler.h"

namespace efimsim {

struct SglangCoreConfig {
  SglangLimits limits;
  int32_t block_tokens = 16;      // only for KV figures in blocks
  int32_t num_blocks = 0;         // KV memory: num_blocks x block_tokens slots
  int32_t page_size = 1;
  bool prefix_caching = true;     // false: SGLang's ChunkCache (no sharing)
  int64_t max_context_tokens = 0; // 0: no limit
  // Disaggregated serving, decode side: the link prompts' KV is pulled over
  // (disabled: no request is pulled).
  KvLinkSpec kv_link;
};

class SglangCore final : public EngineCore {
 public:
  explicit SglangCore(SglangCoreConfig config);
  ~SglangCore() override;

  std::string RejectReason(const ClientRequest& request) const override;
  std::unique_ptr<Request> Add(ClientRequest& request, TimePoint now) override;
  void Schedule(StepPlan& plan, TimePoint now) override;
  // Prefill results first enter the tree and the running batch
  // (cache_unfinished_req), then tokens are appended, then finished
  // requests insert their tokens and unlock (cache_finished_req), in
  // request-id order.
  void AfterStep(const StepPlan& plan, TokenEmitter& emitter) override;
  // SGLang aborts between steps; a request that holds KV inserts its
  // computed tokens into the tree (they stay cached).
  void Release(Request& request) override;
  bool has_work() const override {
    return !scheduler_.waiting().empty() || !scheduler_.running().empty() ||
           scheduler_.chunked() != nullptr || scheduler_.has_remote();
  }
  int64_t waiting_requests() const override { return static_cast<int64_t>(scheduler_.waiting().size()); }
  KvUsage kv_usage() const override;
  bool kv_all_free() const override;
  EngineCounters Counters() const override;
  // Radix tree invariants (every slot referenced once, lock counts equal
  // holders) plus request/queue consistency.
  void CheckInvariants(const LiveRequests& live) const override;
  int64_t held_kv_requests() const override { return static_cast<int64_t>(held_kv_.size()); }
  bool holds_kv(uint64_t request_id) const override { return held_kv_.count(request_id) > 0; }
  void ReleaseHeldKv(uint64_t request_id) override;
  void TakeRemoteKvReads(std::vector<RemoteKvRead>& out) override { scheduler_.TakeRemoteReads(out); }

  const RadixCache& cache() const { return cache_; }

 private:
  void FillPrompt(const ClientRequest& client_request, SglangRequest& request) const;

  SglangCoreConfig config_;
  RadixCache cache_;
  SglangScheduler scheduler_;
  std::unique_ptr<KvLink> kv_link_;  // decode side of disaggregated serving
  std::vector<Request*> finished_scratch_;
  // Finished prefill legs whose KV waits for the decode side's read (the
  // disagg_prefill_inflight_queue): their tokens, slots and tree lock,
  // released (cache_finished_req) by ReleaseHeldKv. By request id.
  std::unordered_map<uint64_t, std::unique_ptr<SglangRequest>> held_kv_;
};

// The registry entry of "sglang".
EngineEntry SglangEngine();

}  // namespace efimsim
