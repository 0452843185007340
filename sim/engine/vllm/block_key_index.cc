#include "sim/engine/vllm/block_key_index.h"

#include <algorithm>

namespace efimsim {

BlockKeyIndex::BlockKeyIndex(int64_t max_keys) : max_keys_(max_keys) {
  EFIMSIM_CHECK(max_keys >= 1, "a key index needs room for a key");
  // At least two buckets, so that the home shift stays below 64.
  size_t buckets = 2;
  while (buckets * kSlotsPerBucket < static_cast<size_t>(max_keys) * 4) buckets *= 2;
  buckets_.resize(buckets);
  overflow_.assign(buckets, 0);
  bucket_mask_ = buckets - 1;
  home_shift_ = 64 - std::countr_zero(buckets);
}

bool BlockKeyIndex::FindPlace(BlockKey key, Place& place) const {
  size_t bucket = 0;
  unsigned slot = 0;
  if (!Locate(key, bucket, slot)) return false;
  place = Place{static_cast<uint32_t>(bucket * kSlotsPerBucket + slot), bucket != Home(key)};
  return true;
}

BlockKeyChain& BlockKeyIndex::FindOrInsertSlow(BlockKey key, Place& place) {
  if (FindPlace(key, place)) return ChainAt(place.slot);
  // Absent: the first bucket from home with an empty slot takes it, and
  // each full bucket passed counts one more key overflowing it.
  EFIMSIM_CHECK(size_ < max_keys_, "key index full");
  size_t bucket = Home(key);
  size_t distance = 0;
  unsigned empty = EmptyMask(buckets_[bucket]);
  while (empty == 0) {
    if (overflow_[bucket] != kSaturated) ++overflow_[bucket];
    bucket = Next(bucket);
    ++distance;
    empty = EmptyMask(buckets_[bucket]);
  }
  max_distance_ = std::max(max_distance_, distance);
  const unsigned slot = static_cast<unsigned>(std::countr_zero(empty));
  place = Place{static_cast<uint32_t>(bucket * kSlotsPerBucket + slot), distance != 0};
  return Claim(buckets_[bucket], slot, key);
}

void BlockKeyIndex::EraseDisplaced(uint32_t slot) {
  const size_t bucket = slot / kSlotsPerBucket;
  const size_t home = Home(KeyAt(slot));
  Clear(buckets_[bucket], slot % kSlotsPerBucket);
  // Its insertion passed every bucket from home up to its own.
  for (size_t passed = home; passed != bucket; passed = Next(passed)) {
    if (overflow_[passed] != kSaturated) --overflow_[passed];
  }
}

void BlockKeyIndex::EraseSlow(BlockKey key) {
  Place place;
  EFIMSIM_CHECK(FindPlace(key, place), "erasing a key that is not present");
  EraseAt(place);
}

}  // namespace efimsim
