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

#include <cstdint>
#include <deque>
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
  // Fills `plan` (cleared first) with the next step.
  void Schedule(StepPlan& plan);
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

  SchedulerLimits limits_;
  PrefixCacheManager& cache_;
  std::deque<Request*> waiting_;
  std::vector<Request*> running_;  // admission order
  std::vector<BlockId> hit_blocks_;
  int64_t preemptions_ = 0;
};

}  // namespace efimsim
