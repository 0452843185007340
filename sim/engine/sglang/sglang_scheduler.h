#pragma once
// SGLang's scheduler (python/sglang/srt/managers/scheduler.py,
// schedule_policy.py, schedule_batch.py; version 0.5.3), synchronous (the
// overlap scheduler is not modelled), no mixed chunks, no speculative
// decoding, no priorities. Each rule is pinned by a test in
// tests/engine/sglang_scheduler_test.cc.
//
// One step (Schedule) is EITHER a prefill batch OR a decode batch:
//  1. Prefill first (get_new_batch_prefill). Nothing if the waiting queue
//     is empty and no chunked request is pending, or if max_running_requests
//     already run. Order: `lpm` sorts the waiting queue by the longest
//     cached prefix (stable, so ties keep arrival order); with more than 128
//     waiting it falls back to `fcfs` (SGLang's cut-off); `fcfs` keeps
//     arrival order. Admission (PrefillAdder):
//       rem_total = free + evictable slots
//                   - sum over running of min(max_new - output, 4096) * new_token_ratio
//                   - what this batch already took;
//     a pending chunked request continues first (its next chunk); then each
//     waiting request, matched against the radix tree (at most
//     num_tokens - 1 tokens, so one is always computed):
//       extend + min(max_new, 4096) >= rem_total   -> stop (NO_TOKEN)
//       extend >= rem_input and the batch is not empty -> stop
//       (lock its prefix; recheck rem_total > ...)  -> stop if not
//       extend <= rem_chunk: admitted whole; else its first
//       floor(rem_chunk / page) * page tokens (the new chunked request),
//     stopping when budgets run out or max_running_requests is reached.
//     Slots for the batch are allocated after admission (evicting LRU
//     leaves).
//  2. Otherwise decode every running request (one token each). If free
//     slots (after evicting) are fewer than the batch, retract: sort by
//     (output tokens, -prompt tokens) descending and pop from the back
//     (fewest outputs, then longest prompt) until free slots cover 20
//     decode steps of the rest (at least one, never the last); retracted
//     requests free their slots without inserting, keep their output and go
//     to the back of the waiting queue; new_token_ratio becomes
//     min(1, (decoded + 20 x running) / sum max_new). A decode step that
//     retracts nothing lowers new_token_ratio by its decay, down to its
//     minimum.
//  3. An idle scheduler resets new_token_ratio to its initial value.
// Disaggregated decode (PD mode, set_kv_link; disaggregation/decode.py): a
// request whose prompt a prefill replica computed waits in the pre-allocation
// queue, in arrival order, until its prompt fits: available + evictable
// slots minus kDecodeReservedTokens for each request running or pulling
// (num_reserved_decode_tokens; with none, it must only fit). Its slots are
// then allocated and its KV pulled over the link; when the pull is done it
// joins the running batch at the next step. efimsim's simplification, as
// for vLLM: the pull leaves the last prompt token to the decode side, whose
// first decode step computes it and emits the first token (SGLang streams
// the prefill's first token when the request joins, one step earlier).
// new_token_ratio: initial min(0.7 x schedule_conservativeness, 1); minimum
// initial x 0.14; decay (initial - minimum) / 600 per decode step.
// Caching (radix_cache.h): after a prefill chunk or a whole prompt, the
// computed tokens are inserted (cache_unfinished_req) and the request
// relocks the new path; a finished or aborted request inserts its computed
// tokens (prompt + output but the last) and unlocks (cache_finished_req).
// Hit counters as SGLang logs them: per prefill batch, hits = matched
// prefix of newly admitted requests, queries = hits + every prefill token.

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "sim/engine/sglang/radix_cache.h"
#include "sim/engine/engine_core.h"
#include "sim/engine/kv_link.h"
#include "sim/engine/remote_kv_read.h"
#include "sim/engine/request.h"

namespace efimsim {

// A request inside the SGLang engine: the shared lifecycle plus its token
// stream and KV slots. While it holds KV (running or loading it), the KV of
// tokens [0, num_computed_tokens) is in slots: those of [0, tree_tokens) are
// the tree's (locked through last_node), the rest its own
// (OwnSlots()).
struct SglangRequest : Request {
  TokenVector tokens;             // prompt, then generated tokens
  int64_t tree_tokens = 0;        // tokens [0, tree_tokens) have the tree's slots
  RadixNode* last_node = nullptr; // locked path end while it holds KV
  int64_t match_tokens = 0;       // cached prefix found by the last match
  // Disaggregated serving, decode side (ClientRequest::remote_prefill_tokens):
  // prompt tokens whose KV a prefill replica computed; 0 once pulled.
  int64_t remote_tokens = 0;
  TimePoint kv_load_done;         // kLoadingKv: when the pull completes
  // Prefill side: at finish the KV stays until the decode side has read it.
  bool hold_kv_until_read = false;

  // Slots it holds outside the tree (0 unless it holds KV).
  int64_t OwnSlots() const { return num_computed_tokens - tree_tokens; }
};

struct SglangLimits {
  int64_t chunked_prefill_size = 8192;
  int64_t max_running_requests = 4096;
  int64_t max_prefill_tokens = 16384;
  bool lpm = true;                 // false: fcfs
  double schedule_conservativeness = 1.0;
};

// SGLang's defaults derived from the hardware (server_args.py,
// model_runner.py, 0.5.3).
int64_t SglangDefaultChunkedPrefill(double gpu_memory_gib);
// min(kv_tokens / 2, clamp(kv_tokens / context x 512, 2048, 4096)).
int64_t SglangDefaultMaxRunning(int64_t kv_tokens, int64_t context_tokens);

struct SglangCounters {
  int64_t lookups = 0;        // requests admitted into a prefill batch
  int64_t query_tokens = 0;   // hits + prefill tokens, summed over prefill batches
  int64_t hit_tokens = 0;
  int64_t retractions = 0;
};

class SglangScheduler {
 public:
  static constexpr int64_t kClipMaxNewTokens = 4096;
  static constexpr int64_t kRetractDecodeSteps = 20;
  static constexpr int64_t kLpmQueueCutoff = 128;
  static constexpr double kInitNewTokenRatio = 0.7;
  static constexpr double kMinNewTokenRatioFactor = 0.14;
  static constexpr double kNewTokenRatioDecaySteps = 600;
  static constexpr int64_t kDecodeReservedTokens = 512;  // SGLANG_NUM_RESERVED_DECODE_TOKENS

