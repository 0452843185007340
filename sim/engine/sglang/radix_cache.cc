#include "sim/engine/sglang/radix_cache.h"

#include <algorithm>
#include <cstring>

#include "sim/base/check.h"

namespace efimsim {

RadixCache::RadixCache(int64_t num_slots, int32_t page_size, bool enabled)
    : num_slots_(num_slots), page_size_(page_size), enabled_(enabled),
      root_(std::make_unique<RadixNode>()) {
  EFIMSIM_CHECK(num_slots >= 1 && num_slots <= INT32_MAX, "radix cache: slot count out of range");
  EFIMSIM_CHECK(page_size >= 1, "radix cache: page size must be positive");
  root_->lock_ref = 1;  // SGLang locks the root so it is never evicted
  free_.reserve(static_cast<size_t>(num_slots));
  // Slot 0 on top of the stack: a fresh pool hands out 0, 1, 2, ...
  for (int64_t s = num_slots - 1; s >= 0; --s) free_.push_back(static_cast<KvSlot>(s));
}

RadixCache::~RadixCache() {
  std::vector<RadixNode*> stack;
  for (auto& [key, child] : root_->children) stack.push_back(child);
  while (!stack.empty()) {
    RadixNode* node = stack.back();
    stack.pop_back();
    for (auto& [key, child] : node->children) stack.push_back(child);
    delete node;
  }
}

uint64_t RadixCache::ChildKey(const TokenId* page) const {
  if (page_size_ == 1) return static_cast<uint32_t>(page[0]);
  uint64_t h = 0x9e3779b97f4a7c15ULL;
  for (int32_t i = 0; i < page_size_; ++i) {
    h ^= static_cast<uint32_t>(page[i]);
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
  }
  return h;
}

// Page-aligned length of the common run of key and tokens[offset, ...).
int64_t RadixCache::MatchLength(const TokenVector& key, TokenSpan tokens, int64_t offset) const {
  const int64_t n = std::min<int64_t>(static_cast<int64_t>(key.size()),
                                      static_cast<int64_t>(tokens.size()) - offset);
  const TokenId* a = key.data();
  const TokenId* b = tokens.data() + offset;
  // By memcmp (vectorized) where it can: the whole run first (a walk down
  // the tree mostly passes whole keys), else 64-token runs, then token by
  // token. Token by token, matching was 7% of an SGLang run's time.
  if (std::memcmp(a, b, static_cast<size_t>(n) * sizeof(TokenId)) == 0) return n / page_size_ * page_size_;
  constexpr int64_t kRun = 64;
  int64_t i = 0;
  while (i + kRun <= n && std::memcmp(a + i, b + i, kRun * sizeof(TokenId)) == 0) i += kRun;
  while (i < n && a[i] == b[i]) ++i;
  return i / page_size_ * page_size_;
}

void RadixCache::Touch(RadixNode* node, uint64_t tick) {
  if (node->in_leaf_set) {
    leaves_.erase({node->last_access, node->serial});
    node->last_access = tick;
    leaves_.insert({node->last_access, node->serial});
  } else {
    node->last_access = tick;
  }
}

void RadixCache::UpdateLeafSet(RadixNode* node) {
  const bool candidate = node != root_.get() && node->children.empty() && node->lock_ref == 0;
  if (candidate == node->in_leaf_set) return;
  if (candidate) {
    leaves_.insert({node->last_access, node->serial});
    leaf_nodes_.emplace(node->serial, node);
  } else {
    leaves_.erase({node->last_access, node->serial});
    leaf_nodes_.erase(node->serial);
  }
  node->in_leaf_set = candidate;
}

RadixNode* RadixCache::SplitNode(RadixNode* child, int64_t at) {
  auto* head = new RadixNode();
  head->parent = child->parent;
  head->key.assign(child->key.begin(), child->key.begin() + at);
  head->slots.assign(child->slots.begin(), child->slots.begin() + at);
  head->lock_ref = child->lock_ref;
  head->last_access = child->last_access;
  head->serial = next_serial_++;
  ++num_nodes_;
  child->key.erase(child->key.begin(), child->key.begin() + at);
  child->slots.erase(child->slots.begin(), child->slots.begin() + at);
  child->parent->children[ChildKey(head->key.data())] = head;
  child->parent = head;
  head->children.emplace(ChildKey(child->key.data()), child);
  return head;
}

RadixMatch RadixCache::Match(TokenSpan tokens, int64_t limit, std::vector<KvSlot>* slots,
                             int64_t copy_from) {
  RadixMatch match{0, root_.get()};
  if (!enabled_) return match;
  limit = std::min<int64_t>(limit, static_cast<int64_t>(tokens.size())) / page_size_ * page_size_;
  const TokenSpan view = tokens.first(static_cast<size_t>(std::max<int64_t>(limit, 0)));
  const uint64_t tick = ++tick_;
  RadixNode* node = root_.get();
  int64_t pos = 0;
  while (pos < limit) {
    const auto it = node->children.find(ChildKey(view.data() + pos));
    if (it == node->children.end()) break;
    RadixNode* child = it->second;
    const int64_t n = MatchLength(child->key, view, pos);
    if (n == 0) break;
    const bool ends_inside = n < static_cast<int64_t>(child->key.size());
    if (ends_inside) child = SplitNode(child, n);
    if (slots != nullptr && pos + n > copy_from) {
      const int64_t skip = std::max<int64_t>(0, copy_from - pos);
      slots->insert(slots->end(), child->slots.begin() + skip, child->slots.end());
    }
    Touch(child, tick);
    pos += n;
    node = child;
    if (ends_inside) break;
  }
  match.length = pos;
  match.last = node;
  return match;
}

int64_t RadixCache::Insert(TokenSpan tokens, std::span<const KvSlot> slots) {
  EFIMSIM_CHECK(tokens.size() == slots.size(), "radix insert: tokens and slots differ in length");
  if (!enabled_) return 0;
  const int64_t length = static_cast<int64_t>(tokens.size()) / page_size_ * page_size_;
  const TokenSpan view = tokens.first(static_cast<size_t>(length));
  const uint64_t tick = ++tick_;
  RadixNode* node = root_.get();
  int64_t pos = 0;
  while (pos < length) {
    const auto it = node->children.find(ChildKey(view.data() + pos));
    if (it == node->children.end()) break;
    RadixNode* child = it->second;
    const int64_t n = MatchLength(child->key, view, pos);
    if (n == 0) break;
    if (n < static_cast<int64_t>(child->key.size())) child = SplitNode(child, n);
    Touch(child, tick);
    pos += n;
    node = child;
  }
  if (pos < length) {
    auto* leaf = new RadixNode();
    leaf->parent = node;
    leaf->key.assign(view.begin() + pos, view.end());
    leaf->slots.assign(slots.begin() + pos, slots.begin() + length);
    leaf->last_access = tick;
    leaf->serial = next_serial_++;
    ++num_nodes_;
    evictable_ += length - pos;
    node->children.emplace(ChildKey(leaf->key.data()), leaf);
    UpdateLeafSet(node);
    UpdateLeafSet(leaf);
  }
  return pos;
}

void RadixCache::IncLock(RadixNode* node) {
  for (; node != root_.get() && node != nullptr; node = node->parent) {
    if (node->lock_ref == 0) {
      const int64_t size = static_cast<int64_t>(node->key.size());
      evictable_ -= size;
      protected_ += size;
    }
    ++node->lock_ref;
    if (node->lock_ref == 1) UpdateLeafSet(node);
  }
}

void RadixCache::DecLock(RadixNode* node) {
  for (; node != root_.get() && node != nullptr; node = node->parent) {
    EFIMSIM_CHECK(node->lock_ref > 0, "radix cache: unlocking an unlocked node");
    if (node->lock_ref == 1) {
      const int64_t size = static_cast<int64_t>(node->key.size());
      evictable_ += size;
      protected_ -= size;
    }
    --node->lock_ref;
    if (node->lock_ref == 0) UpdateLeafSet(node);
  }
}

void RadixCache::DeleteLeaf(RadixNode* node) {
  UpdateLeafSet(node);  // no-op unless the caller changed it
  if (node->in_leaf_set) {
    leaves_.erase({node->last_access, node->serial});
    leaf_nodes_.erase(node->serial);
  }
  RadixNode* parent = node->parent;
  parent->children.erase(ChildKey(node->key.data()));
  --num_nodes_;
  delete node;
}

int64_t RadixCache::Evict(int64_t tokens) {
  int64_t freed = 0;
  while (freed < tokens && !leaves_.empty()) {
    const auto first = leaves_.begin();
    RadixNode* node = leaf_nodes_.at(first->second);
    const int64_t size = static_cast<int64_t>(node->slots.size());
    free_.insert(free_.end(), node->slots.rbegin(), node->slots.rend());
    freed += size;
    evictable_ -= size;
    stats_.evicted_tokens += size;
    ++stats_.evicted_nodes;
    RadixNode* parent = node->parent;
    DeleteLeaf(node);
    UpdateLeafSet(parent);
  }
  return freed;
}

bool RadixCache::Allocate(int64_t n, std::vector<KvSlot>& out) {
  if (n <= 0) return true;
  // SGLang asks the tree for the whole request, not the deficit.
  if (available() < n) Evict(n);
  if (available() < n) return false;
  out.insert(out.end(), free_.end() - n, free_.end());
  free_.resize(free_.size() - static_cast<size_t>(n));
  return true;
}

void RadixCache::Free(std::span<const KvSlot> slots) {
  free_.insert(free_.end(), slots.rbegin(), slots.rend());
}

void RadixCache::CheckInvariants(std::span<const RadixNode* const> holders,
                                 std::span<const std::span<const KvSlot>> private_slots) const {
  std::vector<uint8_t> seen(static_cast<size_t>(num_slots_), 0);
  auto mark = [&](KvSlot s, const char* where) {
    EFIMSIM_CHECK(s >= 0 && s < num_slots_, std::string("radix cache: slot out of range in ") + where);
    EFIMSIM_CHECK(seen[static_cast<size_t>(s)] == 0,
                  "radix cache: slot " + std::to_string(s) + " referenced twice (" + where + ")");
    seen[static_cast<size_t>(s)] = 1;
  };
  for (const KvSlot s : free_) mark(s, "free list");
  for (const auto& slots : private_slots) {
    for (const KvSlot s : slots) mark(s, "a request's private slots");
  }
  std::unordered_map<const RadixNode*, int32_t> expected;
  for (const RadixNode* h : holders) {
    for (const RadixNode* n = h; n != nullptr && n != root_.get(); n = n->parent) ++expected[n];
  }
  int64_t evictable = 0, protected_tokens = 0, nodes = 0, leaves = 0;
  std::vector<const RadixNode*> stack{root_.get()};
  while (!stack.empty()) {
    const RadixNode* node = stack.back();
    stack.pop_back();
    for (const auto& [key, child] : node->children) {
      EFIMSIM_CHECK(child->parent == node, "radix cache: broken parent link");
      EFIMSIM_CHECK(!child->key.empty() && child->key.size() == child->slots.size() &&
                        child->key.size() % static_cast<size_t>(page_size_) == 0,
                    "radix cache: node key and slots disagree");
      EFIMSIM_CHECK(key == ChildKey(child->key.data()), "radix cache: child under a wrong key");
      stack.push_back(child);
    }
    if (node == root_.get()) continue;
    ++nodes;
    for (const KvSlot s : node->slots) mark(s, "the tree");
    const auto it = expected.find(node);
    const int32_t want = it == expected.end() ? 0 : it->second;
    EFIMSIM_CHECK(node->lock_ref == want, "radix cache: node lock count " +
                                              std::to_string(node->lock_ref) + " but " +
                                              std::to_string(want) + " holders");
    (node->lock_ref > 0 ? protected_tokens : evictable) += static_cast<int64_t>(node->key.size());
    const bool candidate = node->children.empty() && node->lock_ref == 0;
    EFIMSIM_CHECK(candidate == node->in_leaf_set, "radix cache: eviction candidate set is stale");
    leaves += candidate ? 1 : 0;
  }
  for (size_t s = 0; s < seen.size(); ++s) {
    EFIMSIM_CHECK(seen[s] == 1, "radix cache: slot " + std::to_string(s) + " leaked");
  }
  EFIMSIM_CHECK(evictable == evictable_ && protected_tokens == protected_,
                "radix cache: evictable / protected sizes disagree with the tree");
  EFIMSIM_CHECK(nodes == num_nodes_, "radix cache: node count disagrees");
  EFIMSIM_CHECK(leaves == static_cast<int64_t>(leaves_.size()) &&
                    leaves_.size() == leaf_nodes_.size(),
                "radix cache: leaf set size disagrees");
}

}  // namespace efimsim
