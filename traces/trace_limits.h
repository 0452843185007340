#pragma once
// Upper bounds on the numbers a trace may hold, checked by every reader
// (efimsim JSON Lines, Azure, Mooncake, TaskTracker, HumanEval) and by the
// writer with the functions below, so that an absurd value is an input
// error naming file, line and field (exit 1), never an overflow or an
// allocation failure deep inside a run (exit 3).
//
//   token counts (prompt, output, block size)  <= kMaxTraceTokens = 2^31 - 1
//     (a position fits an int32; far above any model's context);
//   times and durations                        <  kMaxTraceTimeNs = 2^62 ns
//     (about 146 years): a time plus any other trace time or duration still
//     fits int64 nanoseconds, so a consumer adding them cannot overflow.

#include <cstdint>
#include <optional>
#include <string>

namespace efimsim {

inline constexpr int64_t kMaxTraceTokens = (int64_t{1} << 31) - 1;
inline constexpr int64_t kMaxTraceTimeNs = int64_t{1} << 62;  // exclusive

// "must be <= 2147483647 tokens" when `value` is above kMaxTraceTokens (the
// lower bound is the caller's: >= 0 or >= 1 depending on the field).
std::optional<std::string> TraceTokensProblem(int64_t value);
// "must be < 2^62 ns (about 146 years)" when `time_ns` is at or above
// kMaxTraceTimeNs.
std::optional<std::string> TraceTimeProblem(int64_t time_ns);

// `value` when it is in [min_value, kMaxTraceTokens]; otherwise throws
// InputError(file, line, field, ...).
int64_t CheckedTraceTokens(int64_t value, int64_t min_value, const std::string& file,
                           int64_t line, const std::string& field);

// The one checked conversion of a trace time to nanoseconds: `value` units
// of `ns_per_unit` ns (1 for ns, 1000000 for ms), when `value` >= 0 and the
// product is below kMaxTraceTimeNs; otherwise throws InputError(file, line,
// field, ...) (a negative value: "must be >= 0").
int64_t CheckedTraceTimeNs(int64_t value, int64_t ns_per_unit, const std::string& file,
                           int64_t line, const std::string& field);

// `a + b` for two trace times/durations when the sum is below
// kMaxTraceTimeNs (both must be >= 0); otherwise throws InputError.
int64_t CheckedTraceTimeSum(int64_t a, int64_t b, const std::string& file, int64_t line,
                            const std::string& field);

}  // namespace efimsim
