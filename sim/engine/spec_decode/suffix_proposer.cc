#include "sim/engine/spec_decode/suffix_proposer.h"

#include <algorithm>
#include <deque>
#include <sstream>
#include <utility>

#include "sim/base/check.h"

// Behaviour follows ArcticInference v0.1.1 csrc/suffix_decoding/suffix_tree.cc
// and arctic_inference/suffix_decoding/cache.py (commit 8d5d124), and vLLM's
// vllm/v1/spec_decode/suffix_decoding.py; the layout here is this file's own
// (child vectors instead of linked lists and count groups, reference-counted
// token storage instead of per-node endpoint maps).

namespace efimsim {

// A trie node: `length` tokens on the edge from its parent, read from
// ref->tokens[ref_end - length, ref_end). Invariants:
//   - the reference is a full-path occurrence: ref->tokens[ref_end - depth,
//     ref_end) is the whole string from the root to this node's end;
//   - count = number of stored suffixes passing through or ending at the
//     node = (suffixes ending here) + sum of the children's counts, and a
//     non-root node's children all have a smaller count (else it would be
//     merged with its only child);
//   - every stored suffix ends exactly at a node's end;
//   - `children` is in sibling order (file comment of the header).
struct SuffixTree::Node {
  int64_t count = 0;
  Node* parent = nullptr;
  std::vector<std::unique_ptr<Node>> children;
  Sequence* ref = nullptr;
  int32_t ref_end = 0;
  int32_t length = 0;
};

// A stored sequence. `cursors` are the nodes where its open suffixes (the
// last max_depth starts, oldest first) end. After Remove it is "retired":
// no longer in sequences_, kept only while node_refs > 0, then freed by
// DropRef.
struct SuffixTree::Sequence {
  TokenVector tokens;
  std::deque<Node*> cursors;
  int64_t node_refs = 0;
  bool retired = false;
};

size_t SuffixTree::ChildKeyHash::operator()(const ChildKey& key) const {
  uint64_t x = reinterpret_cast<uintptr_t>(key.parent) ^
               (static_cast<uint64_t>(static_cast<uint32_t>(key.token)) * 0x9E3779B97F4A7C15ULL);
  x ^= x >> 29;
  x *= 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 32;
  return static_cast<size_t>(x);
}

SuffixTree::SuffixTree(int32_t max_depth) : max_depth_(max_depth), root_(new Node()) {
  EFIMSIM_CHECK(max_depth >= 1, "suffix tree depth must be at least 1");
}

SuffixTree::~SuffixTree() {
  // Children first, so retired sequences are freed by their last reference.
  for (std::unique_ptr<Node>& child : root_->children) ForgetSubtree(child.get());
  root_->children.clear();
  for (auto& [seq_id, sequence] : sequences_) delete sequence;
}

// ---- Sibling order --------------------------------------------------------

size_t SuffixTree::PositionOf(const Node* node) {
  const auto& siblings = node->parent->children;
  const int64_t count = node->count;
  // Counts are non-increasing: the node is in the run of equal counts.
  auto it =
      std::partition_point(siblings.begin(), siblings.end(),
                           [count](const std::unique_ptr<Node>& s) { return s->count > count; });
  while (it->get() != node) ++it;
  return static_cast<size_t>(it - siblings.begin());
}

void SuffixTree::IncrementCount(Node* node) {
  if (node->parent == nullptr) {
    ++node->count;
    return;
  }
  auto& siblings = node->parent->children;
  const int64_t count = node->count;
  const size_t position = PositionOf(node);
  if (position == 0 || siblings[position - 1]->count > count + 1) {
    // Stays where it is: alone in its new count.
    ++node->count;
    return;
  }
  // First among count+1 if it was first among count (its predecessor has
  // count+1), else last among count+1 (just before the first of count).
  const int64_t bound = siblings[position - 1]->count == count + 1 ? count + 1 : count;
  auto target =
      std::partition_point(siblings.begin(), siblings.begin() + position,
                           [bound](const std::unique_ptr<Node>& s) { return s->count > bound; });
  std::rotate(target, siblings.begin() + position, siblings.begin() + position + 1);
  ++node->count;
}

void SuffixTree::DecrementCount(Node* node) {
  if (node->parent == nullptr) {
    --node->count;
    return;
  }
  auto& siblings = node->parent->children;
  const int64_t count = node->count;
  const size_t position = PositionOf(node);
  // Goes right after the last sibling of its old count: first among count-1.
  auto end_of_run =
      std::partition_point(siblings.begin() + position, siblings.end(),
                           [count](const std::unique_ptr<Node>& s) { return s->count >= count; });
  std::rotate(siblings.begin() + position, siblings.begin() + position + 1, end_of_run);
  --node->count;
}

// ---- Nodes and references ---------------------------------------------------

SuffixTree::Node* SuffixTree::FindChild(const Node* node, TokenId token) const {
  const auto it = children_by_token_.find(ChildKey{node, token});
  return it == children_by_token_.end() ? nullptr : it->second;
}

const TokenId* SuffixTree::TokensOf(const Node* node) const {
  return node->ref->tokens.data() + (node->ref_end - node->length);
}

TokenId SuffixTree::FirstToken(const Node* node) const { return *TokensOf(node); }

void SuffixTree::SetRef(Node* node, Sequence* sequence, int32_t end) {
  if (node->ref != sequence) {
    DropRef(node);
    node->ref = sequence;
    ++sequence->node_refs;
  }
  node->ref_end = end;
}

void SuffixTree::DropRef(Node* node) {
  Sequence* sequence = node->ref;
  if (sequence == nullptr) return;
  node->ref = nullptr;
  if (--sequence->node_refs == 0 && sequence->retired) delete sequence;
}

SuffixTree::Node* SuffixTree::NewNode(Node* parent, int64_t count, int32_t length,
                                      Sequence* sequence, int32_t end) {
  Node* node = new Node();
  node->parent = parent;
  node->count = count;
  node->length = length;
  SetRef(node, sequence, end);
  ++num_nodes_;
  return node;
}

// Unindexes and unreferences `node` and its descendants; the caller frees
// the memory (by dropping the owning unique_ptr).
void SuffixTree::ForgetSubtree(Node* node) {
  for (std::unique_ptr<Node>& child : node->children) {
    children_by_token_.erase(ChildKey{node, FirstToken(child.get())});
    ForgetSubtree(child.get());
  }
  DropRef(node);
  --num_nodes_;
}

// ---- Appending ----------------------------------------------------------------

void SuffixTree::Extend(int32_t seq_id, TokenSpan tokens) {
  for (const TokenId token : tokens) Append(seq_id, token);
}

void SuffixTree::Append(int32_t seq_id, TokenId token) {
  auto [it, inserted] = sequences_.try_emplace(seq_id, nullptr);
  if (inserted) it->second = new Sequence();
  Sequence* sequence = it->second;
  // A new suffix opens at the root; the oldest open one is complete once
  // there are more than max_depth.
  sequence->cursors.push_back(root_.get());
  ++root_->count;
  if (sequence->cursors.size() > static_cast<size_t>(max_depth_)) sequence->cursors.pop_front();
  sequence->tokens.push_back(token);
  for (Node*& cursor : sequence->cursors) ExtendCursor(sequence, cursor, token);
}

// Extends one open suffix, which ends at `cursor`, by `token` (already
// appended to `sequence`), and moves `cursor` to where it now ends.
void SuffixTree::ExtendCursor(Sequence* sequence, Node*& cursor, TokenId token) {
  const int32_t end = static_cast<int32_t>(sequence->tokens.size());
  Node* node = cursor;
  Node* child = FindChild(node, token);
  const bool is_root = node == root_.get();

  if (child == nullptr) {
    if (!is_root && node->count == 1) {
      // Only this suffix reaches the node, so it is a leaf of this suffix
      // alone: lengthen it.
      ++node->length;
      SetRef(node, sequence, end);
      return;
    }
    // Branch off a new leaf, last in sibling order (count 1 is the least).
    Node* leaf = NewNode(node, 1, 1, sequence, end);
    node->children.emplace_back(leaf);
    children_by_token_[ChildKey{node, token}] = leaf;
    cursor = leaf;
    return;
  }

  if (!is_root && node->count == child->count + 1) {
    // This suffix is the only one ending at `node`; every other one goes on
    // into `child`, its only child.
    if (child->length == 1) {
      // The extended suffix ends exactly where `child` ends: fuse `node`
      // into `child`, which takes node's place (same count once counted).
      // child's new reference (this occurrence, a full path) extends
      // backwards over node's tokens once merged.
      ++child->count;
      SetRef(child, sequence, end);
      MergeIntoOnlyChild(node);
      cursor = child;
    } else {
      // Move the boundary one token down: `node` takes child's first token.
      ++node->length;
      SetRef(node, sequence, end);
      --child->length;
      children_by_token_.erase(ChildKey{node, token});
      children_by_token_[ChildKey{node, FirstToken(child)}] = child;
    }
    return;
  }

  if (child->length == 1) {
    IncrementCount(child);
    SetRef(child, sequence, end);
    cursor = child;
    return;
  }
  // Split `child` after its first token; the new one-token node takes its
  // place (same count), then counts this suffix.
  const size_t position = PositionOf(child);
  Node* head = NewNode(node, child->count, 1, sequence, end);
  std::unique_ptr<Node> child_owner = std::move(node->children[position]);
  node->children[position].reset(head);
  --child->length;
  child->parent = head;
  children_by_token_[ChildKey{node, token}] = head;
  children_by_token_[ChildKey{head, FirstToken(child)}] = child;
  head->children.push_back(std::move(child_owner));
  IncrementCount(head);
  cursor = head;
}

// ---- Removing -------------------------------------------------------------------

void SuffixTree::Remove(int32_t seq_id) {
  const auto it = sequences_.find(seq_id);
  if (it == sequences_.end()) return;
  Sequence* sequence = it->second;
  sequence->cursors.clear();
  const TokenVector& tokens = sequence->tokens;
  const size_t size = tokens.size();
  for (size_t start = 0; start < size; ++start) {
    --root_->count;
    Node* node = root_.get();
    size_t index = start;
    // Walk the suffix's path; it stops by itself at the suffix's end (at
    // depth max_depth no node has children).
    while (index < size) {
      Node* child = FindChild(node, tokens[index]);
      if (child == nullptr) break;
      if (child->count > 1) {
        DecrementCount(child);
      } else {
        // Only this suffix used `child`: drop it and everything below it.
        const size_t position = PositionOf(child);
        children_by_token_.erase(ChildKey{node, tokens[index]});
        ForgetSubtree(child);
        node->children.erase(node->children.begin() + static_cast<std::ptrdiff_t>(position));
        break;
      }
      index += static_cast<size_t>(child->length);
      node = child;
    }
    // Where the walk ended, no suffix may end any more: merge with an only
    // child of the same count.
    if (node != root_.get() && node->children.size() == 1 &&
        node->children.front()->count == node->count) {
      MergeIntoOnlyChild(node);
    }
  }
  sequences_.erase(it);
  sequence->retired = true;
  if (sequence->node_refs == 0) delete sequence;
}

// `node`'s only child absorbs it and takes its place. The child's reference
// is a full-path occurrence, so its tokens extend backwards over node's.
void SuffixTree::MergeIntoOnlyChild(Node* node) {
  Node* parent = node->parent;
  Node* child = node->children.front().get();
  const TokenId first = FirstToken(node);
  const size_t position = PositionOf(node);
  children_by_token_.erase(ChildKey{node, FirstToken(child)});
  child->length += node->length;
  child->parent = parent;
  std::unique_ptr<Node> child_owner = std::move(node->children.front());
  node->children.clear();
  std::unique_ptr<Node> node_owner = std::move(parent->children[position]);
  parent->children[position] = std::move(child_owner);
  children_by_token_[ChildKey{parent, first}] = child;
  DropRef(node);
  --num_nodes_;
}

// ---- Speculation ------------------------------------------------------------------

SuffixDraft SuffixTree::SpeculatePath(const Node* node, int32_t index, int32_t max_tokens,
                                      float min_token_prob) const {
  SuffixDraft draft;
  float prob = 1.0f;
  const TokenId* tokens = TokensOf(node);
  while (static_cast<int32_t>(draft.token_ids.size()) < max_tokens && prob >= min_token_prob) {
    if (index < node->length) {
      draft.token_ids.push_back(tokens[index]);
      draft.probs.push_back(prob);
      draft.score += prob;
      ++index;
    } else {
      if (node->children.empty()) break;
      const Node* child = node->children.front().get();
      prob *= static_cast<float>(child->count) / static_cast<float>(node->count);
      node = child;
      tokens = TokensOf(node);
      index = 0;
    }
  }
  return draft;
}

SuffixDraft SuffixTree::Speculate(TokenSpan context, int32_t max_spec_tokens, float max_spec_factor,
                                  float max_spec_offset, float min_token_prob) const {
  SuffixDraft best;
  const size_t size = context.size();
  for (size_t match_len = 1; match_len < size; ++match_len) {
    // Match the last match_len tokens from the root.
    const Node* node = root_.get();
    int32_t index = 0;
    const TokenId* tokens = nullptr;
    bool matched = true;
    for (size_t i = size - match_len; i < size && matched; ++i) {
      if (index >= node->length) {
        node = FindChild(node, context[i]);
        if (node == nullptr) {
          matched = false;
          break;
        }
        tokens = TokensOf(node);
        index = 0;
      }
      matched = tokens[index] == context[i];
      ++index;
    }
    // A longer suffix of the context cannot match if this one does not.
    if (!matched) break;
    // float(match_len) * factor + offset in float, + 1e-6 in double,
    // truncated: as upstream's int(match_len * factor + offset + 1e-6).
    const float scaled = static_cast<float>(match_len) * max_spec_factor + max_spec_offset;
    const double limit = static_cast<double>(scaled) + 1e-6;
    int32_t max_tokens = max_spec_tokens;
    if (limit < static_cast<double>(max_tokens)) max_tokens = static_cast<int32_t>(limit);
    max_tokens = std::max(max_tokens, 0);
    SuffixDraft draft = SpeculatePath(node, index, max_tokens, min_token_prob);
    if (draft.score >= best.score) {
      best = std::move(draft);
      best.match_len = static_cast<int32_t>(match_len);
    }
  }
  return best;
}

// ---- Integrity ----------------------------------------------------------------------

std::string SuffixTree::CheckIntegrity() const {
  // Expected counts: walk every stored suffix.
  std::map<const Node*, int64_t> visits;
  int64_t suffixes = 0;
  for (const auto& [seq_id, sequence] : sequences_) {
    const TokenVector& tokens = sequence->tokens;
    for (size_t start = 0; start < tokens.size(); ++start) {
      ++suffixes;
      const size_t stop = std::min(tokens.size(), start + static_cast<size_t>(max_depth_));
      const Node* node = root_.get();
      size_t index = start;
      while (index < stop) {
        node = FindChild(node, tokens[index]);
        if (node == nullptr) return "suffix of seq " + std::to_string(seq_id) + " missing";
        if (index + static_cast<size_t>(node->length) > stop) {
          return "suffix of seq " + std::to_string(seq_id) + " ends inside a node";
        }
        for (int32_t j = 0; j < node->length; ++j) {
          if (TokensOf(node)[j] != tokens[index + static_cast<size_t>(j)]) {
            return "node tokens disagree with seq " + std::to_string(seq_id);
          }
        }
        ++visits[node];
        index += static_cast<size_t>(node->length);
      }
    }
  }
  if (root_->count != suffixes) return "root count is not the number of suffixes";
  // Structure, node by node.
  std::vector<std::pair<const Node*, int64_t>> stack = {{root_.get(), 0}};
  int64_t nodes = 0;
  while (!stack.empty()) {
    const auto [node, depth] = stack.back();
    stack.pop_back();
    ++nodes;
    int64_t children_total = 0;
    for (size_t i = 0; i < node->children.size(); ++i) {
      const Node* child = node->children[i].get();
      if (child->parent != node) return "bad parent link";
      if (i > 0 && node->children[i - 1]->count < child->count) return "sibling order broken";
      if (node != root_.get() && child->count >= node->count) return "unmerged child";
      if (FindChild(node, FirstToken(child)) != child) return "child index broken";
      children_total += child->count;
      stack.push_back({child, depth + child->length});
    }
    if (children_total > node->count) return "children count exceed node count";
    if (node == root_.get()) continue;
    if (node->length <= 0 || node->count <= 0) return "empty node";
    const auto it = visits.find(node);
    if (it == visits.end() || it->second != node->count) return "node count is not suffix count";
    if (node->ref == nullptr || node->ref_end < depth ||
        node->ref_end > static_cast<int32_t>(node->ref->tokens.size())) {
      return "bad token reference";
    }
    // The reference must be a full-path occurrence.
    const Node* up = node;
    int32_t at = node->ref_end;
    while (up != root_.get()) {
      for (int32_t j = up->length - 1; j >= 0; --j) {
        --at;
        if (node->ref->tokens[static_cast<size_t>(at)] != TokensOf(up)[j]) {
          return "reference is not a full-path occurrence";
        }
      }
      up = up->parent;
    }
  }
  if (nodes != num_nodes_) return "node count bookkeeping off";
  if (static_cast<int64_t>(children_by_token_.size()) != nodes - 1) return "stale child index";
  return "";
}

// ---- Cache ---------------------------------------------------------------------------

SuffixDecodingCache::SuffixDecodingCache(int32_t max_tree_depth, int32_t max_cached_requests)
    : max_tree_depth_(max_tree_depth),
      max_cached_requests_(max_cached_requests),
      global_tree_(max_tree_depth) {}

std::vector<uint64_t> SuffixDecodingCache::ActiveRequests() const {
  std::vector<uint64_t> ids;
  ids.reserve(local_trees_.size());
  for (const auto& [id, tree] : local_trees_) ids.push_back(id);
  return ids;
}

void SuffixDecodingCache::StartRequest(uint64_t request_id, TokenSpan prompt) {
  EFIMSIM_CHECK(!IsActive(request_id), "suffix cache: request already active");
  auto tree = std::make_unique<SuffixTree>(max_tree_depth_);
  tree->Extend(0, prompt);
  local_trees_.emplace(request_id, std::move(tree));
  if (max_cached_requests_ != 0) {
    if (IsCached(request_id)) EvictCachedResponse(request_id);
    AllocateSeqId(request_id);
  }
}

// cache.py _generate_seq_id and _maybe_evict_requests: the next id (mod
// 2^31) not held by an active request; an inactive holder (after wrap-
// around) is evicted. Then the oldest outputs go while over the limit.
int32_t SuffixDecodingCache::AllocateSeqId(uint64_t request_id) {
  int32_t seq_id = 0;
  while (true) {
    seq_id = next_seq_id_;
    next_seq_id_ = (next_seq_id_ + 1) & 0x7FFFFFFF;
    const auto holder = request_by_seq_.find(seq_id);
    if (holder == request_by_seq_.end() || !IsActive(holder->second)) break;
  }
  const auto holder = request_by_seq_.find(seq_id);
  if (holder != request_by_seq_.end()) EvictCachedResponse(holder->second);
  cached_in_order_.emplace_back(request_id, seq_id);
  seq_by_request_[request_id] = std::prev(cached_in_order_.end());
  request_by_seq_[seq_id] = request_id;
  if (max_cached_requests_ > 0) {
    while (num_cached() > max_cached_requests_) {
      // The oldest other than the one just added (which is last).
      EvictCachedResponse(cached_in_order_.front().first);
    }
  }
  return seq_id;
}

void SuffixDecodingCache::StopRequest(uint64_t request_id) {
  EFIMSIM_CHECK(IsActive(request_id), "suffix cache: stopping a request that is not active");
  local_trees_.erase(request_id);
}

void SuffixDecodingCache::AddActiveResponse(uint64_t request_id, TokenSpan tokens) {
  const auto local = local_trees_.find(request_id);
  EFIMSIM_CHECK(local != local_trees_.end(), "suffix cache: response for an inactive request");
  local->second->Extend(0, tokens);
  const auto cached = seq_by_request_.find(request_id);
  if (cached != seq_by_request_.end()) global_tree_.Extend(cached->second->second, tokens);
}

void SuffixDecodingCache::EvictCachedResponse(uint64_t request_id) {
  const auto cached = seq_by_request_.find(request_id);
  EFIMSIM_CHECK(cached != seq_by_request_.end(), "suffix cache: evicting an uncached request");
  const int32_t seq_id = cached->second->second;
  cached_in_order_.erase(cached->second);
  seq_by_request_.erase(cached);
  request_by_seq_.erase(seq_id);
  global_tree_.Remove(seq_id);
}

SuffixDraft SuffixDecodingCache::Speculate(uint64_t request_id, TokenSpan context,
                                           int32_t max_spec_tokens, float max_spec_factor,
                                           float max_spec_offset, float min_token_prob) const {
  const auto local = local_trees_.find(request_id);
  EFIMSIM_CHECK(local != local_trees_.end(), "suffix cache: speculating for an inactive request");
  if (context.size() > static_cast<size_t>(max_tree_depth_)) {
    context = context.last(static_cast<size_t>(max_tree_depth_));
  }
  SuffixDraft own = local->second->Speculate(context, max_spec_tokens, max_spec_factor,
                                             max_spec_offset, min_token_prob);
  SuffixDraft global = global_tree_.Speculate(context, max_spec_tokens, max_spec_factor,
                                              max_spec_offset, min_token_prob);
  return own.score >= global.score ? own : global;
}

// ---- vLLM proposer ----------------------------------------------------------------------

namespace {

std::string FormatNumber(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

}  // namespace

std::string ValidateSuffixDecodingConfig(const SuffixDecodingConfig& config) {
  if (config.num_speculative_tokens && *config.num_speculative_tokens <= 0) {
    return "Expected num_speculative_tokens to be greater than zero (" +
           std::to_string(*config.num_speculative_tokens) + ").";
  }
  if (config.max_tree_depth < 1) {
    return "suffix_decoding_max_tree_depth=" + std::to_string(config.max_tree_depth) +
           " must be >= 1";
  }
  if (config.max_cached_requests < 0) {
    return "suffix_decoding_max_cached_requests=" + std::to_string(config.max_cached_requests) +
           " must be >= 0";
  }
  if (config.max_spec_factor < 0) {
    return "suffix_decoding_max_spec_factor=" + FormatNumber(config.max_spec_factor) +
           " must be >= 0";
  }
  if (!(config.min_token_prob >= 0 && config.min_token_prob <= 1)) {
    return "suffix_decoding_min_token_prob=" + FormatNumber(config.min_token_prob) +
           " must be in [0, 1]";
  }
  if (config.max_model_len < 1) {
    return "max_model_len=" + std::to_string(config.max_model_len) + " must be > 0";
  }
  return "";
}

SuffixDecodingProposer::SuffixDecodingProposer(const SuffixDecodingConfig& config)
    : config_(config), cache_(config.max_tree_depth, config.max_cached_requests) {}

TokenVector SuffixDecodingProposer::Propose(uint64_t request_id, TokenSpan history,
                                            int64_t num_prompt_tokens, TokenSpan sampled) {
  if (sampled.empty()) return {};  // partial prefill
  const int64_t num_tokens = static_cast<int64_t>(history.size());
  if (num_tokens >= config_.max_model_len) return {};
  if (!cache_.IsActive(request_id)) {
    if (cache_.IsCached(request_id)) cache_.EvictCachedResponse(request_id);
    cache_.StartRequest(request_id, history.first(static_cast<size_t>(num_prompt_tokens)));
  }
  cache_.AddActiveResponse(request_id, sampled);
  const int64_t start = std::max<int64_t>(0, num_tokens - config_.max_tree_depth);
  const TokenSpan pattern = history.subspan(static_cast<size_t>(start));
  const int64_t budget = std::min<int64_t>(config_.EffectiveNumSpeculativeTokens(),
                                           config_.max_model_len - num_tokens - 1);
  // max_spec_offset is not passed by vLLM: the cache's default 0.
  return cache_
      .Speculate(request_id, pattern, static_cast<int32_t>(budget), config_.max_spec_factor, 0.0f,
                 config_.min_token_prob)
      .token_ids;
}

void SuffixDecodingProposer::StopRequestsNotIn(std::span<const uint64_t> batch_request_ids) {
  std::vector<uint64_t> batch(batch_request_ids.begin(), batch_request_ids.end());
  std::sort(batch.begin(), batch.end());
  for (const uint64_t id : cache_.ActiveRequests()) {
    if (!std::binary_search(batch.begin(), batch.end(), id)) cache_.StopRequest(id);
  }
}

}  // namespace efimsim
