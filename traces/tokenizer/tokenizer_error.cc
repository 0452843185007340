#include "traces/tokenizer/tokenizer_error.h"

#include <utility>

namespace efimsim::tokenizer {
namespace {

std::string FormatMessage(const std::string& file, const std::string& field,
                          const std::string& problem) {
  std::string message = file + ": ";
  if (!field.empty()) message += field + ": ";
  return message + problem;
}

}  // namespace

TokenizerError::TokenizerError(std::string file, std::string field, const std::string& problem)
    : std::runtime_error(FormatMessage(file, field, problem)),
      file_(std::move(file)),
      field_(std::move(field)),
      problem_(problem) {}

}  // namespace efimsim::tokenizer
