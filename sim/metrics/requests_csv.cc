#include <cstdio>
#include <string>

#include "sim/base/atomic_file.h"
#include "sim/metrics/output_writers.h"
#include "sim/metrics/requests_csv_writer.h"

namespace efimsim {

std::string FormatFixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

namespace {

constexpr const char* kRequestsCsvHeader =
    "request_id,user,round,arrival_ns,first_scheduled_ns,first_token_ns,finish_ns,"
    "prompt_tokens,cached_tokens,output_tokens,preemptions,queueing_delay_ms,ttft_ms,"
    "tpot_ms,e2e_ms,cancelled\n";

// Appends one row. Instants never reached (a cancelled request's first
// token) are empty, and so are spans that need them.
void AppendRequestRow(const RequestRecord& r, std::string& out) {
  auto instant = [&](TimePoint t) {
    if (t != TimePoint::max()) out += std::to_string(ToNanoseconds(t));
    out += ',';
  };
  auto span_ms = [&](TimePoint from, TimePoint to) {
    if (from != TimePoint::max() && to != TimePoint::max()) {
      out += FormatFixed(ToMilliseconds(to - from), 6);
    }
    out += ',';
  };
  auto integer = [&](auto value) {
    out += std::to_string(value);
    out += ',';
  };
  integer(r.request_id);
  integer(r.user);
  integer(r.round);
  instant(r.arrival);
  instant(r.first_scheduled);
  instant(r.first_token);
  instant(r.finish);
  integer(r.prompt_tokens);
  integer(r.cached_tokens);
  integer(r.output_tokens);
  integer(r.preemptions);
  span_ms(r.arrival, r.first_scheduled);
  span_ms(r.arrival, r.first_token);
  if (!r.cancelled && r.has_tpot()) out += FormatFixed(r.tpot_ms(), 6);
  out += ',';
  span_ms(r.arrival, r.finish);
  out += r.cancelled ? "1\n" : "0\n";
}

}  // namespace

std::string RenderRequestsCsv(std::span<const RequestRecord> records) {
  std::string out = kRequestsCsvHeader;
  out.reserve(out.size() + records.size() * 160);
  for (const RequestRecord& r : records) AppendRequestRow(r, out);
  return out;
}

void WriteRequestsCsv(const std::string& path, std::span<const RequestRecord> records) {
  WriteFileAtomically(path, RenderRequestsCsv(records));
}

RequestsCsvWriter::RequestsCsvWriter(const std::string& path) : file_(path) {
  buffer_ = kRequestsCsvHeader;
}

void RequestsCsvWriter::Add(const RequestRecord& record) {
  AppendRequestRow(record, buffer_);
  if (buffer_.size() >= (1 << 20)) Flush();
}

void RequestsCsvWriter::Flush() {
  file_.stream().write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
  buffer_.clear();
}

void RequestsCsvWriter::Commit() {
  Flush();
  file_.Commit();
}

}  // namespace efimsim
