#pragma once
// BlockKey -> (first, last) block holding it: the prefix cache's lookup
// table. Open addressing over 64-byte buckets of four slots, with a
// per-bucket overflow count instead of tombstones or shifting (as in
// Folly's F14 tables). Its capacity is fixed at construction (four slots
// per key it will hold: one key per block), so it never rehashes.
//
// Layout and laws:
//  - A key's home is one bucket (Fibonacci hashing of the key's bits). It
//    is stored in the first bucket, from its home on (wrapping), that had a
//    free slot when it was inserted.
//  - overflow_[b] counts the keys stored past bucket b whose probe passed
//    through b (b was full when they were inserted). A lookup scans its
//    home bucket and goes on to the next only while the current bucket's
//    count is non-zero; so an absent key costs one bucket in the common
//    case, and an erase just empties its slot and decrements the counts
//    of the buckets its insertion passed.
//  - A count that reaches 255 stays there (it is never decremented again):
//    lookups then always look past that bucket. Slower, still exact.
//  - No lookup goes further from the home bucket than the farthest any key
//    was ever stored (max_distance_), so it ends even if every bucket's
//    count is non-zero.
//
// Why this layout: under cache thrash every block taken erases one key and
// registers another. With linear probing and backward-shift deletion the
// probe and shift loops' lengths were unpredictable branches, ~0.9
// mispredictions per erase even at a load factor of 1/4 (callgrind, the
// 2,000-user paper run). Here the common erase and insert find their slot
// in the home bucket with a branch-free scan of its four slots. A
// SwissTable-style layout (control bytes, tombstones) was tried before:
// its periodic purges of tombstones cost 12% more instructions.

#include <array>
#include <bit>
#include <cstdint>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "sim/base/check.h"
#include "sim/engine/vllm/block_key.h"

namespace efimsim {

struct BlockKeyChain {
  int32_t head = -1;  // earliest-registered block holding the key
  int32_t tail = -1;  // latest-registered
};

class BlockKeyIndex {
 public:
  // Where a key is stored: its slot (bucket * 4 + place in the bucket),
  // and whether that bucket is not its home. A key never moves while it is
  // present, so a caller may keep its Place to erase it later without a
  // lookup (EraseAt).
  struct Place {
    uint32_t slot = 0;
    bool displaced = false;
  };

  // Room for `max_keys` keys at a load factor of at most 1/4.
  explicit BlockKeyIndex(int64_t max_keys);

