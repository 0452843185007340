#pragma once
// Simulated time: integer nanoseconds, with distinct types for a span
// (Duration) and a point (TimePoint), after absl/time and std::chrono.
//
// Contract: all simulator state holds time as these types. Seconds as double
// exist only at I/O and inside latency models, and cross over through the two
// conversions below, which are the only ones in the code base.

#include <chrono>
#include <cstdint>

namespace efimsim {

using Duration = std::chrono::duration<int64_t, std::nano>;

// The simulation clock; epoch 0 is the start of a run.
struct SimClock {
  using rep = int64_t;
  using period = std::nano;
  using duration = Duration;
  using time_point = std::chrono::time_point<SimClock, Duration>;
  static constexpr bool is_steady = true;
};
using TimePoint = SimClock::time_point;

constexpr TimePoint kTimeZero{};

constexpr Duration Nanoseconds(int64_t ns) { return Duration{ns}; }
constexpr Duration Microseconds(int64_t us) { return Duration{us * 1000}; }
constexpr Duration Milliseconds(int64_t ms) { return Duration{ms * 1000000}; }

constexpr int64_t ToNanoseconds(Duration d) { return d.count(); }
constexpr int64_t ToNanoseconds(TimePoint t) { return t.time_since_epoch().count(); }

// The longest span FromSeconds converts: 2^62 ns, about 146 years (the
// trace limit, traces/trace_limits.h), so that a time point plus such a
// span still fits int64 nanoseconds.
inline constexpr double kMaxFromSeconds = 4611686018.427387904;  // 2^62 ns in s

// Whether FromSeconds accepts `seconds`: finite, >= 0 and <= kMaxFromSeconds
// (false for NaN).
constexpr bool FitsFromSeconds(double seconds) {
  return seconds >= 0.0 && seconds <= kMaxFromSeconds;
}

// Seconds <-> Duration. FromSeconds rounds to the nearest nanosecond (ties
// away from zero). Contract: FitsFromSeconds(seconds). A value outside it is
// the caller's bug (EFIMSIM_CHECK, exit 3): code that converts a number it
// did not compute itself (an option, a trace field, a model's output for
// user-given sizes) checks FitsFromSeconds first and reports a usage or
// input error naming what it converts.
Duration FromSeconds(double seconds);
constexpr double ToSeconds(Duration d) { return static_cast<double>(d.count()) * 1e-9; }
constexpr double ToMilliseconds(Duration d) { return static_cast<double>(d.count()) * 1e-6; }

}  // namespace efimsim
