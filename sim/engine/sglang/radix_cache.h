#pragma once
// SGLang's RadixCache (python/sglang/srt/mem_cache/radix_cache.py, 0.5.3)
// and the token-slot pool under it (TokenToKVPoolAllocator): KV memory is a
// pool of token slots, and the tree maps token sequences to the slots that
// hold their KV.
//
// Slots are counted, not named: which slot holds a token's KV changes no
// time, so the pool is a count of free slots, a node owns as many slots as
// its key has tokens, and a request owns the slots of its computed tokens
// past its tree prefix. (Named slots cost a copy of every token's slot id
// on each allocate, insert, match and evict: a sixth of an SGLang run's
// instructions.)
//
// Rules (each pinned by a test in tests/engine/radix_cache_test.cc):
//  - Match: walks from the root while the next `page_size` tokens equal a
//    child's key; a match that ends inside a node's key splits the node at
//    the boundary (the new parent keeps the matched part), so the returned
//    last node always ends exactly at the match. Every node on the matched
//    path gets a fresh access time (LRU). Matches are page-aligned: with
//    page_size p only whole pages are matched.
//  - Insert(tokens): walks like Match (splitting where the path diverges
//    inside a key, refreshing access times) and adds the unmatched rest as
//    a new leaf that takes over the caller's slots of those tokens. Returns
//    the length that was already in the tree: the caller's slots for [its
//    own prefix, that length) are duplicates and the caller frees them
//    (SGLang frees kv_indices[len(prefix_indices):new_prefix_len]).
//  - Locks: IncLock(node) / DecLock(node) add / remove one reference on
//    every node from `node` up to (not including) the root; tokens of
//    locked nodes are "protected", the others "evictable".
//  - Evict(n): frees least-recently-used unlocked leaves (ties: older node
//    first) until n tokens are freed or none is left; a parent that becomes
//    an unlocked leaf joins the candidates (SGLang's eviction heap).
//  - Allocate(n) evicts n tokens first when fewer than n slots are free
//    (SGLang asks the tree for the whole request), then takes n free
//    slots; it fails (taking nothing) when even that is not enough.
// Disabled cache (prefix caching off, SGLang's ChunkCache): Match returns 0
// and Insert stores nothing (returns 0); callers then free all their slots.
//
// Child lookup is keyed by the first page of a child's key; with page_size
// > 1 the key is a hash of that page, and a collision is treated as a
// mismatch (probability ~2^-64 per lookup).
// Not modelled: page-granular allocation (slots are taken one token at a
// time, so the unused tail of a request's last page is not charged), the
// hierarchical (host) cache, extra keys / cache salt, eviction policies
// other than LRU.

#include <cstdint>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/base/tokens.h"

namespace efimsim {

struct RadixNode {
  RadixNode* parent = nullptr;
  TokenVector key;  // tokens of the edge from parent to this node; it owns one slot each
  std::unordered_map<uint64_t, RadixNode*> children;  // by first page of the child's key
  int32_t lock_ref = 0;
  uint64_t last_access = 0;   // tick of the last match / insert through it
  uint64_t serial = 0;        // creation order; breaks LRU ties deterministically
  bool in_leaf_set = false;   // listed as an eviction candidate
};

struct RadixMatch {
  int64_t length = 0;           // tokens matched (a multiple of page_size)
  RadixNode* last = nullptr;    // node ending at the match (the root if 0)
};

struct RadixStats {
  int64_t evicted_tokens = 0;
  int64_t evicted_nodes = 0;
};

class RadixCache {
 public:
  // num_slots: KV capacity in tokens. enabled = false: no sharing.
  RadixCache(int64_t num_slots, int32_t page_size, bool enabled);
  ~RadixCache();
  RadixCache(const RadixCache&) = delete;
  RadixCache& operator=(const RadixCache&) = delete;

  // Longest cached page-aligned prefix of tokens[0, limit). limit <=
  // tokens.size().
  RadixMatch Match(TokenSpan tokens, int64_t limit);
  // Inserts tokens whose KV the caller holds (only the page-aligned part;
  // the new leaf takes the slots of the tokens not yet in the tree).
  // Returns the length already present.
  int64_t Insert(TokenSpan tokens);
  void IncLock(RadixNode* node);
  void DecLock(RadixNode* node);
  int64_t Evict(int64_t tokens);
  // Takes n free slots, evicting as needed; false (nothing taken) if free +
  // evictable slots are fewer than n.
  bool Allocate(int64_t n);
  // Returns n slots to the free pool.
  void Free(int64_t n);

  bool enabled() const { return enabled_; }
  int32_t page_size() const { return page_size_; }
  RadixNode* root() { return root_.get(); }
  int64_t num_slots() const { return num_slots_; }
  int64_t available() const { return free_slots_; }
  int64_t evictable() const { return evictable_; }
  int64_t protected_size() const { return protected_; }
  int64_t cached_tokens() const { return evictable_ + protected_; }
  int64_t num_nodes() const { return num_nodes_; }
  const RadixStats& stats() const { return stats_; }

  // Verifies, given every live request's locked last node and the count of
  // slots each holds outside the tree: free + tree + held slots are the
  // pool's (none leaked, none counted twice); every node's key is whole
  // pages; every node's lock count equals the number of holders whose path
  // runs through it; evictable / protected sizes and the leaf set agree with
  // the tree. Throws (EFIMSIM_CHECK) on violation.
  void CheckInvariants(std::span<const RadixNode* const> holders,
                       std::span<const int64_t> private_slots) const;

 private:
  uint64_t ChildKey(const TokenId* page) const;
  int64_t MatchLength(const TokenVector& key, TokenSpan tokens, int64_t offset) const;
  RadixNode* SplitNode(RadixNode* node, int64_t at);
  void Touch(RadixNode* node, uint64_t tick);
  void UpdateLeafSet(RadixNode* node);
  void DeleteLeaf(RadixNode* node);

  int64_t num_slots_;
  int32_t page_size_;
  bool enabled_;
  std::unique_ptr<RadixNode> root_;
  int64_t free_slots_ = 0;
  // Eviction candidates (unlocked leaves) by (last_access, serial).
  std::set<std::pair<uint64_t, uint64_t>> leaves_;
  std::unordered_map<uint64_t, RadixNode*> leaf_nodes_;  // serial -> node, for leaves_
  uint64_t tick_ = 0;
  uint64_t next_serial_ = 1;
  int64_t evictable_ = 0;
  int64_t protected_ = 0;
  int64_t num_nodes_ = 0;
  RadixStats stats_;
};

}  // namespace efimsim
