#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "traces/tokenizer/bpe_merge_table.h"

namespace efimsim::tokenizer {

// Byte-level BPE of one pre-token: starts from one token per byte
// (byte_token_ids[b]) and repeatedly applies the lowest-rank merge among
// adjacent pairs, leftmost first on ties, until no pair merges. This is the
// order of the JS reference's priority queue (score = rank + position/len)
// and of Hugging Face tokenizers. O(n log n) in the pre-token length.
// Appends the resulting ids to `out`. Thread-safe (scratch is thread_local).
void AppendBpeMergedIds(std::string_view pre_token, const std::array<int32_t, 256>& byte_token_ids,
                        const BpeMergeTable& merges, std::vector<int32_t>& out);

}  // namespace efimsim::tokenizer
