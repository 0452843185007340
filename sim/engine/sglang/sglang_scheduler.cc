#include "sim/engine/sglang/sglang_scheduler.h"

#include <algorithm>

#include "sim/base/check.h"

namespace efimsim {

int64_t SglangDefaultChunkedPrefill(double gpu_memory_gib) {
  if (gpu_memory_gib < 35) return 2048;
  if (gpu_memory_gib < 160) return 8192;
  return 16384;
}

int64_t SglangDefaultMaxRunning(int64_t kv_tokens, int64_t context_tokens) {
  const int64_t context = context_tokens > 0 ? context_tokens : 2048;
  const int64_t pool = std::clamp<int64_t>(kv_tokens / context * 512, 2048, 4096);
  return std::max<int64_t>(1, std::min(kv_tokens / 2, pool));
}

SglangScheduler::SglangScheduler(SglangLimits limits, RadixCache& cache)
    : limits_(limits), cache_(cache) {
  EFIMSIM_CHECK(limits_.chunked_prefill_size >= 1 && limits_.max_running_requests >= 1 &&
                    limits_.max_prefill_tokens >= 1,
                "sglang limits must be positive");
  init_ratio_ = std::min(kInitNewTokenRatio * limits_.schedule_conservativeness, 1.0);
  min_ratio_ = std::min(init_ratio_ * kMinNewTokenRatioFactor, 1.0);
  ratio_decay_ = (init_ratio_ - min_ratio_) / kNewTokenRatioDecaySteps;
  new_token_ratio_ = init_ratio_;
}

void SglangScheduler::MatchPrefix(SglangRequest* request) {
  const int64_t n = request->num_tokens;
  const RadixMatch match = cache_.Match(request->tokens, n - 1);
  request->match_tokens = match.length;
  request->last_node = match.last;
}

double SglangScheduler::RemTotal(const Budget& budget) const {
  return static_cast<double>(cache_.available() + cache_.evictable()) - budget.total_offset;
}

SglangScheduler::AddResult SglangScheduler::BudgetState(const Budget& budget) const {
  if (RemTotal(budget) <= 0) return AddResult::kNoToken;
  if (budget.rem_input <= 0 || budget.rem_chunk <= 0) return AddResult::kOther;
  return AddResult::kContinue;
}

void SglangScheduler::Schedule(StepPlan& plan, TimePoint now) {
  plan.Clear();
  if (kv_link_ != nullptr) ServeRemote(now);
  if (SchedulePrefill(plan)) return;
  if (!running_.empty()) ScheduleDecode(plan);
}

void SglangScheduler::ServeRemote(TimePoint now) {
  while (!remote_waiting_.empty() &&
         static_cast<int64_t>(running_.size() + pulling_.size()) < limits_.max_running_requests) {
    SglangRequest* r = remote_waiting_.front();
    // The decode side pulls every prompt token but the last (computed by its
    // first decode step); no prefix is matched (ChunkCache).
    const int64_t pulled = std::min(r->remote_tokens, r->num_tokens) - 1;
    const int64_t others = static_cast<int64_t>(running_.size() + pulling_.size());
    const int64_t room = cache_.available() + cache_.evictable() - kDecodeReservedTokens * others;
    const int64_t need = others == 0 ? pulled : pulled + kDecodeReservedTokens;
    if (need > room || !cache_.Allocate(pulled)) break;
    remote_waiting_.pop_front();
    r->num_computed_tokens = pulled;
    r->kv_load_done = pulled > 0 ? kv_link_->StartTransfer(now, pulled) : now;
    remote_reads_.push_back({r->id, r->kv_load_done});
    r->parts.kv_pulled_tokens += pulled;
    r->parts.kv_pull += r->kv_load_done - now;
    if (r->cached_tokens < 0) r->cached_tokens = 0;
    r->TransitionTo(RequestState::kLoadingKv);
    pulling_.push_back(r);
  }
  // Done pulls join the running batch, in the order they were pre-allocated.
  std::erase_if(pulling_, [&](SglangRequest* r) {
    if (r->kv_load_done > now) return false;
    r->remote_tokens = 0;
    r->TransitionTo(RequestState::kRunning);
    running_.push_back(r);
    return true;
  });
}

std::optional<TimePoint> SglangScheduler::NextPullDone(TimePoint now) const {
  std::optional<TimePoint> next;
  for (const SglangRequest* r : pulling_) {
    if (r->kv_load_done > now && (!next || r->kv_load_done < *next)) next = r->kv_load_done;
  }
  return next;
}

// One prefill batch (get_new_batch_prefill) into `plan`, or false with
// nothing planned, locked or allocated.
bool SglangScheduler::SchedulePrefill(StepPlan& plan) {
  if (waiting_.empty() && chunked_ == nullptr) return false;
  if (static_cast<int64_t>(running_.size()) >= limits_.max_running_requests) return false;
  const bool lpm = SortWaitingByPrefix();
  Budget budget = StartBudget();
  SglangRequest* new_chunked = ContinueChunked(budget, plan);
  AdmitWaiting(lpm, budget, plan, new_chunked);
  if (plan.sequences.empty()) return false;
  // Remove the admitted requests: AdmitWaiting takes waiting_ in order and
  // stops at the first it refuses, so they are its first entries (a scan
  // of the whole queue for their state cost a cache miss a request).
  const auto admitted = static_cast<std::ptrdiff_t>(order_scratch_.size());
  for (std::ptrdiff_t i = 0; i < admitted; ++i) {
    EFIMSIM_CHECK(waiting_[static_cast<size_t>(i)] == order_scratch_[static_cast<size_t>(i)] &&
                      waiting_[static_cast<size_t>(i)]->state == RequestState::kRunning,
                  "sglang admitted requests are the head of the waiting queue");
  }
  waiting_.erase(waiting_.begin(), waiting_.begin() + admitted);
  chunked_ = new_chunked;
  AllocatePrefill(plan);
  return true;
}

// Whether this batch orders by lpm; if so, every waiting request is matched
// (match_tokens, last_node) and the queue sorted, stably, longest first.
bool SglangScheduler::SortWaitingByPrefix() {
  // Priority: lpm sorts by cached prefix (matching also refreshes LRU
  // times and splits nodes, as SGLang's calc_priority does).
  const bool lpm = limits_.lpm && cache_.enabled() &&
                   static_cast<int64_t>(waiting_.size()) <= kLpmQueueCutoff;
  if (lpm) {
    for (SglangRequest* r : waiting_) MatchPrefix(r);
    std::stable_sort(waiting_.begin(), waiting_.end(),
                     [](const SglangRequest* a, const SglangRequest* b) {
                       return a->match_tokens > b->match_tokens;
                     });
  }
  return lpm;
}

// The batch's budgets before anything is admitted: rem_total reserves
// min(max_new - output, 4096) x new_token_ratio slots per running request;
// rem_input and rem_chunk are max_prefill_tokens and chunked_prefill_size.
SglangScheduler::Budget SglangScheduler::StartBudget() const {
  Budget budget;
  for (const SglangRequest* r : running_) {
    const int64_t remaining = r->max_output_tokens - r->output_tokens;
    budget.total_offset +=
        static_cast<double>(std::min(remaining, kClipMaxNewTokens)) * new_token_ratio_;
  }
  budget.rem_input = limits_.max_prefill_tokens;
  budget.rem_chunk = limits_.chunked_prefill_size;
  return budget;
}

// A pending chunked request continues first: plans its next chunk (at most
// rem_chunk tokens) and charges it, reserving its outputs only with its last
// chunk. Returns the request if this chunk is not its last, else null (also
// when none is pending).
SglangRequest* SglangScheduler::ContinueChunked(Budget& budget, StepPlan& plan) {
  SglangRequest* r = chunked_;
  if (r == nullptr) return nullptr;
  const int64_t remaining = r->num_tokens - r->num_computed_tokens;
  const bool truncated = remaining > budget.rem_chunk;
  const int64_t extend = std::min(remaining, budget.rem_chunk);
  plan.sequences.push_back({r, extend, r->num_computed_tokens});
  const int64_t out_left = r->max_output_tokens - r->output_tokens;
  budget.Take(extend, truncated ? 0 : std::min(out_left, kClipMaxNewTokens));
  counters_.query_tokens += extend;
  return truncated ? r : nullptr;
}

// Then each waiting request in queue order (matched now under fcfs; lpm
// matched them all before sorting), while fewer than
// max_running_requests - running are planned, stopping at the first one
// refused or once a budget runs out. Admitted requests are planned, locked
// and kRunning but still in `waiting_`; one admitted in part becomes
// `new_chunked`.
void SglangScheduler::AdmitWaiting(bool lpm, Budget& budget, StepPlan& plan,
                                   SglangRequest*& new_chunked) {
  const int64_t allocatable =
      limits_.max_running_requests - static_cast<int64_t>(running_.size());
  std::vector<SglangRequest*>& admitted = order_scratch_;
  admitted.clear();
  for (SglangRequest* r : waiting_) {
    if (static_cast<int64_t>(plan.sequences.size()) >= allocatable) break;
    EFIMSIM_CHECK(r->num_computed_tokens == 0, "waiting sglang request with progress");
    if (!lpm) MatchPrefix(r);
    const int64_t scheduled = FitWaiting(r, plan.sequences.empty(), budget, new_chunked);
    if (scheduled == 0) break;
    Admit(r, scheduled, plan);
    admitted.push_back(r);
    if (BudgetState(budget) != AddResult::kContinue) break;
  }
}

// PrefillAdder.add_one_req's budget checks for waiting request `r`
// (its prefix matched). Returns the tokens it computes this step, all of its
// extend or (when that exceeds rem_chunk) a whole number of pages, then
// setting new_chunked to it; its prefix is locked and the budgets charged.
// Returns 0 when refused: nothing locked, charged or set.
int64_t SglangScheduler::FitWaiting(SglangRequest* r, bool batch_empty, Budget& budget,
                                    SglangRequest*& new_chunked) {
  const int64_t page = cache_.page_size();
  const int64_t extend = r->num_tokens - r->match_tokens;
  const int64_t out_left = std::min(r->max_output_tokens - r->output_tokens,
                                    kClipMaxNewTokens);
  const int64_t total = extend + out_left;
  if (static_cast<double>(total) >= RemTotal(budget)) return 0;  // NO_TOKEN
  const int64_t input = (extend + page - 1) / page * page;
  if (input >= budget.rem_input && !batch_empty) return 0;  // OTHER
  cache_.IncLock(r->last_node);  // locking moves the prefix out of `evictable`
  if (static_cast<double>(total) > RemTotal(budget)) {
    cache_.DecLock(r->last_node);
    return 0;
  }
  if (input > budget.rem_chunk) {
    const int64_t trunc = budget.rem_chunk / page * page;
    if (trunc <= 0) {
      cache_.DecLock(r->last_node);
      return 0;
    }
    new_chunked = r;
    budget.Take(trunc, 0);
    return trunc;
  }
  budget.Take(input, out_left);
  return extend;
}

// Admits `r` (FitWaiting took it) with `scheduled` new tokens after its
// prefix: takes the prefix's slots, plans it, counts hits as SGLang logs
// them and sets it running.
void SglangScheduler::Admit(SglangRequest* r, int64_t scheduled, StepPlan& plan) {
  const int64_t prefix = r->match_tokens;
  // The request keeps the lock FitWaiting took and the prefix's slots.
  // Matched again, refreshing the path's LRU time: under lpm this stands
  // for SGLang's init_next_round_input match of the request; under fcfs
  // AdmitWaiting has just made that match and nothing was touched since,
  // so no order changes. The prefix is locked: it cannot have changed.
  MatchPrefix(r);
  EFIMSIM_CHECK(r->match_tokens == prefix, "sglang prefix changed");
  r->tree_tokens = prefix;
  plan.sequences.push_back({r, scheduled, prefix});
  ++counters_.lookups;
  counters_.hit_tokens += prefix;
  counters_.query_tokens += prefix + scheduled;
  if (r->cached_tokens < 0) r->cached_tokens = prefix;
  r->TransitionTo(RequestState::kRunning);
}

// Makes `plan` a prefill step: allocates every planned sequence's new slots
// and advances its computed tokens. Cannot fail after admission.
void SglangScheduler::AllocatePrefill(StepPlan& plan) {
  // Allocation after admission (prepare_for_extend); every admitted prefix
  // is locked, so eviction cannot take it.
  plan.kind = StepKind::kPrefill;
  for (ScheduledSequence& seq : plan.sequences) {
    SglangRequest* r = static_cast<SglangRequest*>(seq.request);
    EFIMSIM_CHECK(cache_.Allocate(seq.new_tokens), "sglang admission admitted more KV than exists");
    r->num_computed_tokens = seq.context_tokens + seq.new_tokens;
    plan.total_tokens += seq.new_tokens;
  }
}

void SglangScheduler::ScheduleDecode(StepPlan& plan) {
  const int64_t need = static_cast<int64_t>(running_.size());
  if (cache_.available() < need) cache_.Evict(need);
  if (cache_.available() < need) {
    Retract(plan);
  } else {
    new_token_ratio_ = std::max(new_token_ratio_ - ratio_decay_, min_ratio_);
  }
  plan.kind = StepKind::kDecode;
  for (SglangRequest* r : running_) {
    EFIMSIM_CHECK(cache_.Allocate(1), "sglang decode could not get a slot after retracting");
    plan.sequences.push_back({r, 1, r->num_computed_tokens});
    r->num_computed_tokens += 1;
    EFIMSIM_CHECK(r->num_computed_tokens == r->num_tokens, "decode of an unfinished prefill");
  }
  plan.total_tokens = static_cast<int64_t>(plan.sequences.size());
}

void SglangScheduler::Retract(StepPlan& plan) {
  std::vector<SglangRequest*> order = running_;
  std::stable_sort(order.begin(), order.end(), [](const SglangRequest* a, const SglangRequest* b) {
    if (a->output_tokens != b->output_tokens) {
      return a->output_tokens > b->output_tokens;
    }
    return a->prompt_tokens < b->prompt_tokens;
  });
  bool first = true;
  while (true) {
    const int64_t required = static_cast<int64_t>(order.size()) * kRetractDecodeSteps;
    if (!first) {
      if (cache_.available() < required) cache_.Evict(required - cache_.available());
      if (cache_.available() >= required) break;
    }
    if (order.size() == 1) break;
    first = false;
    SglangRequest* victim = order.back();
    order.pop_back();
    // release_kv_cache(is_insert=False): the tree keeps what it has.
    cache_.Free(victim->OwnSlots());
    cache_.DecLock(victim->last_node);
    victim->tree_tokens = 0;
    victim->last_node = nullptr;
    victim->num_computed_tokens = 0;
    ++victim->preemptions;
    victim->TransitionTo(RequestState::kPreempted);
    std::erase(running_, victim);
    waiting_.push_back(victim);
    ++plan.preempted;
    ++counters_.retractions;
  }
  int64_t decoded = 0, max_new = 0;
  for (const SglangRequest* r : running_) {
    decoded += r->output_tokens;
    max_new += r->max_output_tokens;
  }
  new_token_ratio_ = std::min(
      1.0, static_cast<double>(decoded + kRetractDecodeSteps * static_cast<int64_t>(running_.size())) /
               static_cast<double>(std::max<int64_t>(max_new, 1)));
}

void SglangScheduler::CacheUnfinished(SglangRequest* r) {
  if (!cache_.enabled()) return;
  const int64_t computed = r->num_computed_tokens;
  const TokenSpan tokens = TokenSpan(r->tokens).first(static_cast<size_t>(computed));
  // The tree takes the slots of [present, inserted) (its new leaf); the
  // request's slots for [tree_tokens, present) duplicate the tree's and are
  // freed; it keeps [inserted, computed) (a partial page).
  const int64_t present = cache_.Insert(tokens);
  if (present > r->tree_tokens) cache_.Free(present - r->tree_tokens);
  const RadixMatch match = cache_.Match(tokens, computed);
  cache_.DecLock(r->last_node);
  cache_.IncLock(match.last);
  r->last_node = match.last;
  r->tree_tokens = match.length;
}

void SglangScheduler::AfterPrefill(const StepPlan& plan) {
  if (plan.kind != StepKind::kPrefill) return;
  for (const ScheduledSequence& seq : plan.sequences) {
    SglangRequest* r = static_cast<SglangRequest*>(seq.request);
    CacheUnfinished(r);
    if (r != chunked_) running_.push_back(r);
  }
}

void SglangScheduler::Release(SglangRequest* r) {
  const int64_t computed = r->num_computed_tokens;
  if (cache_.enabled()) {
    const TokenSpan tokens = TokenSpan(r->tokens).first(static_cast<size_t>(computed));
    const int64_t present = cache_.Insert(tokens);
    const int64_t inserted = computed / cache_.page_size() * cache_.page_size();
    // Duplicates of the tree's [tree_tokens, present), and the tail past
    // the last whole page; the new leaf took [present, inserted).
    if (present > r->tree_tokens) cache_.Free(present - r->tree_tokens);
    cache_.Free(computed - std::max(inserted, r->tree_tokens));
  } else {
    cache_.Free(r->OwnSlots());
  }
  cache_.DecLock(r->last_node);
  r->tree_tokens = 0;
  r->last_node = nullptr;
}

void SglangScheduler::RemoveFinished() {
  std::erase_if(running_, [](const SglangRequest* r) { return r->state == RequestState::kFinished; });
}

void SglangScheduler::Remove(const SglangRequest* request) {
  // Aborted before its pull started: the prefill side need not wait.
  if (std::erase(remote_waiting_, request) > 0) remote_reads_.push_back({request->id, TimePoint{}});
  std::erase(pulling_, request);
  std::erase(waiting_, request);
  std::erase(running_, request);
  if (chunked_ == request) chunked_ = nullptr;
}

}  // namespace efimsim
