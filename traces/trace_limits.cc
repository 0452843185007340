#include "traces/trace_limits.h"

#include "sim/base/errors.h"

namespace efimsim {
namespace {

const char kTimeLimit[] = "must be < 2^62 ns (about 146 years; traces/trace_limits.h)";

}  // namespace

std::optional<std::string> TraceTokensProblem(int64_t value) {
  if (value <= kMaxTraceTokens) return std::nullopt;
  return std::to_string(value) + " tokens is too many: must be <= " +
         std::to_string(kMaxTraceTokens) + " (2^31 - 1; traces/trace_limits.h)";
}

std::optional<std::string> TraceTimeProblem(int64_t time_ns) {
  if (time_ns < kMaxTraceTimeNs) return std::nullopt;
  return std::to_string(time_ns) + " ns is too late: " + kTimeLimit;
}

int64_t CheckedTraceTokens(int64_t value, int64_t min_value, const std::string& file,
                           int64_t line, const std::string& field) {
  if (value < min_value) {
    throw InputError(file, line, field, "must be >= " + std::to_string(min_value));
  }
  if (std::optional<std::string> problem = TraceTokensProblem(value)) {
    throw InputError(file, line, field, *problem);
  }
  return value;
}

int64_t CheckedTraceTimeNs(int64_t value, int64_t ns_per_unit, const std::string& file,
                           int64_t line, const std::string& field) {
  if (value < 0) throw InputError(file, line, field, "must be >= 0");
  if (ns_per_unit < 1 || value >= (kMaxTraceTimeNs - 1) / ns_per_unit + 1) {
    throw InputError(file, line, field,
                     std::to_string(value) + (ns_per_unit == 1 ? " ns" : " x " +
                     std::to_string(ns_per_unit) + " ns") + " is too late: " + kTimeLimit);
  }
  return value * ns_per_unit;
}

int64_t CheckedTraceTimeSum(int64_t a, int64_t b, const std::string& file, int64_t line,
                            const std::string& field) {
  if (a < 0 || b < 0 || a >= kMaxTraceTimeNs || b >= kMaxTraceTimeNs - a) {
    throw InputError(file, line, field,
                     std::to_string(a) + " + " + std::to_string(b) + " ns: " + kTimeLimit);
  }
  return a + b;
}

}  // namespace efimsim
