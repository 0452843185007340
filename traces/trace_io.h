#pragma once
// One line of an efimsim trace <-> a record (JSON; traces/FORMAT.md). The
// only JSON code of the trace format lives behind this header (trace_io.cc).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "traces/trace_records.h"

namespace efimsim {

// Parse one line. `file` and `line_number` (1-based) are for errors: every
// problem throws InputError(file, line_number, field, problem). A session
// with text_file comes back with text empty; the reader loads the file.
TraceHeader ParseTraceHeaderLine(std::string_view line, const std::string& file,
                                 int64_t line_number);
TraceRecord ParseTraceRecordLine(std::string_view line, const std::string& file,
                                 int64_t line_number);

// The canonical line (no "\n") for a header or a record. Precondition: the
// record passes ValidateRecord (the writer checks).
std::string FormatTraceHeaderLine(const TraceHeader& header);
std::string FormatTraceRecordLine(const TraceRecord& record);

// For format detection: the keys of a line that is a JSON object, and its
// "type" member when that is a string; nullopt when the line is not a JSON
// object. Never throws.
struct JsonLineShape {
  std::vector<std::string> keys;
  std::string type;
};
std::optional<JsonLineShape> InspectJsonLine(std::string_view line);
// The same for a line that must be a JSON object (it starts with '{'):
// throws InputError(file, line_number, "", where the JSON broke) otherwise.
JsonLineShape InspectJsonObjectLine(std::string_view line, const std::string& file,
                                    int64_t line_number);

}  // namespace efimsim
