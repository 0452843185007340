#include "sim/cache/block_key.h"

#include "sim/base/check.h"

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

}  // namespace

BlockKey HashBlock(BlockKey parent, TokenSpan block_tokens, uint64_t extra) {
  // One multiply-xorshift round per pair of tokens (each round is a
  // bijection of the state for a fixed input), then a full finalizer.
  constexpr uint64_t kMultiplier = 0x9e3779b97f4a7c15ULL;
  uint64_t hash = parent ^ Mix(extra + block_tokens.size());
  size_t i = 0;
  for (; i + 1 < block_tokens.size(); i += 2) {
    const uint64_t pair = (static_cast<uint64_t>(static_cast<uint32_t>(block_tokens[i])) << 32) |
                          static_cast<uint32_t>(block_tokens[i + 1]);
    hash = (hash ^ pair) * kMultiplier;
    hash ^= hash >> 29;
  }
  if (i < block_tokens.size()) {
    hash = (hash ^ static_cast<uint32_t>(block_tokens[i])) * kMultiplier;
    hash ^= hash >> 29;
  }
  return Mix(hash);
}

void AppendBlockKeys(TokenSpan tokens, int32_t block_tokens, uint64_t extra,
                     std::vector<BlockKey>& keys) {
  EFIMSIM_CHECK(block_tokens > 0, "block size must be positive");
  BlockKey parent = keys.empty() ? kRootBlockKey : keys.back();
  const size_t full_blocks = tokens.size() / static_cast<size_t>(block_tokens);
  for (size_t b = keys.size(); b < full_blocks; ++b) {
    parent = HashBlock(parent, tokens.subspan(b * block_tokens, block_tokens), extra);
    keys.push_back(parent);
  }
}

}  // namespace efimsim
