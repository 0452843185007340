#include "traces/tokenizer/default_tokenizer_path.h"

#include <cstdlib>
#include <stdexcept>

namespace efimsim::tokenizer {

std::string EfimsimCacheDir() {
  const char* cache_dir = std::getenv("EFIMSIM_CACHE_DIR");
  if (cache_dir != nullptr && *cache_dir != '\0') return cache_dir;
  const char* home = std::getenv("HOME");
  if (home != nullptr && *home != '\0') return std::string(home) + "/.cache/efimsim";
  throw std::runtime_error("neither EFIMSIM_CACHE_DIR nor HOME is set; cannot locate the efimsim cache");
}

std::string DefaultTokenizerPath() { return EfimsimCacheDir() + "/llama3_1/tokenizer.json"; }

}  // namespace efimsim::tokenizer
