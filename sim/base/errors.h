#pragma once
// User-facing errors. Each message is one line that names what was wrong and
// where (option, or file:line and field), ready to print after "efimsim: ".

#include <cstdint>
#include <stdexcept>
#include <string>

namespace efimsim {

// A bad command-line option or configuration value.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bad content in an input file. `line` is 1-based; 0 means "whole file".
class InputError : public std::runtime_error {
 public:
  InputError(const std::string& file, int64_t line, const std::string& field,
             const std::string& problem);
  const std::string& file() const { return file_; }
  int64_t line() const { return line_; }
  const std::string& field() const { return field_; }

 private:
  std::string file_;
  int64_t line_;
  std::string field_;
};

// The run was stopped from outside (SIGINT) before it finished; nothing
// was written.
class Interrupted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An output that could not be written (directory missing, disk full, ...).
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace efimsim
