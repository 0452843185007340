#pragma once
// Checks shared by the trace targets: record equality and the writer/reader
// round trip (records -> TraceWriter -> EfimTraceReader -> same records,
// and writing those again gives the same bytes: FORMAT.md's canonical form).

#include <string>
#include <vector>

#include "traces/trace_records.h"

namespace efimsim::fuzz {

bool SameRecord(const TraceRecord& a, const TraceRecord& b);
// One line describing a record, for failure messages.
std::string DescribeRecord(const TraceRecord& record);

// Writes `records` under `header` with TraceWriter (which must accept every
// one of them: they came from a reader), reads the result back from the
// scratch file `name` with EfimTraceReader and FUZZ_CHECKs that header and
// records are identical, and that writing them again gives the same bytes.
// Returns the bytes written.
std::string CheckRoundTrip(const TraceHeader& header, const std::vector<TraceRecord>& records,
                           const std::string& name);

}  // namespace efimsim::fuzz
