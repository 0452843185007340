#pragma once
// Suffix decoding drafts (vLLM speculative method "suffix"): a draft is the
// most frequent continuation of the sequence's last tokens in a suffix trie
// over this request's prompt and output, or over earlier (and concurrent)
// requests' outputs, whichever scores higher.
//
// Reproduces, for path (non-tree) speculation:
//   - SuffixTree (csrc/suffix_decoding/suffix_tree.{h,cc}) and
//     SuffixDecodingCache (arctic_inference/suffix_decoding/cache.py) of
//     Snowflake's ArcticInference v0.1.1 (github.com/snowflakedb/
//     ArcticInference; suffix decoding files unchanged since commit 8d5d124,
//     2025-10-19, which v0.1.0 and v0.1.1 ship). v0.1.1 is the version vLLM's
//     SpeculativeConfig._validate_suffix_decoding asks for.
//   - SuffixDecodingProposer.propose of vLLM
//     (vllm/v1/spec_decode/suffix_decoding.py), per request and step.
// Deviations (details in sim/engine/spec_decode/README.md): tree speculation
// (use_tree_spec) is not implemented (vLLM does not use it); max_spec_tokens
// has no default; precondition failures are EFIMSIM_CHECKs; the memory
// layout differs (see Cost), never a result. Older arctic-inference (0.0.10,
// the release before 0.1.0) matched longest-first and broke count ties by
// hash-table order: its drafts can differ.
//
// The trie (SuffixTree). Every sequence s of length L contributes its
// suffixes s[i, min(L, i + max_depth)) for every i: each suffix is cut at
// max_depth tokens. count(w) = how many of these suffixes, over all
// sequences, start with the token string w. A node's children are kept in
// "sibling order": non-increasing count, and among equal counts in an order
// that results from these rules (upstream's linked list and count groups):
//   - a new child (count 1) goes last;
//   - a child whose count goes from c to c+1 goes first among the children
//     of count c+1 if it was first among those of count c, else last among
//     those of count c+1;
//   - a child whose count goes from c to c-1 goes first among those of
//     count c-1;
//   - a child whose count reaches 0 disappears, the others keep their order.
// Path compression keeps chains of single-continuation nodes as one node
// that refers to its tokens inside a stored sequence.
//
// Speculation (SuffixTree::Speculate), for a context c (at most max_depth
// tokens; longer ones are cut to their last max_depth):
//   for match_len = 1, 2, ..., |c| - 1 (the whole context is never matched):
//     stop at the first match_len whose last match_len tokens of c are not a
//     string of the trie. Otherwise walk on from there, emitting tokens while
//     fewer than max_tokens = max(0, min(max_spec_tokens,
//     int(float(match_len) * max_spec_factor + max_spec_offset + 1e-6)))
//     are emitted and the running probability p >= min_token_prob: inside a
//     node emit the next token with probability p; at a node's end step into
//     its FIRST child in sibling order with p *= count(child) / count(node)
//     (float arithmetic), or stop if it has none.
//     score = sum of the emitted p. Keep this draft if score >= the best so
//     far (so a longer match wins ties).
// The cache speculates in the request's own tree and in the global tree and
// returns the request's own draft if its score >= the global one's.
//
// Cost: appending a token is O(max_depth) trie steps (one per open suffix)
// plus, for each count change, a binary search and a move among the
// node's children of equal count (upstream: O(1) with linked lists; here
// the move is a memmove inside one vector, which only the root's large
// groups of equal counts make long). Speculate is O(max_depth^2 +
// max_spec_tokens) per tree. Removing a sequence of L tokens is
// O(L * max_depth). Memory: at most about 2 nodes per stored token (1.3
// measured on a 16k-token synthetic sequence), each about 150 bytes with its
// slot in the parent's child vector and its child-index entry, plus 4 bytes
// per stored token: roughly 200-300 bytes per token.

#include <cstdint>
#include <limits>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/base/tokens.h"

namespace efimsim {

// One speculation result (arctic's Draft). probs[i] is the estimated
// probability of token_ids[i]; score = sum of probs; match_len = the
// context match it came from (0 when empty).
struct SuffixDraft {
  TokenVector token_ids;
  std::vector<float> probs;
  float score = 0.0f;
  int32_t match_len = 0;
};

// A suffix trie over several token sequences, each cut at max_depth
// tokens (see above). Sequences are named by non-negative int32 ids.
class SuffixTree {
 public:
  // Precondition: max_depth >= 1.
  explicit SuffixTree(int32_t max_depth);
  ~SuffixTree();
  SuffixTree(const SuffixTree&) = delete;
  SuffixTree& operator=(const SuffixTree&) = delete;

