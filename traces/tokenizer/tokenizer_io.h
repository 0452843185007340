#pragma once

#include <string>

#include "traces/tokenizer/stop_poll.h"
#include "traces/tokenizer/tokenizer_data.h"

namespace efimsim::tokenizer {

// Reads a Hugging Face tokenizer.json. Supported (everything else is
// rejected with a TokenizerError naming the file and the field):
//   model: type "BPE", merges as "a b" strings or ["a","b"] pairs,
//          ignore_merges, byte_fallback false, no dropout / unk_token /
//          continuing_subword_prefix / end_of_word_suffix;
//   normalizer: null;
//   pre_tokenizer: Sequence[Split(Llama-3 pattern, Isolated, invert false),
//                  ByteLevel(add_prefix_space false, use_regex false)];
//   added_tokens: lstrip, rstrip and single_word false;
//   decoder: null or ByteLevel.
// post_processor, truncation and padding are ignored: encoding never adds
// special tokens. `poll` is called during the parse (see stop_poll.h).
TokenizerData ReadTokenizerJson(const std::string& path, const StopPoll& poll = {});

}  // namespace efimsim::tokenizer
