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
      "tpot_ms,e2e_ms,cancelled\n";
  out.reserve(out.size() + records.size() * 160);
  // Instants never reached (a cancelled request's first token) are empty.
  auto instant = [](TimePoint t) {
    return t == TimePoint::max() ? std::string() : std::to_string(ToNanoseconds(t));
  };
  auto span_ms = [](TimePoint from, TimePoint to) {
    return from == TimePoint::max() || to == TimePoint::max()
               ? std::string()
               : FormatFixed(ToMilliseconds(to - from), 6);
  };
  for (const RequestRecord& r : records) {
    out += std::to_string(r.request_id) + ',' + std::to_string(r.user) + ',' +
           std::to_string(r.round) + ',' + instant(r.arrival) + ',' + instant(r.first_scheduled) +
           ',' + instant(r.first_token) + ',' + instant(r.finish) + ',' +
           std::to_string(r.prompt_tokens) + ',' + std::to_string(r.cached_tokens) + ',' +
           std::to_string(r.output_tokens) + ',' + std::to_string(r.preemptions) + ',' +
           span_ms(r.arrival, r.first_scheduled) + ',' + span_ms(r.arrival, r.first_token) + ',' +
           (!r.cancelled && r.has_tpot() ? FormatFixed(r.tpot_ms(), 6) : std::string()) + ',' +
           span_ms(r.arrival, r.finish) + ',' + (r.cancelled ? "1" : "0") + '\n';
  }
  return out;
}

void WriteRequestsCsv(const std::string& path, std::span<const RequestRecord> records) {
  WriteFileAtomically(path, RenderRequestsCsv(records));
}

}  // namespace efimsim