  int32_t max_depth() const { return max_depth_; }
  int32_t num_seqs() const { return static_cast<int32_t>(sequences_.size()); }

  // Appends tokens to sequence `seq_id`, creating it if new.
  void Extend(int32_t seq_id, TokenSpan tokens);
  void Append(int32_t seq_id, TokenId token);

  // Removes sequence `seq_id` and all its suffixes. No-op if absent.
  void Remove(int32_t seq_id);

  // Path speculation as described above. max_spec_tokens < 0 counts as 0.
  SuffixDraft Speculate(TokenSpan context, int32_t max_spec_tokens, float max_spec_factor,
                        float max_spec_offset, float min_token_prob) const;

  // For tests: "" if every node count equals the number of stored suffixes
  // through it, sibling order is non-increasing, parent/child links and
  // token references agree; else the first problem found. O(total tokens *
  // max_depth).
  std::string CheckIntegrity() const;

  // Nodes in the trie, root included (memory accounting and tests).
  int64_t num_nodes() const { return num_nodes_; }

 private:
  struct Node;
  struct Sequence;
  struct ChildKey {
    const Node* parent;
    TokenId token;
    bool operator==(const ChildKey& other) const {
      return parent == other.parent && token == other.token;
    }
  };
  struct ChildKeyHash {
    size_t operator()(const ChildKey& key) const;
  };

  // Sibling-order maintenance (rules in the file comment).
  static size_t PositionOf(const Node* node);
  static void IncrementCount(Node* node);
  static void DecrementCount(Node* node);

  Node* FindChild(const Node* node, TokenId token) const;
  TokenId FirstToken(const Node* node) const;
  const TokenId* TokensOf(const Node* node) const;
  void SetRef(Node* node, Sequence* sequence, int32_t end);
  void DropRef(Node* node);
  Node* NewNode(Node* parent, int64_t count, int32_t length, Sequence* sequence, int32_t end);
  void ForgetSubtree(Node* node);
  SuffixDraft SpeculatePath(const Node* node, int32_t index, int32_t max_tokens,
                            float min_token_prob) const;
  void ExtendCursor(Sequence* sequence, Node*& cursor, TokenId token);
  void MergeIntoOnlyChild(Node* node);

  int32_t max_depth_;
  std::unique_ptr<Node> root_;
  // Live sequences by id. A removed sequence's tokens stay allocated while
  // a node still refers to them (see Sequence in the .cc).
  std::map<int32_t, Sequence*> sequences_;
  // (parent, first token of child) -> child, for every non-root node.
  // Lookups only: its iteration order never affects a result.
  std::unordered_map<ChildKey, Node*, ChildKeyHash> children_by_token_;
  int64_t num_nodes_ = 1;
};

// arctic's SuffixDecodingCache: one tree per active request (its prompt
// followed by its output so far), one global tree of request outputs
// (those of active requests too, as they grow), bounded to
// max_cached_requests outputs with FIFO eviction by StartRequest order.
// Request ids are the simulator's (uint64).
class SuffixDecodingCache {
 public:
  // max_cached_requests: -1 = no limit, 0 = no global tree.
  SuffixDecodingCache(int32_t max_tree_depth, int32_t max_cached_requests);

  int32_t max_tree_depth() const { return max_tree_depth_; }
  int32_t max_cached_requests() const { return max_cached_requests_; }
  bool IsActive(uint64_t request_id) const { return local_trees_.count(request_id) > 0; }
  bool IsCached(uint64_t request_id) const { return seq_by_request_.count(request_id) > 0; }
  // Active request ids in increasing order.
  std::vector<uint64_t> ActiveRequests() const;
  int32_t num_cached() const { return static_cast<int32_t>(seq_by_request_.size()); }

