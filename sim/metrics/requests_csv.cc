#include <cstdio>
#include <string>

#include "sim/base/atomic_file.h"
#include "sim/metrics/output_writers.h"

namespace efimsim {

std::string FormatFixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

std::string RenderRequestsCsv(std::span<const RequestRecord> records) {
  std::string out =
      "request_id,user,round,arrival_ns,first_scheduled_ns,first_token_ns,finish_ns,"
      "prompt_tokens,cached_tokens,output_tokens,preemptions,queueing_delay_ms,ttft_ms,"
      "tpot_ms,e2e_ms\n";
  out.reserve(out.size() + records.size() * 160);
  for (const RequestRecord& r : records) {
    out += std::to_string(r.request_id) + ',' + std::to_string(r.user) + ',' +
           std::to_string(r.round) + ',' + std::to_string(ToNanoseconds(r.arrival)) + ',' +
           std::to_string(ToNanoseconds(r.first_scheduled)) + ',' +
           std::to_string(ToNanoseconds(r.first_token)) + ',' +
           std::to_string(ToNanoseconds(r.finish)) + ',' + std::to_string(r.prompt_tokens) + ',' +
           std::to_string(r.cached_tokens) + ',' + std::to_string(r.output_tokens) + ',' +
           std::to_string(r.preemptions) + ',' + FormatFixed(ToMilliseconds(r.queueing_delay()), 6) +
           ',' + FormatFixed(ToMilliseconds(r.ttft()), 6) + ',' +
           (r.has_tpot() ? FormatFixed(r.tpot_ms(), 6) : std::string()) + ',' +
           FormatFixed(ToMilliseconds(r.e2e()), 6) + '\n';
  }
  return out;
}

void WriteRequestsCsv(const std::string& path, std::span<const RequestRecord> records) {
  WriteFileAtomically(path, RenderRequestsCsv(records));
}

}  // namespace efimsim
