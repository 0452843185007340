#pragma once
// Mooncake traces name prompt blocks of 512 tokens by chained hash ids (an
// equal id at the same position means an identical prefix through that
// block). The simulator's prefix cache works on smaller blocks (16 tokens in
// vLLM), so each 512-token id is expanded into 32 keys of 16-token blocks.
//
// Key j (block of tokens [16j, 16j + 16)) is
//   key_j = Mix64(Mix64(key_{j-1} ^ kMooncakeKeySalt) ^ (Mix64(hash_id[j / 32]) + j % 32 + 1))
// with key_{-1} = kMooncakeRootKey: a function of the hash id, the position
// within its 512-token block and the chain so far. Hence two prompts whose
// hash ids agree on their first n entries get identical first 32n keys, and
// keys differ after the first differing id (up to 64-bit collisions): reuse
// is exact at 16-token block level. Only full 16-token blocks of the input
// get keys (input_tokens / 16 of them); the last partial block gets none.

#include <cstdint>
#include <span>
#include <vector>

namespace efimsim {

inline constexpr uint64_t kMooncakeRootKey = 0x3c6ef372fe94f82bULL;
inline constexpr uint64_t kMooncakeKeySalt = 0xa54ff53a5f1d36f1ULL;

// Keys of the full block_tokens-token blocks of a prompt of input_tokens
// tokens described by `hash_ids` of hash_block_tokens-token blocks.
// Preconditions: block_tokens >= 1, hash_block_tokens % block_tokens == 0,
// hash_ids.size() * hash_block_tokens >= input_tokens (the reader checks).
std::vector<uint64_t> ExpandMooncakeHashIds(std::span<const uint64_t> hash_ids,
                                            int64_t input_tokens, int64_t hash_block_tokens = 512,
                                            int64_t block_tokens = 16);

}  // namespace efimsim
