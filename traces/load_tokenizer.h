#pragma once
// Loading the BPE tokenizer for a run or a command: an empty path means the
// Llama-3.1 tokenizer that scripts/fetch-tokenizer caches; a missing or bad
// file is an InputError naming file and field, with the fix to try.

#include <string>

#include "traces/tokenizer/bpe_tokenizer.h"

namespace efimsim {

std::string TokenizerPathOrDefault(const std::string& path);
// `poll`: called now and then during the load; what it throws escapes.
tokenizer::BpeTokenizer LoadTokenizer(const std::string& path,
                                      const tokenizer::StopPoll& poll = {});

}  // namespace efimsim
