#include "traces/shared_tokenizer.h"

#include "traces/load_tokenizer.h"

namespace efimsim {

SharedTokenizer::SharedTokenizer(const std::string& path) : path_(TokenizerPathOrDefault(path)) {}

const tokenizer::BpeTokenizer& SharedTokenizer::Get(const tokenizer::StopPoll& poll) const {
  std::call_once(once_, [this, &poll] { tokenizer_.emplace(LoadTokenizer(path_, poll)); });
  return *tokenizer_;
}

}  // namespace efimsim
