#pragma once
// vLLM v1's scheduler (vllm/v1/core/sched/scheduler.py, 0.9-0.10 series),
// synchronous (no async scheduling), no speculative decoding, FCFS.
//
// One step (Schedule):
//  1. Running requests in admission order, while the token budget lasts:
//     each gets min(remaining tokens, budget) (one token when decoding, the
//     next chunk of an unfinished prefill). If its blocks cannot be
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

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "sim/cache/prefix_cache_manager.h"
#include "sim/serving/request.h"

namespace efimsim {

struct ScheduledSequence {
  Request* request = nullptr;
  int64_t new_tokens = 0;
  int64_t context_tokens = 0;  // num_computed_tokens before this step
};

struct StepPlan {
  std::vector<ScheduledSequence> sequences;
  int64_t total_tokens = 0;
  int64_t preempted = 0;
  int64_t admitted = 0;
  bool empty() const { return sequences.empty(); }
};

struct SchedulerLimits {
  int64_t max_num_batched_tokens = 2048;
  int64_t max_num_seqs = 256;
};

class VllmV1Scheduler {
 public:
  VllmV1Scheduler(SchedulerLimits limits, PrefixCacheManager& cache);

  void AddWaiting(Request* request) { waiting_.push_back(request); }
  // Optional (must outlive the scheduler); null: none.
  void set_cpu_tier(CpuKvTier* tier) { cpu_tier_ = tier; }
  // Fills `plan` (cleared first) with the next step. `now` matters only with
  // a CPU KV tier (loads done by then are admitted).
  void Schedule(StepPlan& plan, TimePoint now = TimePoint{});
  // The earliest completion among CPU KV loads after `now`, if any.
  std::optional<TimePoint> NextLoadDone(TimePoint now) const;
  // Frees the blocks of every kLoadingKv request whose load is done and
  // returns it to kPreempted (progress reset, counted as a preemption), so
  // that a waiting request ahead of them can fit; returns how many. Only
  // for a stall: nothing running, nothing schedulable, no load pending.
  int64_t ReleaseLoadedBlocks(TimePoint now);
  // Removes finished requests from the running list, keeping order.
  void RemoveFinished();
  // Removes one request from the waiting queue or running list (an abort),
  // keeping the others' order. The caller frees its blocks.
  void Remove(const Request* request);

  const std::deque<Request*>& waiting() const { return waiting_; }
  const std::vector<Request*>& running() const { return running_; }
  int64_t preemptions() const { return preemptions_; }

 private:
  void Preempt(Request* victim);
  // A request just taken off the waiting queue, with blocks allocated for
  // `context` computed + `new_tokens` tokens, joins the running list and
  // this step's plan.
  void Admit(Request* request, int64_t context, int64_t new_tokens, StepPlan& plan,
             int64_t& budget);
  // Step 2 with a CPU KV tier.
  void AdmitWithCpuTier(StepPlan& plan, int64_t& budget, TimePoint now);

  SchedulerLimits limits_;
  PrefixCacheManager& cache_;
  std::deque<Request*> waiting_;
  std::vector<Request*> running_;  // admission order
  std::vector<BlockId> hit_blocks_;
  int64_t preemptions_ = 0;
  CpuKvTier* cpu_tier_ = nullptr;
};

}  // namespace efimsim
