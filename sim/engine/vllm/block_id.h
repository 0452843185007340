#pragma once
// Index of a KV block in the pool: [0, num_blocks), or kNoBlock.

#include <cstdint>

namespace efimsim {

using BlockId = int32_t;
inline constexpr BlockId kNoBlock = -1;

}  // namespace efimsim