  // Starts a request: builds its tree from the prompt and, if the global
  // tree is on, gives it a slot there (evicting its own earlier output if
  // cached, then the oldest outputs while over the limit; never the new
  // one). Precondition: not active.
  void StartRequest(uint64_t request_id, TokenSpan prompt);
  // Drops the request's own tree; its output stays in the global tree
  // until evicted. Precondition: active.
  void StopRequest(uint64_t request_id);
  // Appends output tokens to the request's tree and, while it is cached, to
  // its output in the global tree. Precondition: active.
  void AddActiveResponse(uint64_t request_id, TokenSpan tokens);
  // Removes the request's output from the global tree. Precondition: cached.
  void EvictCachedResponse(uint64_t request_id);

  // The better (by score, own tree on ties) of the two trees' drafts for
  // the last max_tree_depth tokens of `context`. Precondition: active.
  SuffixDraft Speculate(uint64_t request_id, TokenSpan context, int32_t max_spec_tokens,
                        float max_spec_factor = 1.0f, float max_spec_offset = 0.0f,
                        float min_token_prob = 0.1f) const;

  const SuffixTree& global_tree() const { return global_tree_; }

 private:
  int32_t AllocateSeqId(uint64_t request_id);

  int32_t max_tree_depth_;
  int32_t max_cached_requests_;
  SuffixTree global_tree_;
  std::map<uint64_t, std::unique_ptr<SuffixTree>> local_trees_;
  // Cached outputs in insertion (eviction) order, and the index into it.
  std::list<std::pair<uint64_t, int32_t>> cached_in_order_;
  std::map<uint64_t, std::list<std::pair<uint64_t, int32_t>>::iterator> seq_by_request_;
  std::map<int32_t, uint64_t> request_by_seq_;
  int32_t next_seq_id_ = 0;
};

// vLLM's SpeculativeConfig fields for method "suffix" (defaults as vLLM's).
struct SuffixDecodingConfig {
  // Most draft tokens per step; unset -> max_tree_depth (vLLM's default).
  std::optional<int32_t> num_speculative_tokens;
  int32_t max_tree_depth = 24;          // suffix_decoding_max_tree_depth
  int32_t max_cached_requests = 10000;  // suffix_decoding_max_cached_requests
  float max_spec_factor = 1.0f;         // suffix_decoding_max_spec_factor
  float min_token_prob = 0.1f;          // suffix_decoding_min_token_prob
  // model_config.max_model_len, in tokens; the default means no limit.
  int64_t max_model_len = std::numeric_limits<int64_t>::max();

  int32_t EffectiveNumSpeculativeTokens() const {
    return num_speculative_tokens ? *num_speculative_tokens : max_tree_depth;
  }
};

// "" when vLLM accepts `config`, else a one-line message in vLLM's words:
// num_speculative_tokens > 0 if given, max_tree_depth >= 1,
// max_cached_requests >= 0, max_spec_factor >= 0, min_token_prob in [0, 1];
// and max_model_len >= 1 (implied in vLLM).
std::string ValidateSuffixDecodingConfig(const SuffixDecodingConfig& config);

// vLLM's SuffixDecodingProposer: drives a SuffixDecodingCache the way
// vLLM's model runner does, one request at a time.
class SuffixDecodingProposer {
 public:
  // Precondition: ValidateSuffixDecodingConfig(config) is "".
  explicit SuffixDecodingProposer(const SuffixDecodingConfig& config);

  // The draft for one request in this step (the loop body of vLLM's
  // propose). `history` = prompt + every token generated so far, including
  // `sampled` (vLLM's token_ids_cpu[:num_tokens_no_spec]); `num_prompt_tokens`
  // its prompt length; `sampled` = the tokens this step produced for it
  // (empty for a partial prefill: then no draft and no state change).
  // A request that is not active is started from its PROMPT only (after
  // evicting any cached output of the same id), so a request stopped by
  // StopRequestsNotIn and resumed loses its earlier output, as in vLLM.
  // The draft budget is min(k, max_model_len - |history| - 1); no draft
  // once |history| >= max_model_len.
  TokenVector Propose(uint64_t request_id, TokenSpan history, int64_t num_prompt_tokens,
                      TokenSpan sampled);

  // The end of vLLM's propose: stops every active request whose id is not
  // in `batch_request_ids` (the step's batch: finished, preempted and
  // unscheduled requests all leave it).
  void StopRequestsNotIn(std::span<const uint64_t> batch_request_ids);

  const SuffixDecodingCache& cache() const { return cache_; }
  SuffixDecodingCache& cache() { return cache_; }

 private:
  SuffixDecodingConfig config_;
  SuffixDecodingCache cache_;
};

}  // namespace efimsim
