#pragma once
// What the first bytes of a skipped efimsim trace line (one too long to
// read: LongLinePolicy::kSkip) say about its record, so the reader can
// skip that record alone and drop exactly what depended on it.
//
// The head is parsed as the start of a JSON object, leniently: parsing
// stops where the head is cut (or at the first error), and the top-level
// fields seen before that are reported. TraceWriter writes "type",
// "time_ns" / "arrival_ns" and "session_id" before any long field, so the
// head of a line it wrote always has them.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace efimsim {

struct SkippedLineHead {
  std::optional<std::string> type;        // "session", "edit", "request", ...
  std::optional<std::string> session_id;
  std::optional<int64_t> time_ns;         // time_ns, or arrival_ns of a request
};

SkippedLineHead ReadSkippedLineHead(std::string_view head);

}  // namespace efimsim
