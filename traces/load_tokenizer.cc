#include "traces/load_tokenizer.h"

#include "sim/base/errors.h"
#include "traces/tokenizer/default_tokenizer_path.h"
#include "traces/tokenizer/tokenizer_error.h"

namespace efimsim {

std::string TokenizerPathOrDefault(const std::string& path) {
  return path.empty() ? tokenizer::DefaultTokenizerPath() : path;
}

tokenizer::BpeTokenizer LoadTokenizer(const std::string& path, const tokenizer::StopPoll& poll) {
  try {
    return tokenizer::BpeTokenizer::FromFile(TokenizerPathOrDefault(path), poll);
  } catch (const tokenizer::TokenizerError& error) {
    // InputError puts file and field in front of the problem itself.
    throw InputError(error.file(), 0, error.field(),
                     error.problem() + " (run scripts/fetch-tokenizer?)");
  }
}

}  // namespace efimsim
