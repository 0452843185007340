#pragma once
// The vLLM v1 engine as a core of the step driver (engine_core.h): the
// scheduler (vllm_v1_scheduler.h), the paged prefix-cache manager and,
// optionally, the CPU KV tier (sim/engine/vllm/cpu_kv_tier.h; sim/README.md
// "CPU KV tier"). Registered as "vllm_v1" (VllmV1Engine, engines.cc).
//
// Prompts: block keys of the prompt's full blocks plus the tokens of the
// partial last block. Token ids when the client sent them; otherwise the
// trace's block keys (equal keys, equal blocks) and, past them, tokens
// unique to the request (no reuse). With prefix caching off no key is kept.
//
// A step with nothing to schedule while requests wait for CPU KV loads asks
// the driver to wake it when the next load is done (StepPlan::wake_at); if
// no load is pending, requests whose loads are done give their blocks back
// (a stall guard) and the core asks for another try (StepPlan::retry).

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "sim/engine/vllm/cpu_kv_tier.h"
#include "sim/engine/vllm/prefix_cache_manager.h"
#include "sim/engine/vllm/round_key_memo.h"
#include "sim/engine/engine_core.h"
#include "sim/engine/engine_entry.h"
#include "sim/engine/token_draw.h"
#include "sim/engine/vllm/speculative_config.h"
#include "sim/engine/vllm/speculator.h"
#include "sim/engine/vllm/vllm_v1_scheduler.h"

namespace efimsim {

struct VllmV1CoreConfig {
  SchedulerLimits limits;
  int32_t block_tokens = 16;
  int32_t num_blocks = 0;
  bool prefix_caching = true;
  int64_t max_context_tokens = 0;  // 0: no limit
  TokenId output_token_first = 0;  // for prompts given as lengths: tokens are
  TokenId output_token_last = 0;   // drawn from [first, last] (as generated ones)
  // CPU KV tier: none when cpu_kv_blocks is 0 or prefix caching is off.
  int64_t cpu_kv_blocks = 0;
  int64_t kv_bytes_per_block = 0;     // block_tokens x KV bytes per token
  double offload_bytes_per_s = 0;     // host -> GPU link
  Duration offload_latency{0};        // per load transfer
  // Disaggregated serving, decode side: the link remote prompt tokens are
  // pulled over (disabled: no request is pulled).
  KvLinkSpec kv_link;
  // Speculative decoding (speculator.h): off unless the config enables it.
  SpeculativeConfig speculative;
  int64_t target_layers = 1;  // the served model's decoder layers
};

class VllmV1Core final : public EngineCore {
 public:
  explicit VllmV1Core(VllmV1CoreConfig config);
  ~VllmV1Core() override;

  std::string RejectReason(const ClientRequest& request) const override;
  // With prefix caching and the user's previous prompt's keys kept, the
  // shared blocks' keys are taken from them: every shared block but the
  // last (whose ids check the claim) goes unread. 0 with speculative
  // decoding (drafts read the whole prompt) or a KV link.
  int64_t UnreadPromptTokens(int64_t user, int64_t round, int64_t shared_tokens) const override;
  std::unique_ptr<Request> Add(ClientRequest& request, TimePoint now) override;
  void Schedule(StepPlan& plan, TimePoint now) override;
  void AfterStep(const StepPlan& plan, TokenEmitter& emitter) override;
  void Release(Request& request) override;
  bool has_work() const override {
    return !scheduler_.waiting().empty() || !scheduler_.running().empty();
  }
  int64_t waiting_requests() const override { return static_cast<int64_t>(scheduler_.waiting().size()); }
  KvUsage kv_usage() const override {
    return {cache_.pool().num_used_blocks(), cache_.pool().num_blocks()};
  }
  bool kv_all_free() const override {
    return cache_.pool().num_free_blocks() == cache_.pool().num_blocks();
  }
  EngineCounters Counters() const override;
  // Block reference counts against the requests holding them, free + used
  // == pool, request/queue consistency, and the CPU tier's own invariants.
  void CheckInvariants(const LiveRequests& live) const override;
  int64_t held_kv_requests() const override { return static_cast<int64_t>(held_kv_.size()); }
  bool holds_kv(uint64_t request_id) const override { return held_kv_.count(request_id) > 0; }
  void ReleaseHeldKv(uint64_t request_id) override;
  void TakeRemoteKvReads(std::vector<RemoteKvRead>& out) override { scheduler_.TakeRemoteReads(out); }

  const PrefixCacheManager& cache() const { return cache_; }

 private:
  // Block keys of the prompt (at least `reserve_blocks` of room) and its
  // partial last block.
  void FillPrompt(const ClientRequest& client_request, size_t reserve_blocks, VllmRequest& request);
  // The keys of the blocks `client_request`'s prompt shares with its user's
  // previous prompt, from round_keys_, into `keys` (left as it is when
  // there are none). Fails a check if the last one taken does not match
  // the prompt's tokens.
  void TakeSharedKeys(const ClientRequest& client_request, std::vector<BlockKey>& keys);
  // The first prompt token FillPrompt reads when `keys_taken` keys came
  // from the memo: the last taken block's (TakeSharedKeys checks its ids
  // against the key), or 0 when none did. UnreadPromptTokens promises
  // the same.
  int64_t FirstPromptTokenRead(size_t keys_taken) const {
    return keys_taken == 0 ? 0 : static_cast<int64_t>(keys_taken - 1) * config_.block_tokens;
  }

  VllmV1CoreConfig config_;
  TokenDraw draw_;                       // tokens of prompts given as lengths
  std::unique_ptr<CpuKvTier> cpu_tier_;  // before cache_: the cache points at it
  std::unique_ptr<KvLink> kv_link_;
  PrefixCacheManager cache_;
  VllmV1Scheduler scheduler_;
  std::unique_ptr<Speculator> speculator_;  // null: no speculative decoding
  std::vector<uint64_t> batch_ids_;         // scratch: a step's request ids
  // Finished prompts' block keys kept for their users' next rounds.
  RoundKeyMemo round_keys_;
  // Finished requests' KV kept for a decode replica's read (by request id;
  // looked up, never iterated in an order that matters).
  std::unordered_map<uint64_t, KvSequence> held_kv_;
};

// The registry entry of "vllm_v1".
EngineEntry VllmV1Engine();

}  // namespace efimsim
