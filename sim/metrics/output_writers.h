#pragma once
// The run's files. Each is written atomically (sim/base/atomic_file.h):
//   summary.json  — schema_version, the run's set-up, the summary
//   requests.csv  — one row per finished request, header first, times in ns
//                   as integers plus derived spans in ms
// Same inputs give byte-identical files: fixed key order, fixed number
// formats, rows in request-id order.

#include <span>
#include <string>

#include "sim/metrics/request_record.h"
#include "sim/metrics/run_info.h"
#include "sim/metrics/summary.h"

namespace efimsim {

inline constexpr int kSummarySchemaVersion = 1;

std::string RenderSummaryJson(const RunInfo& info, const RunSummary& summary);
std::string RenderRequestsCsv(std::span<const RequestRecord> records, RequestColumns columns = {});

void WriteSummaryJson(const std::string& path, const RunInfo& info, const RunSummary& summary);
void WriteRequestsCsv(const std::string& path, std::span<const RequestRecord> records,
                      RequestColumns columns = {});

// "%.6f"-style fixed formatting used by every CSV writer.
std::string FormatFixed(double value, int decimals);

}  // namespace efimsim
