#include "traces/mooncake_block_keys.h"

#include "sim/base/check.h"
#include "sim/core/random.h"

namespace efimsim {

std::vector<uint64_t> ExpandMooncakeHashIds(std::span<const uint64_t> hash_ids,
                                            int64_t input_tokens, int64_t hash_block_tokens,
                                            int64_t block_tokens) {
  EFIMSIM_CHECK(block_tokens >= 1 && hash_block_tokens % block_tokens == 0,
                "hash blocks must be whole multiples of key blocks");
  const int64_t per_hash = hash_block_tokens / block_tokens;
  const int64_t blocks = input_tokens / block_tokens;
  EFIMSIM_CHECK(static_cast<int64_t>(hash_ids.size()) * per_hash >= blocks,
                "too few hash ids for the input length");
  std::vector<uint64_t> keys;
  keys.reserve(static_cast<size_t>(blocks));
  uint64_t chain = kMooncakeRootKey;
  for (int64_t j = 0; j < blocks; ++j) {
    const uint64_t id = hash_ids[static_cast<size_t>(j / per_hash)];
    const auto position = static_cast<uint64_t>(j % per_hash + 1);
    chain = Mix64(Mix64(chain ^ kMooncakeKeySalt) ^ (Mix64(id) + position));
    keys.push_back(chain);
  }
  return keys;
}

}  // namespace efimsim
