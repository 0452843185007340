#include "sim/engine/vllm/cpu_kv_tier.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "sim/base/check.h"

namespace efimsim {

CpuKvTier::CpuKvTier(int64_t capacity_blocks, int64_t bytes_per_block, double bytes_per_s,
                     Duration transfer_latency)
    : capacity_(capacity_blocks), bytes_per_block_(bytes_per_block), bytes_per_s_(bytes_per_s),
      transfer_latency_(transfer_latency), index_(capacity_blocks) {
  EFIMSIM_CHECK(capacity_blocks >= 1 && capacity_blocks <= INT32_MAX,
                "CPU KV tier capacity must be 1..2^31-1 blocks");
  EFIMSIM_CHECK(bytes_per_block >= 1, "CPU KV tier: a block has bytes");
  EFIMSIM_CHECK(bytes_per_s > 0 && std::isfinite(bytes_per_s), "CPU KV tier: link rate > 0");
  EFIMSIM_CHECK(transfer_latency >= Duration{0}, "CPU KV tier: latency >= 0");
  nodes_.resize(static_cast<size_t>(capacity_blocks));
  free_slots_.reserve(static_cast<size_t>(capacity_blocks));
  // Slot 0 is handed out first.
  for (int64_t i = capacity_blocks; i-- > 0;) free_slots_.push_back(static_cast<int32_t>(i));
}

void CpuKvTier::Unlink(int32_t node) {
  Node& n = nodes_[static_cast<size_t>(node)];
  if (n.prev != kNil) nodes_[static_cast<size_t>(n.prev)].next = n.next; else least_recent_ = n.next;
  if (n.next != kNil) nodes_[static_cast<size_t>(n.next)].prev = n.prev; else most_recent_ = n.prev;
  n.prev = n.next = kNil;
}

void CpuKvTier::PushMostRecent(int32_t node) {
  Node& n = nodes_[static_cast<size_t>(node)];
  n.prev = most_recent_;
  n.next = kNil;
  if (most_recent_ != kNil) nodes_[static_cast<size_t>(most_recent_)].next = node;
  else least_recent_ = node;
  most_recent_ = node;
}

void CpuKvTier::Touch(BlockKey key) {
  const BlockKeyChain* found = index_.Find(key);
  if (found == nullptr || found->head == most_recent_) return;
  Unlink(found->head);
  PushMostRecent(found->head);
}

void CpuKvTier::TouchAllDeepestFirst(std::span<const BlockKey> keys) {
  // The index's buckets are random memory: start loading a few keys ahead
  // of the one touched (a hint only; the order of touches is unchanged).
  constexpr size_t kAhead = 8;
  for (size_t i = keys.size(); i-- > 0;) {
    if (i >= kAhead) index_.Prefetch(keys[i - kAhead]);
    Touch(keys[i]);
  }
}

void CpuKvTier::EvictLeastRecent() {
  const int32_t victim = least_recent_;
  EFIMSIM_CHECK(victim != kNil, "evicting from an empty CPU KV tier");
  Unlink(victim);
  index_.Erase(nodes_[static_cast<size_t>(victim)].key);
  free_slots_.push_back(victim);
  ++stats_.evictions;
}

void CpuKvTier::Store(std::span<const BlockKey> keys, int64_t first) {
  EFIMSIM_CHECK(first >= 0 && first <= static_cast<int64_t>(keys.size()),
                "CPU KV tier: store range out of bounds");
  int64_t missing = 0;
  for (size_t i = static_cast<size_t>(first); i < keys.size(); ++i) {
    missing += Contains(keys[i]) ? 0 : 1;
  }
  if (missing == 0) return;
  if (missing > capacity_) {  // vLLM: prepare_store cannot make room; nothing stored
    ++stats_.rejected_stores;
    return;
  }
  while (static_cast<int64_t>(free_slots_.size()) < missing) EvictLeastRecent();
  for (size_t i = static_cast<size_t>(first); i < keys.size(); ++i) {
    if (Contains(keys[i])) continue;  // also a key repeated within the batch
    // A held key of this batch may have been evicted above to make room.
    if (free_slots_.empty()) EvictLeastRecent();
    const int32_t slot = free_slots_.back();
    free_slots_.pop_back();
    nodes_[static_cast<size_t>(slot)].key = keys[i];
    BlockKeyChain& chain = index_.FindOrInsert(keys[i]);
    chain.head = chain.tail = slot;
    PushMostRecent(slot);
    ++stats_.stored_blocks;
  }
  // vLLM touches the request's whole prefix after a store, in reverse, so
  // block 0 ends most recently used and the deepest blocks go first.
  TouchAllDeepestFirst(keys);
}

int64_t CpuKvTier::Lookup(std::span<const BlockKey> keys, int64_t first, int64_t limit) {
  EFIMSIM_CHECK(first >= 0 && first <= limit && limit <= static_cast<int64_t>(keys.size()),
                "CPU KV tier: lookup range out of bounds");
  TouchAllDeepestFirst(keys);
  int64_t hits = 0;
  for (int64_t i = first; i < limit && Contains(keys[static_cast<size_t>(i)]); ++i) ++hits;
  ++stats_.lookups;
  stats_.hit_blocks += hits;
  return hits;
}

TimePoint CpuKvTier::StartLoad(TimePoint now, int64_t blocks) {
  EFIMSIM_CHECK(blocks >= 1, "a load moves at least one block");
  const double bytes = static_cast<double>(blocks) * static_cast<double>(bytes_per_block_);
  const TimePoint start = std::max(now, link_free_);
  const TimePoint ready = start + transfer_latency_ + FromSeconds(bytes / bytes_per_s_);
  link_free_ = ready;
  ++stats_.loads;
  stats_.loaded_blocks += blocks;
  stats_.load_time += ready - now;
  return ready;
}

std::vector<BlockKey> CpuKvTier::KeysInLruOrder() const {
  std::vector<BlockKey> keys;
  for (int32_t n = least_recent_; n != kNil; n = nodes_[static_cast<size_t>(n)].next) {
    keys.push_back(nodes_[static_cast<size_t>(n)].key);
  }
  return keys;
}

void CpuKvTier::CheckInvariants() const {
  int64_t listed = 0;
  int32_t previous = kNil;
  for (int32_t n = least_recent_; n != kNil; n = nodes_[static_cast<size_t>(n)].next) {
    const Node& node = nodes_[static_cast<size_t>(n)];
    EFIMSIM_CHECK(node.prev == previous, "CPU KV tier: broken LRU list");
    const BlockKeyChain* found = index_.Find(node.key);
    EFIMSIM_CHECK(found != nullptr && found->head == n, "CPU KV tier: listed key not indexed");
    previous = n;
    EFIMSIM_CHECK(++listed <= capacity_, "CPU KV tier: LRU list longer than the tier");
  }
  EFIMSIM_CHECK(previous == most_recent_, "CPU KV tier: LRU list tail mismatch");
  EFIMSIM_CHECK(listed == static_cast<int64_t>(index_.size()),
                "CPU KV tier: " + std::to_string(listed) + " listed but " +
                    std::to_string(index_.size()) + " indexed");
  EFIMSIM_CHECK(listed + static_cast<int64_t>(free_slots_.size()) == capacity_,
                "CPU KV tier: held + free slots != capacity");
}

}  // namespace efimsim
