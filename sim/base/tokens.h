#pragma once
// Token ids as a server sees them. A prompt is a sequence of TokenId; the
// cache keys blocks of them (sim/engine/vllm/block_key.h).

#include <cstdint>
#include <span>
#include <vector>

namespace efimsim {

using TokenId = int32_t;
using TokenSpan = std::span<const TokenId>;
using TokenVector = std::vector<TokenId>;

}  // namespace efimsim
