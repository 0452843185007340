#pragma once
// vLLM v1's scheduler (vllm/v1/core/sched/scheduler.py, 0.9-0.10 series),
// synchronous (no async scheduling), FCFS.
//
// One step (Schedule):
//  1. Running requests in admission order, while the token budget lasts:
//     each gets min(remaining tokens, budget) (one token when decoding, the
//     next chunk of an unfinished prefill). With speculative decoding the
//     remaining tokens include the request's drafts (vLLM's
//     num_tokens_with_spec): a decode verifies 1 + drafts tokens, and the
//     drafts the budget cut off are dropped (scheduled = new tokens beyond
//     num_tokens). Only verified tokens' blocks are registered for prefix
//     caching (vLLM caches up to request.num_tokens). If its blocks cannot be
//     allocated, preempt the most recently admitted running request (free
//     its blocks, reset its progress, put it at the FRONT of the waiting
//     queue) and retry; if the victim is the request itself, stop.
//  2. Only if nothing was preempted this step: waiting requests in order,
//     while the budget lasts and fewer than max_num_seqs run. Look up the
//     prefix cache, take min(remaining, budget) tokens, allocate; stop at the
//     first request that does not fit.
// Progress (num_computed_tokens) advances at schedule time, as in vLLM.
//
// With a CPU KV tier (set_cpu_tier; sim/README.md "CPU KV tier"), step 2
// continues each admission's GPU prefix hit into the tier. A tier hit takes
// GPU blocks for the GPU hit plus the loaded blocks, starts the load, and
// leaves the request in its place in the waiting queue (kLoadingKv): it is
// skipped, as vLLM skips WAITING_FOR_REMOTE_KVS requests, until a step
// starts after its load is done; then it is admitted with those tokens
// computed and no new lookup. Without a tier, step 2 is unchanged.
//
// With a KV link (set_kv_link; disaggregated serving, decode side), a
// waiting request with remote prompt tokens past its GPU prefix hit pulls
// them the same way (vLLM's NixlConnector: get_num_new_matched_tokens past
// the local hit, then WAITING_FOR_REMOTE_KVS): GPU blocks for hit plus
// pulled tokens, the pull (every remote token past the hit) started on the
// link, the request skipped until it is done, then admitted with the last
// prompt token to compute, as _update_waiting_for_remote_kv leaves it.
// Remote requests do not look up the CPU tier.

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "sim/engine/vllm/prefix_cache_manager.h"
#include "sim/engine/vllm/spec_state.h"
#include "sim/engine/engine_core.h"
#include "sim/engine/kv_link.h"
#include "sim/engine/remote_kv_read.h"
#include "sim/engine/request.h"

namespace efimsim {

// A request inside the vLLM v1 engine (vLLM's Request): the shared
// lifecycle plus its KV blocks and its token sequence, kept as block keys
// of its full blocks plus the tokens of the partial last block, so memory
// per request is O(tokens / block_tokens).
struct VllmRequest : Request {
  KvSequence kv;                    // the cache manager's state for this request
  // Keys of the token sequence's full blocks, and the tokens after the last
  // full block: kept only while tracks_block_keys, that is, for a cache with
  // prefix caching on. With it off (the baseline) nothing reads them, so
  // they stay empty and no block is hashed.
  bool tracks_block_keys = true;
  std::vector<BlockKey> block_keys;
  TokenVector tail_tokens;
  TimePoint kv_load_done;           // kLoadingKv: when its CPU KV tier load or KV pull completes
  // Prompt tokens to pull over the KV link (ClientRequest::remote_prefill_tokens);
  // set to 0 once pulled, so that a preempted request recomputes them.
  int64_t remote_tokens = 0;
  // Disaggregated serving, prefill side (ClientRequest::hold_kv_until_read):
  // at finish the engine keeps its KV until the decode side has read it.
  bool hold_kv_until_read = false;
  // The user sends another round (ClientRequest::next_round_follows): at
  // finish its prompt's block keys are kept for it (VllmV1Core's memo).
  bool next_round_follows = false;
  // Speculative decoding's state (spec_state.h); null when it is off.
  std::unique_ptr<SpecState> spec;

