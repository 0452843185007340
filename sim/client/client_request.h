#pragma once
// What a client sends to an engine, and the engine's answer back.

#include <cstdint>
#include <vector>

#include "sim/base/time.h"
#include "sim/base/tokens.h"

namespace efimsim {

struct ClientRequest {
  uint64_t request_id = 0;       // unique within a run, in send order
  int64_t user = 0;              // the user or session it belongs to; -1: none (request records)
  int64_t round = 0;
  // The prompt's token ids. Imported traces that carry no ids leave it
  // empty and give `prompt_length` instead (and, when the trace has them,
  // keys of the prompt's full blocks: equal keys mean equal blocks).
  TokenVector prompt;
  int64_t prompt_length = 0;               // used only when `prompt` is empty
  // Closed-loop rounds: how many leading tokens of `prompt` equal the prompt
  // of this user's previous round (0: none, or not known), and whether the
  // user sends another round after this one. An engine may keep what it
  // computed from a prompt for the user's next round and reuse it for the
  // shared tokens (vLLM's block keys) instead of computing it again: the
  // same values, less work. Nothing simulated depends on them.
  int64_t prompt_tokens_shared_with_previous_round = 0;
  bool next_round_follows = false;
  // Positions [prompt_unmade_begin, prompt_unmade_end) of `prompt` hold
  // unspecified ids: the client did not make them (the repeated suffix of
  // an EFIM round), because the sink said it would not read them
  // (RequestSink::UnreadPromptTokens). Empty, the default: every id is
  // made. An engine that reads ids there has a bug, and checks.
  int64_t prompt_unmade_begin = 0;
  int64_t prompt_unmade_end = 0;
  std::vector<uint64_t> prompt_block_keys; // optional, with `prompt_length`
  int32_t block_key_tokens = 0;            // tokens each key covers
  // The request's cap on generated tokens (an API's max_tokens): all an
  // engine knows about when the request will stop, so its admission and
  // context checks read only this.
  int64_t max_tokens = 0;
  // Tokens the model generates before it stops by itself, as the
  // output-length model drew them (<= max_tokens; 0: none drawn, it runs to
  // max_tokens). Only the replica's token emission reads it; an engine
  // cannot know it in advance.
  int64_t output_length = 0;
  // The tokens the completion should produce, where the workload knows them
  // (text workloads: the text the developer types next, tokenized); empty
  // when it does not. Only speculative decoding reads them: the target
  // model is assumed to generate exactly these tokens first, so draft
  // proposers (n-gram, suffix) are verified against real code.
  TokenVector reference_output;
  TimePoint sent;                 // arrival at the engine (no network delay)
  // Disaggregated serving (sim/run/disaggregated_router.h): prompt tokens
  // whose KV a prefill replica computed, which the decode replica pulls over
  // its KV link past its own prefix-cache hit instead of computing them.
  // 0: co-located (every prompt token is computed or a cache hit).
  int64_t remote_prefill_tokens = 0;
  // Disaggregated serving, prefill side: when the request finishes, its KV
  // stays allocated until the decode replica has read it
  // (EngineReplica::ReleaseHeldKv), as vLLM's NixlConnector delays freeing
  // the blocks of a request sent on for remote decode.
  bool hold_kv_until_read = false;

  int64_t prompt_tokens() const {
    return prompt.empty() ? prompt_length : static_cast<int64_t>(prompt.size());
  }
  bool every_prompt_id_made() const { return prompt_unmade_end <= prompt_unmade_begin; }
};

// The engine side of the client: accepts requests at Now().
class RequestSink {
 public:
  virtual ~RequestSink() = default;
  virtual void Submit(ClientRequest request) = 0;
  // How many leading tokens of `user`'s round `round` prompt a request
  // submitted now would never read, given that its first `shared_tokens`
  // repeat the user's previous prompt (the engine kept what it needs of
  // them). The client may leave ids there unmade
  // (ClientRequest::prompt_unmade_begin). 0, the default: it reads them all.
  virtual int64_t UnreadPromptTokens(int64_t /*user*/, int64_t /*round*/,
                                     int64_t /*shared_tokens*/) const {
    return 0;
  }
  // Aborts a request the client no longer wants (a stale completion). Its
  // blocks are freed and stay cached. A no-op for an unknown or finished id.
  virtual void Cancel(uint64_t request_id) = 0;
};

}  // namespace efimsim
