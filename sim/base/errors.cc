#include "sim/base/errors.h"

namespace efimsim {
namespace {

std::string FormatInputError(const std::string& file, int64_t line, const std::string& field,
                             const std::string& problem) {
  std::string where = file;
  if (line > 0) where.append(":").append(std::to_string(line));
  if (!field.empty()) where.append(": field '").append(field).append("'");
  where.append(": ").append(problem);
  return where;
}

}  // namespace

InputError::InputError(const std::string& file, int64_t line, const std::string& field,
                       const std::string& problem)
    : std::runtime_error(FormatInputError(file, line, field, problem)),
      file_(file), line_(line), field_(field) {}

}  // namespace efimsim