  // Extends the block keys by one generated token (num_tokens is the
  // driver's). Inline: it runs for every generated token.
  void AppendTokenKey(TokenId token, int32_t block_tokens) {
    if (!tracks_block_keys) return;
    tail_tokens.push_back(token);
    if (static_cast<int32_t>(tail_tokens.size()) == block_tokens) CloseTailBlock();
  }
  // Turns the full tail into the next block key.
  void CloseTailBlock() {
    const BlockKey parent = block_keys.empty() ? kRootBlockKey : block_keys.back();
    block_keys.push_back(HashBlock(parent, tail_tokens));
    tail_tokens.clear();
  }
};

// --max-num-batched-tokens and --max-num-seqs (vllm_v1_limits.h). The
// paper's setup (vLLM 0.8-era API server): 2048 and 256. Later releases on
// >= 70 GiB GPUs default to 8192 and 1024.
struct SchedulerLimits {
  int64_t max_num_batched_tokens = 2048;
  int64_t max_num_seqs = 256;
};

class VllmV1Scheduler {
 public:
  VllmV1Scheduler(SchedulerLimits limits, PrefixCacheManager& cache);

  void AddWaiting(VllmRequest* request) { waiting_.push_back(request); }
  // Optional (must outlive the scheduler); null: none.
  void set_cpu_tier(CpuKvTier* tier) { cpu_tier_ = tier; }
  // Optional (must outlive the scheduler); null: no request is pulled.
  void set_kv_link(KvLink* link) { kv_link_ = link; }
  // Fills `plan` (cleared first) with the next step. `now` matters only with
  // a CPU KV tier (loads done by then are admitted). The plan's requests are
  // VllmRequests.
  void Schedule(StepPlan& plan, TimePoint now = TimePoint{});
  // The earliest completion among CPU KV loads after `now`, if any.
  std::optional<TimePoint> NextLoadDone(TimePoint now) const;
  // Frees the blocks of every kLoadingKv request whose load is done and
  // returns it to kPreempted (progress reset, counted as a preemption), so
  // that a waiting request ahead of them can fit; returns how many. Only
  // for a stall: nothing running, nothing schedulable, no load pending.
  int64_t ReleaseLoadedBlocks(TimePoint now);
  // Removes finished requests (state kFinished) from the running list,
  // keeping order.
  void RemoveFinished();
  // Removes one request from the waiting queue or running list (an abort),
  // keeping the others' order. The caller frees its blocks.
  void Remove(const VllmRequest* request);
  // Moves the remote KV reads decided since the last call to `out`
  // (remote_kv_read.h): a pull started (done: its end), a remote request
  // admitted without one (its prefix hit covered the pull: done now) or
  // aborted before one (done at once).
  void TakeRemoteReads(std::vector<RemoteKvRead>& out) {
    out.insert(out.end(), remote_reads_.begin(), remote_reads_.end());
    remote_reads_.clear();
  }

  const std::deque<VllmRequest*>& waiting() const { return waiting_; }
  const std::vector<VllmRequest*>& running() const { return running_; }
  int64_t preemptions() const { return preemptions_; }

 private:
  void Preempt(VllmRequest* victim);
  // A request just taken off the waiting queue, with blocks allocated for
  // `context` computed + `new_tokens` tokens, joins the running list and
  // this step's plan.
  void Admit(VllmRequest* request, int64_t context, int64_t new_tokens, StepPlan& plan,
             int64_t& budget);
  // Step 2 with a CPU KV tier or a KV link (requests wait for loads).
  void AdmitWithLoads(StepPlan& plan, int64_t& budget, TimePoint now);

  SchedulerLimits limits_;
  PrefixCacheManager& cache_;
  std::deque<VllmRequest*> waiting_;
  std::vector<VllmRequest*> running_;  // admission order
  std::vector<BlockId> hit_blocks_;
  int64_t preemptions_ = 0;
  std::vector<RemoteKvRead> remote_reads_;  // TakeRemoteReads'
  CpuKvTier* cpu_tier_ = nullptr;
  KvLink* kv_link_ = nullptr;
};

}  // namespace efimsim
