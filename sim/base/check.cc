#include "sim/base/check.h"

namespace efimsim {

void FailCheck(const char* file, int line, const char* condition, const std::string& message) {
  throw InternalError(std::string("internal error at ") + file + ":" + std::to_string(line) +
                      ": " + message + " (" + condition + ")");
}

}  // namespace efimsim
