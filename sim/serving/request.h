#pragma once
// A request inside the engine (vLLM v1's Request). Its token sequence is
// kept as block keys of its full blocks plus the tokens of the partial last
// block, so memory per request is O(tokens / block_tokens).

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/cache/prefix_cache_manager.h"
#include "sim/metrics/request_record.h"

namespace efimsim {

// Lifecycle; every change goes through Request::TransitionTo (checked).
//   kWaiting -> kRunning            first admission
//   kRunning -> kPreempted          preempted (blocks freed, progress reset)
//   kPreempted -> kRunning          re-admission (recompute)
//   kRunning -> kFinished           last token emitted
//   kWaiting | kPreempted -> kLoadingKv  CPU KV tier hit: blocks taken, load started
//   kLoadingKv -> kRunning          admitted after its load completed
//   kLoadingKv -> kPreempted        blocks given back to break a stall (see
//                                   VllmV1Scheduler::ReleaseLoadedBlocks)
//   kWaiting | kRunning | kPreempted | kLoadingKv -> kCancelled   the client aborted it
// (A request that can never fit is rejected at submission and never
// becomes a Request.)
enum class RequestState : uint8_t {
  kWaiting, kRunning, kPreempted, kFinished, kCancelled,
  kLoadingKv,  // holds blocks, waits in the waiting queue for a CPU KV tier load
};
const char* RequestStateName(RequestState state);

// How many requests ahead loops over running requests call Prefetch.
inline constexpr size_t kRequestPrefetchDistance = 4;

// The fields that every step reads or writes for every running request
// come first (the first 144 bytes, which Prefetch loads): the scheduler,
// the step start and the step completion each walk all running requests,
// and a request's first touch in a step is usually a cache miss. (Aligning
// the struct to a cache line measured slower: aligned allocation.)
struct Request {
  int64_t num_tokens = 0;           // prompt + output so far
  int64_t num_computed_tokens = 0;  // tokens whose KV is (being) computed
  KvSequence kv;                    // the cache manager's state for this request
  int64_t output_tokens = 0;
  int64_t max_output_tokens = 0;
  RequestState state = RequestState::kWaiting;
  // Keys of the token sequence's full blocks, and the tokens after the last
  // full block: kept only while tracks_block_keys, that is, for a cache with
  // prefix caching on. With it off (the baseline) nothing reads them, so
  // they stay empty and no block is hashed.
  bool tracks_block_keys = true;
  std::vector<BlockKey> block_keys;
  TokenVector tail_tokens;
  int64_t prompt_tokens = 0;
  TimePoint first_scheduled = TimePoint::max();
  TimePoint first_token = TimePoint::max();

  uint64_t id = 0;
  int64_t user = 0;
  int64_t round = 0;
  int64_t cached_tokens = -1;       // hit at first admission; -1 before it
  int64_t preemptions = 0;
  TimePoint arrival;
  TimePoint finish = TimePoint::max();
  TimePoint kv_load_done;           // kLoadingKv: when its CPU KV tier load completes

  // Starts loading the fields a step touches (a hint; changes nothing):
  // bytes [0, 144) lie in the three lines from `this` on, as the heap
  // aligns objects to 16 bytes. Loops over running requests call it a few
  // requests ahead.
  void Prefetch() const {
    const char* base = reinterpret_cast<const char*>(this);
    __builtin_prefetch(base);
    __builtin_prefetch(base + 64);
    __builtin_prefetch(base + 128);
  }

  void TransitionTo(RequestState next);
  // Appends one token to the sequence, extending block keys when a block
  // fills (if tracked). Inline: it runs for every generated token.
  void AppendToken(TokenId token, int32_t block_tokens) {
    ++num_tokens;
    if (!tracks_block_keys) return;
    tail_tokens.push_back(token);
    if (static_cast<int32_t>(tail_tokens.size()) == block_tokens) CloseTailBlock();
  }
  // Turns the full tail into the next block key.
  void CloseTailBlock();
  RequestRecord ToRecord() const;
};

}  // namespace efimsim
