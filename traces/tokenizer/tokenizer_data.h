#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace efimsim::tokenizer {

// An entry of tokenizer.json's "added_tokens" (special tokens, FIM sentinels).
struct AddedTokenSpec {
  std::string content;  // raw UTF-8 text, matched verbatim in input
  int32_t id;
  bool special;
};

// The parts of a Hugging Face tokenizer.json that byte-level BPE needs,
// already checked to use only supported features (see tokenizer_io.h).
// Strings of vocab and merges are in the byte-level alphabet, as in the file.
struct TokenizerData {
  std::string source_path;                                  // for error messages
  std::vector<std::pair<std::string, int32_t>> vocab;       // model.vocab
  std::vector<std::pair<std::string, std::string>> merges;  // model.merges; rank = index
  bool ignore_merges = false;                               // model.ignore_merges
  std::vector<AddedTokenSpec> added_tokens;                 // added_tokens
};

}  // namespace efimsim::tokenizer
