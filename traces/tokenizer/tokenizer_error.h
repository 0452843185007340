#pragma once

#include <stdexcept>
#include <string>

namespace efimsim::tokenizer {

// Thrown when a tokenizer file cannot be loaded: unreadable, malformed, or
// using a feature this implementation does not support. what() reads
// "<file>: <field>: <problem>"; file() and field() give the parts, where
// field is a dotted path into the JSON such as "model.merges[12]" (empty
// when the problem is the file as a whole).
class TokenizerError : public std::runtime_error {
 public:
  TokenizerError(std::string file, std::string field, const std::string& problem);

  const std::string& file() const { return file_; }
  const std::string& field() const { return field_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string file_;
  std::string field_;
  std::string problem_;
};

}  // namespace efimsim::tokenizer