  // The chain of `key`, or nullptr.
  const BlockKeyChain* Find(BlockKey key) const { return FindChain(key); }
  BlockKeyChain* Find(BlockKey key) { return const_cast<BlockKeyChain*>(FindChain(key)); }
  // The chain of `key`, inserted empty (head == tail == -1) if absent; the
  // caller sets its head before any other call. Precondition: fewer than
  // max_keys keys are present.
  BlockKeyChain& FindOrInsert(BlockKey key) {
    Place place;
    return FindOrInsert(key, place);
  }
  // The same, and where the key is stored, in `place`.
  BlockKeyChain& FindOrInsert(BlockKey key, Place& place) {
    const size_t home = Home(key);
    Bucket& bucket = buckets_[home];
    const unsigned match = MatchMask(bucket, key);
    const unsigned empty = EmptyMask(bucket);
    const unsigned slot = static_cast<unsigned>(std::countr_zero(match != 0 ? match : empty));
    if (match == 0 && (overflow_[home] != 0 || empty == 0)) [[unlikely]] {
      return FindOrInsertSlow(key, place);
    }
    place = Place{static_cast<uint32_t>(home * kSlotsPerBucket + slot), false};
    return match != 0 ? bucket.chains[slot] : Claim(bucket, slot, key);
  }
  // Removes `key`. Precondition: present.
  void Erase(BlockKey key) {
    Bucket& bucket = buckets_[Home(key)];
    const unsigned match = MatchMask(bucket, key);
    if (match == 0) [[unlikely]] return EraseSlow(key);
    Clear(bucket, static_cast<unsigned>(std::countr_zero(match)));
  }
  // Removes the key stored at `place` (as FindOrInsert gave it; the key is
  // still present). A key in its home bucket is cleared by stores alone,
  // without reading the bucket first: a caller evicting a block that is
  // not in cache does not wait for it.
  void EraseAt(Place place) {
    if (place.displaced) [[unlikely]] return EraseDisplaced(place.slot);
    Clear(buckets_[place.slot / kSlotsPerBucket], place.slot % kSlotsPerBucket);
  }
  // The chain and the key stored at `slot` (a Place's; occupied).
  BlockKeyChain& ChainAt(uint32_t slot) {
    return buckets_[slot / kSlotsPerBucket].chains[slot % kSlotsPerBucket];
  }
  BlockKey KeyAt(uint32_t slot) const { return buckets_[slot / kSlotsPerBucket].keys[slot % kSlotsPerBucket]; }
  // Where `key` is stored, or false if it is absent.
  bool FindPlace(BlockKey key, Place& place) const;
  // Starts loading the bucket holding `slot`, for a later EraseAt or
  // ChainAt. A hint only. Every prefetch helper here is always inline:
  // GCC deletes the call of a function whose only effect is a prefetch.
  [[gnu::always_inline]] void PrefetchSlot(uint32_t slot) const { __builtin_prefetch(&buckets_[slot / kSlotsPerBucket]); }

  // Starts loading the bucket where `key` would be found, so that a Find,
  // FindOrInsert or Erase of it a little later does not wait for memory.
  // A hint only: it changes nothing.
  [[gnu::always_inline]] void Prefetch(BlockKey key) const { __builtin_prefetch(&buckets_[Home(key)]); }

  int64_t size() const { return size_; }

  // Visits every (key, chain), in slot order (tests and invariant checks).
  template <class Visitor>
  void ForEach(Visitor&& visit) const {
    for (const Bucket& bucket : buckets_) {
      for (size_t i = 0; i < kSlotsPerBucket; ++i) {
        if (bucket.chains[i].head != -1) visit(bucket.keys[i], bucket.chains[i]);
      }
    }
  }

 private:
  static constexpr int kSlotsPerBucket = 4;
  static constexpr uint8_t kSaturated = 255;
  // Four slots' keys, then their chains (chain.head == -1 marks an empty
  // slot): one cache line, scanned with two SSE2 compares.
  struct alignas(64) Bucket {
    std::array<BlockKey, kSlotsPerBucket> keys{};
    std::array<BlockKeyChain, kSlotsPerBucket> chains{};
  };
  static_assert(sizeof(Bucket) == 64, "a bucket is one cache line");

