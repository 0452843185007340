#pragma once
// Invariant checks. A failed EFIMSIM_CHECK is a bug in efimsim, never a user
// error: it throws InternalError naming the file and line so that a run stops
// loudly instead of producing a silently wrong number. User errors are
// UsageError / InputError (sim/base/errors.h).

#include <stdexcept>
#include <string>

namespace efimsim {

class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

[[noreturn]] void FailCheck(const char* file, int line, const char* condition,
                            const std::string& message);

}  // namespace efimsim

#define EFIMSIM_CHECK(condition, message)                                   \
  do {                                                                      \
    if (!(condition)) [[unlikely]] {                                        \
      ::efimsim::FailCheck(__FILE__, __LINE__, #condition, (message));      \
    }                                                                       \
  } while (false)
