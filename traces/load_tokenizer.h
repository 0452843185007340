#pragma once
// Loading the BPE tokenizer for a run or a command: an empty path means the
// Llama-3.1 tokenizer that scripts/fetch-tokenizer caches; a missing or bad
// file is an InputError naming file and field, with the fix to try.

#include <string>

#include "traces/tokenizer/bpe_tokenizer.h"

namespace efimsim {

std::string TokenizerPathOrDefault(const std::string& path);
tokenizer::BpeTokenizer LoadTokenizer(const std::string& path);

}  // namespace efimsim
