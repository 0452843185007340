#pragma once
// The check the trace targets share for LongLinePolicy::kSkip: the input is
// read twice at a small maximum line length (kSkipCheckMaxLineBytes, so
// that fuzzed inputs often have lines over it), once failing on long lines
// and once skipping them. FUZZ_CHECKs:
//  - skip mode returns only valid records, in non-decreasing time order;
//  - its counts agree: no skipped line, no dependent record and no first
//    line; a skipped line, a first line >= 1;
//  - where strict mode reads the whole input (so no line is too long),
//    skip mode reads it whole too, skips nothing and returns the same
//    records.
// InputError is a normal outcome of either read; anything else escapes.

#include <cstdint>
#include <string>

#include "traces/trace_open.h"

namespace efimsim::fuzz {

inline constexpr int64_t kSkipCheckMaxLineBytes = 256;

// Reads `path` with `options` (its max_line_bytes and long_lines replaced).
void CheckLongLineSkipping(const std::string& path, TraceReadOptions options);

}  // namespace efimsim::fuzz