  size_t Home(BlockKey key) const {
    // Keys are hashes already, but imported ones may be small integers:
    // one multiply spreads them, and its top bits pick the bucket.
    return static_cast<size_t>((key * 0x9e3779b97f4a7c15ULL) >> home_shift_);
  }
  // Bit i: slot i is empty. Branch-free.
  static unsigned EmptyMask(const Bucket& bucket) {
#if defined(__SSE2__)
    const auto* chains = reinterpret_cast<const __m128*>(bucket.chains.data());
    // (head0, head1, head2, head3) from (head, tail) pairs.
    const __m128i heads = _mm_castps_si128(_mm_shuffle_ps(chains[0], chains[1], _MM_SHUFFLE(2, 0, 2, 0)));
    return static_cast<unsigned>(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(heads, _mm_set1_epi32(-1)))));
#else
    unsigned mask = 0;
    for (int i = 0; i < kSlotsPerBucket; ++i) {
      mask |= static_cast<unsigned>(bucket.chains[static_cast<size_t>(i)].head == -1) << i;
    }
    return mask;
#endif
  }
  // Bit i: slot i holds `key`. Branch-free.
  static unsigned MatchMask(const Bucket& bucket, BlockKey key) {
#if defined(__SSE2__)
    // SSE2 has no 64-bit compare: a key matches where both 32-bit halves do.
    const __m128i wanted = _mm_set1_epi64x(static_cast<int64_t>(key));
    const auto* keys = reinterpret_cast<const __m128i*>(bucket.keys.data());
    __m128i low = _mm_cmpeq_epi32(_mm_load_si128(keys), wanted);
    __m128i high = _mm_cmpeq_epi32(_mm_load_si128(keys + 1), wanted);
    low = _mm_and_si128(low, _mm_shuffle_epi32(low, _MM_SHUFFLE(2, 3, 0, 1)));
    high = _mm_and_si128(high, _mm_shuffle_epi32(high, _MM_SHUFFLE(2, 3, 0, 1)));
    const unsigned equal = static_cast<unsigned>(_mm_movemask_pd(_mm_castsi128_pd(low)) |
                                                 _mm_movemask_pd(_mm_castsi128_pd(high)) << 2);
#else
    unsigned equal = 0;
    for (int i = 0; i < kSlotsPerBucket; ++i) {
      equal |= static_cast<unsigned>(bucket.keys[static_cast<size_t>(i)] == key) << i;
    }
#endif
    return equal & ~EmptyMask(bucket);
  }
  size_t Next(size_t bucket) const { return (bucket + 1) & bucket_mask_; }
  // Takes the empty slot `slot` of `bucket` for `key`; returns its chain.
  BlockKeyChain& Claim(Bucket& bucket, unsigned slot, BlockKey key) {
    EFIMSIM_CHECK(size_ < max_keys_, "key index full");
    bucket.keys[slot] = key;
    ++size_;
    return bucket.chains[slot];
  }
  // Empties slot `slot` of `bucket`.
  void Clear(Bucket& bucket, unsigned slot) {
    bucket.keys[slot] = 0;
    bucket.chains[slot] = BlockKeyChain{};
    --size_;
  }
  // The bucket holding `key` and the key's slot in it, or false; any
  // bucket. The one walk of a key's probe run (Find, FindPlace, the slow
  // paths).
  bool Locate(BlockKey key, size_t& bucket, unsigned& slot) const {
    bucket = Home(key);
    for (size_t distance = 0;; ++distance) {
      const unsigned match = MatchMask(buckets_[bucket], key);
      if (match != 0) {
        slot = static_cast<unsigned>(std::countr_zero(match));
        return true;
      }
      if (overflow_[bucket] == 0 || distance == max_distance_) return false;
      bucket = Next(bucket);
    }
  }
  // The chain of `key`, or nullptr.
  const BlockKeyChain* FindChain(BlockKey key) const {
    size_t bucket = 0;
    unsigned slot = 0;
    return Locate(key, bucket, slot) ? &buckets_[bucket].chains[slot] : nullptr;
  }
  // The general cases, when the home bucket is full or overflowed.
  BlockKeyChain& FindOrInsertSlow(BlockKey key, Place& place);
  void EraseSlow(BlockKey key);
  // Empties the slot of a key stored past its home, and undoes the
  // overflow counts its insertion added.
  void EraseDisplaced(uint32_t slot);

  std::vector<Bucket> buckets_;
  std::vector<uint8_t> overflow_;  // per bucket; see the laws above
  // The farthest, in buckets, any key was ever stored from its home.
  // Lookups go no further: overflow counts alone can be non-zero in every
  // bucket at once (keys that passed full buckets outlive the keys that
  // filled them; a saturated count never drops), and an absent key would
  // then be looked for forever.
  size_t max_distance_ = 0;
  size_t bucket_mask_ = 0;         // buckets_.size() - 1 (a power of two)
  int home_shift_ = 0;             // 64 - log2(buckets_.size())
  int64_t size_ = 0;
  int64_t max_keys_ = 0;
};

}  // namespace efimsim
