#include "sim/engine/vllm/block_key.h"

#include <cstring>

#include "sim/base/check.h"
#include "sim/base/uint128.h"

namespace efimsim {
namespace {

// Same finalizer as sim/core Mix64 (kept local: cache must not depend on
// the random-stream code for its keys).
inline uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// 64 x 64 -> 128-bit multiply, halves folded (wyhash's "mum"): every
// input bit reaches the middle of the product. A zero factor would erase
// the other; see the secrets below.
inline uint64_t FoldedMultiply(uint64_t a, uint64_t b) {
  const Uint128 product = static_cast<Uint128>(a) * b;
  return static_cast<uint64_t>(product) ^ static_cast<uint64_t>(product >> 64);
}

// Two token ids, as stored (little- or big-endian: keys stay inside one run).
inline uint64_t LoadPair(const TokenId* tokens) {
  uint64_t pair;
  std::memcpy(&pair, tokens, sizeof(pair));
  return pair;
}

// 1 to 3 tokens after the last full stripe, zero-padded (the block's size
// is in the seed). Out of line: the common block sizes never get here, and
// its buffer would cost every call a stack frame.
[[gnu::noinline]] uint64_t HashPartialStripe(const TokenId* tokens, size_t count,
                                             uint64_t stripe);

// Each stripe of 4 tokens is one folded multiply of its two token pairs,
// each xored with a secret that also encodes the stripe's position, so
// reordering stripes changes the key. The products of a block are
// independent of each other and of the parent, so they all run at once (a
// 16-token block is 4 multiplies wide, not 8 rounds deep), and only the
// final Mix with the parent is a chain along the prompt. Equal keys still
// mean equal (parent, tokens, extra) but for 64-bit collisions: Mix is a
// bijection, so keys collide only when parent ^ hash does.
//
// Both halves of both secrets have their top bit set and the position only
// flips low bits, so a pair of token ids in [0, 2^31) never cancels a
// secret: no factor is zero for real token ids.
constexpr uint64_t kSecretLow = 0xa0761d64f8bd642fULL;
constexpr uint64_t kSecretHigh = 0xe7037ed1a0b428dbULL;

// One stripe of 4 tokens; `stripe` is its index in the block.
inline uint64_t HashStripe(const TokenId* tokens, uint64_t stripe) {
  return FoldedMultiply(LoadPair(tokens) ^ kSecretLow ^ stripe,
                        LoadPair(tokens + 2) ^ kSecretHigh ^ stripe);
}

// `seed` is Mix(extra + size): the same for every block of one size, so a
// loop over a prompt's blocks computes it once.
inline BlockKey HashBlockSeeded(BlockKey parent, TokenSpan block_tokens, uint64_t seed) {
  const TokenId* tokens = block_tokens.data();
  const size_t size = block_tokens.size();
  if (size == 16) {  // the default block size, unrolled: the same value as the loop below
    return Mix((seed + HashStripe(tokens, 0) + HashStripe(tokens + 4, 1) +
                HashStripe(tokens + 8, 2) + HashStripe(tokens + 12, 3)) ^
               parent);
  }
  uint64_t hash = seed;
  uint64_t stripe = 0;
  size_t i = 0;
  for (; i + 4 <= size; i += 4, ++stripe) {
    hash += HashStripe(tokens + i, stripe);
  }
  if (i < size) [[unlikely]] hash += HashPartialStripe(tokens + i, size - i, stripe);
  return Mix(hash ^ parent);
}

uint64_t HashPartialStripe(const TokenId* tokens, size_t count, uint64_t stripe) {
  TokenId last[4] = {0, 0, 0, 0};
  std::memcpy(last, tokens, count * sizeof(TokenId));
  return HashStripe(last, stripe);
}

}  // namespace

BlockKey HashBlock(BlockKey parent, TokenSpan block_tokens, uint64_t extra) {
  return HashBlockSeeded(parent, block_tokens, Mix(extra + block_tokens.size()));
}

void AppendBlockKeys(TokenSpan tokens, int32_t block_tokens, uint64_t extra,
                     std::vector<BlockKey>& keys) {
  EFIMSIM_CHECK(block_tokens > 0, "block size must be positive");
  BlockKey parent = keys.empty() ? kRootBlockKey : keys.back();
  const size_t size = static_cast<size_t>(block_tokens);
  const size_t full_blocks = tokens.size() / size;
  const uint64_t seed = Mix(extra + size);
  for (size_t b = keys.size(); b < full_blocks; ++b) {
    parent = HashBlockSeeded(parent, tokens.subspan(b * size, size), seed);
    keys.push_back(parent);
  }
}

}  // namespace efimsim
