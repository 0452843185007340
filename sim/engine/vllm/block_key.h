#pragma once
// Keys of full KV blocks, as vLLM v1's prefix cache defines them: a block's
// key is a hash of (parent block's key, the block's token ids, extra keys),
// so equal keys at position i imply equal tokens in blocks 0..i.
//
// 64-bit keys; a collision would merge two different prefixes. With the
// mixing below its chance is about n^2 / 2^65 for n distinct blocks, under
// 1e-5 for 10^7 blocks. vLLM's default Python hash has the same width.

#include <cstdint>
#include <vector>

#include "sim/base/tokens.h"

namespace efimsim {

using BlockKey = uint64_t;

// The parent key of block 0.
inline constexpr BlockKey kRootBlockKey = 0x6a09e667f3bcc908ULL;

// Key of one full block. `extra` stands for vLLM's extra keys (LoRA id,
// cache salt); 0 when none.
BlockKey HashBlock(BlockKey parent, TokenSpan block_tokens, uint64_t extra = 0);

// Extends `keys` to cover every full block of `tokens`. Precondition: `keys`
// already holds the keys of the first keys.size() full blocks of `tokens`
// (empty to start from the root), so a growing sequence is hashed once.
void AppendBlockKeys(TokenSpan tokens, int32_t block_tokens, uint64_t extra,
                     std::vector<BlockKey>& keys);

}  // namespace efimsim