  SglangScheduler(SglangLimits limits, RadixCache& cache);

  void AddWaiting(SglangRequest* request) { waiting_.push_back(request); }
  // A decode leg of disaggregated serving (remote_tokens > 0): to the
  // pre-allocation queue. Needs set_kv_link.
  void AddRemote(SglangRequest* request) { remote_waiting_.push_back(request); }
  // Optional (must outlive the scheduler); null: no request is pulled.
  void set_kv_link(KvLink* link) { kv_link_ = link; }
  // The earliest pull completion after `now`, if any.
  std::optional<TimePoint> NextPullDone(TimePoint now) const;
  // As VllmV1Scheduler::TakeRemoteReads (remote_kv_read.h).
  void TakeRemoteReads(std::vector<RemoteKvRead>& out) {
    out.insert(out.end(), remote_reads_.begin(), remote_reads_.end());
    remote_reads_.clear();
  }
  bool has_remote() const { return !remote_waiting_.empty() || !pulling_.empty(); }
  const std::deque<SglangRequest*>& remote_waiting() const { return remote_waiting_; }
  const std::vector<SglangRequest*>& pulling() const { return pulling_; }
  // Fills `plan` (cleared first; its requests are SglangRequests, its kind
  // kPrefill or kDecode); advances progress and allocates slots.
  void Schedule(StepPlan& plan, TimePoint now = TimePoint{});
  // After a step: inserts computed prompt tokens, moves completed prefills
  // into the running batch. Call before finishing requests of the step.
  void AfterPrefill(const StepPlan& plan);
  // Inserts the request's computed tokens and releases it (finish / abort).
  void Release(SglangRequest* request);
  // Removes a request from every queue (abort); the caller released its KV
  // first.
  void Remove(const SglangRequest* request);
  // Removes the step's finished requests (kFinished; only running requests
  // finish) from the running batch, in one pass; their KV was released.
  void RemoveFinished();
  void OnIdle() { new_token_ratio_ = init_ratio_; }

  const std::deque<SglangRequest*>& waiting() const { return waiting_; }
  const std::vector<SglangRequest*>& running() const { return running_; }
  SglangRequest* chunked() const { return chunked_; }
  double new_token_ratio() const { return new_token_ratio_; }
  const SglangCounters& counters() const { return counters_; }
  const SglangLimits& limits() const { return limits_; }

 private:
  enum class AddResult { kContinue, kNoToken, kOther };
  struct Budget {
    double total_offset = 0;  // reserve for running requests + this batch
    int64_t rem_input = 0;
    int64_t rem_chunk = 0;
    // Charges `extend` tokens to both token budgets and reserves
    // `extend + reserve` slots.
    void Take(int64_t extend, int64_t reserve) {
      total_offset += static_cast<double>(extend + reserve);
      rem_input -= extend;
      rem_chunk -= extend;
    }
  };
  bool SchedulePrefill(StepPlan& plan);
  // Disaggregated decode: pre-allocates and starts pulls, then moves done
  // pulls into the running batch.
  void ServeRemote(TimePoint now);
  // SchedulePrefill's steps, in the order it takes them: the hot path, so
  // inline, defined (with their contracts) in sglang_scheduler.cc, their
  // only user.
  inline bool SortWaitingByPrefix();
  inline Budget StartBudget() const;
  inline SglangRequest* ContinueChunked(Budget& budget, StepPlan& plan);
  inline void AdmitWaiting(bool lpm, Budget& budget, StepPlan& plan,
                           SglangRequest*& new_chunked);
  inline int64_t FitWaiting(SglangRequest* request, bool batch_empty, Budget& budget,
                            SglangRequest*& new_chunked);
  inline void Admit(SglangRequest* request, int64_t scheduled, StepPlan& plan);
  inline void AllocatePrefill(StepPlan& plan);
  void ScheduleDecode(StepPlan& plan);
  void Retract(StepPlan& plan);
  void CacheUnfinished(SglangRequest* request);
  void MatchPrefix(SglangRequest* request);
  double RemTotal(const Budget& budget) const;
  AddResult BudgetState(const Budget& budget) const;

  SglangLimits limits_;
  RadixCache& cache_;
  std::deque<SglangRequest*> waiting_;
  std::vector<SglangRequest*> running_;  // the decode batch, admission order
  SglangRequest* chunked_ = nullptr;     // a prompt part-way through chunked prefill
  KvLink* kv_link_ = nullptr;
  std::deque<SglangRequest*> remote_waiting_;  // decode legs before pre-allocation
  std::vector<SglangRequest*> pulling_;        // pre-allocated, KV on its way
  std::vector<RemoteKvRead> remote_reads_;
  std::vector<SglangRequest*> order_scratch_;
  double init_ratio_;
  double min_ratio_;
  double ratio_decay_;
  double new_token_ratio_;
  SglangCounters counters_;
};

}  // namespace efimsim
