#include <charconv>
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
    "tpot_ms,e2e_ms,cancelled";

// The header with the run's optional column groups, after the fixed ones.
std::string Header(RequestColumns columns) {
  std::string header = kRequestsCsvHeader;
  if (columns.speculation) header += ",draft_tokens,accepted_tokens";
  if (columns.kv_pull) header += ",kv_pulled_tokens,kv_pull_ms";
  return header + "\n";
}

// Rows are built with std::to_chars, which allocates nothing and is
// specified to print as printf does ("%d", "%.6f").
template <class Integer>
void AppendInteger(Integer value, std::string& out) {
  char buffer[24];
  const std::to_chars_result result = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, result.ptr);
}

// The same text as FormatFixed(value, 6) (tested).
void AppendFixed6(double value, std::string& out) {
  char buffer[400];  // fixed notation of any finite double fits
  const std::to_chars_result result =
      std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed, 6);
  if (result.ec != std::errc{}) {
    out += FormatFixed(value, 6);
    return;
  }
  out.append(buffer, result.ptr);
}

// Appends `ns` as milliseconds with six decimals, digit by digit from the
// integer: the same text as FormatFixed(ToMilliseconds(ns), 6) (tested),
// without floating-point formatting.
void AppendMilliseconds(int64_t ns, std::string& out) {
  uint64_t magnitude = static_cast<uint64_t>(ns);
  if (ns < 0) {
    out += '-';
    magnitude = 0 - magnitude;
  }
  AppendInteger(magnitude / 1000000, out);
  char fraction[8];
  uint64_t rest = magnitude % 1000000;
  for (int i = 6; i >= 1; --i) {
    fraction[i] = static_cast<char>('0' + rest % 10);
    rest /= 10;
  }
  fraction[0] = '.';
  out.append(fraction, 7);
}

// Appends one row. Instants never reached (a cancelled request's first
// token) are empty, and so are spans that need them.
void AppendRequestRow(const RequestRecord& r, RequestColumns columns, std::string& out) {
  auto instant = [&](TimePoint t) {
    if (t != TimePoint::max()) AppendInteger(ToNanoseconds(t), out);
    out += ',';
  };
  auto span_ms = [&](TimePoint from, TimePoint to) {
    if (from != TimePoint::max() && to != TimePoint::max()) {
      AppendMilliseconds(ToNanoseconds(to - from), out);
    }
    out += ',';
  };
  auto integer = [&](auto value) {
    AppendInteger(value, out);
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
  if (!r.cancelled && r.has_tpot()) AppendFixed6(r.tpot_ms(), out);
  out += ',';
  span_ms(r.arrival, r.finish);
  out += r.cancelled ? '1' : '0';
  if (columns.speculation) {
    out += ',';
    AppendInteger(r.parts.draft_tokens, out);
    out += ',';
    AppendInteger(r.parts.accepted_tokens, out);
  }
  if (columns.kv_pull) {
    out += ',';
    AppendInteger(r.parts.kv_pulled_tokens, out);
    out += ',';
    AppendMilliseconds(ToNanoseconds(r.parts.kv_pull), out);
  }
  out += '\n';
}

}  // namespace

std::string RenderRequestsCsv(std::span<const RequestRecord> records, RequestColumns columns) {
  std::string out = Header(columns);
  out.reserve(out.size() + records.size() * 160);
  for (const RequestRecord& r : records) AppendRequestRow(r, columns, out);
  return out;
}

void WriteRequestsCsv(const std::string& path, std::span<const RequestRecord> records,
                      RequestColumns columns) {
  WriteFileAtomically(path, RenderRequestsCsv(records, columns));
}

namespace {
// Rows are handed to the stream in pieces of about this many bytes: few
// writes, and a buffer small enough that a long run's peak memory does not
// hold megabytes of text (each fresh page costs a page fault and zeroing).
constexpr size_t kFlushBytes = size_t{64} << 10;
}  // namespace

RequestsCsvWriter::RequestsCsvWriter(const std::string& path, RequestColumns columns)
    : file_(path), columns_(columns) {
  buffer_.reserve(kFlushBytes + 1024);
  buffer_ += Header(columns_);
}

void RequestsCsvWriter::Add(const RequestRecord& record) {
  AppendRequestRow(record, columns_, buffer_);
  if (buffer_.size() >= kFlushBytes) Flush();
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
