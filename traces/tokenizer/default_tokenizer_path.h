#pragma once

#include <string>

namespace efimsim::tokenizer {

// The efimsim cache directory: $EFIMSIM_CACHE_DIR if set and non-empty,
// else $HOME/.cache/efimsim. Throws std::runtime_error when neither
// variable is set. Same rule as scripts/fetch-tokenizer.
std::string EfimsimCacheDir();

// Where scripts/fetch-tokenizer puts the Llama-3.1 tokenizer.json:
// EfimsimCacheDir() + "/llama3_1/tokenizer.json". The file may not exist.
std::string DefaultTokenizerPath();

}  // namespace efimsim::tokenizer
