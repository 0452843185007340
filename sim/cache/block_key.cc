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
  // The tokens are hashed on their own, one multiply-xorshift round per
  // pair (each round a bijection of the state for a fixed input), and the
  // parent's key joins only in the final mix. So a block's rounds do not
  // wait for the previous block's key: consecutive blocks of a prompt
  // overlap in the CPU, and only the final Mix is a chain along the prompt.
  // Equal keys still mean equal (parent, tokens, extra): Mix is a bijection,
  // so keys collide only when parent ^ hash does, as likely as for any two
  // 64-bit hashes.
  constexpr uint64_t kMultiplier = 0x9e3779b97f4a7c15ULL;
  uint64_t hash = Mix(extra + block_tokens.size());
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
  return Mix(hash ^ parent);
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
