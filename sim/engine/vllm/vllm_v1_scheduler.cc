#include "sim/engine/vllm/vllm_v1_scheduler.h"

#include <algorithm>

#include "sim/base/check.h"

namespace efimsim {

VllmV1Scheduler::VllmV1Scheduler(SchedulerLimits limits, PrefixCacheManager& cache)
    : limits_(limits), cache_(cache) {
  EFIMSIM_CHECK(limits_.max_num_batched_tokens >= 1 && limits_.max_num_seqs >= 1,
                "scheduler limits must be positive");
}

void VllmV1Scheduler::Preempt(VllmRequest* victim) {
  cache_.Free(victim->kv);
  victim->num_computed_tokens = 0;
  // Its drafts were proposed for the progress it loses (recomputed, it
  // drafts again after its prefill).
  if (victim->spec != nullptr) victim->spec->drafts.clear();
  ++victim->preemptions;
  ++preemptions_;
  victim->TransitionTo(RequestState::kPreempted);
  waiting_.push_front(victim);
}

void VllmV1Scheduler::Schedule(StepPlan& plan, TimePoint now) {
  plan.Clear();
  int64_t budget = limits_.max_num_batched_tokens;

  // 1. Running requests.
  size_t index = 0;
  while (index < running_.size() && budget > 0) {
    if (index + kRequestPrefetchDistance < running_.size()) {
      running_[index + kRequestPrefetchDistance]->Prefetch();
    }
    VllmRequest* request = running_[index];
    const int64_t drafts =
        request->spec != nullptr ? static_cast<int64_t>(request->spec->drafts.size()) : 0;
    const int64_t new_tokens =
        std::min(request->num_tokens + drafts - request->num_computed_tokens, budget);
    EFIMSIM_CHECK(new_tokens > 0, "a running request with nothing to compute");
    bool scheduled = false;
    while (true) {
      if (cache_.Allocate(request->kv, request->num_computed_tokens, new_tokens, {},
                          request->block_keys, request->num_tokens)) {
        scheduled = true;
        break;
      }
      VllmRequest* victim = running_.back();
      running_.pop_back();
      Preempt(victim);
      ++plan.preempted;
      if (victim == request) break;
    }
    if (!scheduled) break;
    if (drafts > 0) {
      // The drafts inside the scheduled range are verified; the rest are
      // dropped (vLLM trims spec_token_ids, then clears them).
      const int64_t verified = request->num_computed_tokens + new_tokens - request->num_tokens;
      request->spec->drafts.resize(static_cast<size_t>(std::max<int64_t>(0, verified)));
    }
    plan.sequences.push_back({request, new_tokens, request->num_computed_tokens});
    request->num_computed_tokens += new_tokens;
    budget -= new_tokens;
    ++index;
  }
  plan.total_tokens = limits_.max_num_batched_tokens - budget;

  // 2. Waiting requests, only in a step that preempted nothing.
  if (plan.preempted == 0 && (cpu_tier_ != nullptr || kv_link_ != nullptr)) {
    AdmitWithLoads(plan, budget, now);
  } else if (plan.preempted == 0) {
    while (!waiting_.empty() && budget > 0 &&
           static_cast<int64_t>(running_.size()) < limits_.max_num_seqs) {
      VllmRequest* request = waiting_.front();
      EFIMSIM_CHECK(request->num_computed_tokens == 0, "waiting request with progress");
      const int64_t hit_tokens =
          cache_.FindLongestHit(request->block_keys, request->num_tokens, hit_blocks_);
      const int64_t new_tokens = std::min(request->num_tokens - hit_tokens, budget);
      if (!cache_.Allocate(request->kv, 0, new_tokens, hit_blocks_, request->block_keys)) break;
      waiting_.pop_front();
      if (request->cached_tokens < 0) request->cached_tokens = hit_tokens;
      Admit(request, hit_tokens, new_tokens, plan, budget);
    }
  }
}

void VllmV1Scheduler::Admit(VllmRequest* request, int64_t context, int64_t new_tokens,
                            StepPlan& plan, int64_t& budget) {
  running_.push_back(request);
  request->TransitionTo(RequestState::kRunning);
  plan.sequences.push_back({request, new_tokens, context});
  request->num_computed_tokens = context + new_tokens;
  plan.total_tokens += new_tokens;
  budget -= new_tokens;
  ++plan.admitted;
}

void VllmV1Scheduler::AdmitWithLoads(StepPlan& plan, int64_t& budget, TimePoint now) {
  const int64_t block = cache_.block_tokens();
  size_t index = 0;
  while (index < waiting_.size() && budget > 0 &&
         static_cast<int64_t>(running_.size()) < limits_.max_num_seqs) {
    VllmRequest* request = waiting_[index];
    int64_t context = 0;
    int64_t new_tokens = 0;
    if (request->state == RequestState::kLoadingKv) {
      if (request->kv_load_done > now) {  // still loading: skipped, keeps its place
        ++index;
        continue;
      }
      context = request->num_computed_tokens;
      new_tokens = std::min(request->num_tokens - context, budget);
      if (!cache_.Allocate(request->kv, context, new_tokens, {}, request->block_keys)) break;
      request->remote_tokens = 0;
    } else {
      EFIMSIM_CHECK(request->num_computed_tokens == 0, "waiting request with progress");
      const int64_t hit_tokens =
          cache_.FindLongestHit(request->block_keys, request->num_tokens, hit_blocks_);
      const int64_t remote = std::min(request->remote_tokens, request->num_tokens - 1);
      if (kv_link_ != nullptr && remote > hit_tokens) {
        // vLLM pulls every remote prompt token past the hit, the last one
        // too, and then recomputes that one (its logits give the token).
        const int64_t pulled = std::min(request->remote_tokens, request->num_tokens) - hit_tokens;
        if (!cache_.Allocate(request->kv, 0, remote - hit_tokens, hit_blocks_,
                             request->block_keys)) {
          break;
        }
        request->TransitionTo(RequestState::kLoadingKv);
        request->num_computed_tokens = remote;
        if (request->cached_tokens < 0) request->cached_tokens = hit_tokens;
        request->kv_load_done = kv_link_->StartTransfer(now, pulled);
        remote_reads_.push_back({request->id, request->kv_load_done});
        request->parts.kv_pulled_tokens += pulled;
        request->parts.kv_pull += request->kv_load_done - now;
        if (request->kv_load_done > now) ++index;  // else admitted on the next pass, now
        continue;
      }
      // The tier continues the chain after the GPU hit, under the same cap
      // as the GPU lookup: at least one token is computed.
      const int64_t limit = std::min<int64_t>((request->num_tokens - 1) / block,
                                              static_cast<int64_t>(request->block_keys.size()));
      const int64_t gpu_blocks = static_cast<int64_t>(hit_blocks_.size());
      const int64_t cpu_blocks =
          cpu_tier_ == nullptr || request->remote_tokens > 0
              ? 0
              : cpu_tier_->Lookup(request->block_keys, std::min(gpu_blocks, limit), limit);
      if (cpu_blocks > 0) {
        const int64_t load_tokens = cpu_blocks * block;
        if (!cache_.Allocate(request->kv, 0, load_tokens, hit_blocks_, request->block_keys)) break;
        request->TransitionTo(RequestState::kLoadingKv);
        request->num_computed_tokens = hit_tokens + load_tokens;
        if (request->cached_tokens < 0) request->cached_tokens = hit_tokens + load_tokens;
        request->kv_load_done = cpu_tier_->StartLoad(now, cpu_blocks);
        if (request->kv_load_done > now) ++index;  // else admitted on the next pass, now
        continue;
      }
      new_tokens = std::min(request->num_tokens - hit_tokens, budget);
      if (!cache_.Allocate(request->kv, 0, new_tokens, hit_blocks_, request->block_keys)) break;
      context = hit_tokens;
      if (request->remote_tokens > 0) remote_reads_.push_back({request->id, now});  // nothing to pull
      request->remote_tokens = 0;
      if (request->cached_tokens < 0) request->cached_tokens = hit_tokens;
    }
    waiting_.erase(waiting_.begin() + static_cast<std::ptrdiff_t>(index));
    Admit(request, context, new_tokens, plan, budget);
  }
}

std::optional<TimePoint> VllmV1Scheduler::NextLoadDone(TimePoint now) const {
  std::optional<TimePoint> next;
  for (const VllmRequest* request : waiting_) {
    if (request->state != RequestState::kLoadingKv || request->kv_load_done <= now) continue;
    if (!next || request->kv_load_done < *next) next = request->kv_load_done;
  }
  return next;
}

int64_t VllmV1Scheduler::ReleaseLoadedBlocks(TimePoint now) {
  int64_t released = 0;
  for (VllmRequest* request : waiting_) {
    if (request->state != RequestState::kLoadingKv || request->kv_load_done > now) continue;
    cache_.Free(request->kv);
    request->num_computed_tokens = 0;
    ++request->preemptions;
    ++preemptions_;
    request->TransitionTo(RequestState::kPreempted);
    ++released;
  }
  return released;
}

void VllmV1Scheduler::Remove(const VllmRequest* request) {
  // Aborted before its pull started: the prefill side need not wait.
  if (request->remote_tokens > 0 && request->state != RequestState::kLoadingKv) {
    remote_reads_.push_back({request->id, TimePoint{}});
  }
  std::erase(waiting_, request);
  std::erase(running_, request);
}

void VllmV1Scheduler::RemoveFinished() {
  std::erase_if(running_,
                [](const VllmRequest* r) { return r->state == RequestState::kFinished; });
}

}  // namespace efimsim
