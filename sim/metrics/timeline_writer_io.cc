// Chrome trace-event writer. nlohmann/json (for string escaping and the
// args objects) stays in this file.
#include <cinttypes>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "sim/metrics/timeline_writer.h"

namespace efimsim {
namespace {

constexpr int kReplicaPid = 1;
constexpr int kSessionPid = 2;

// Microseconds with three decimals from integer nanoseconds, exactly.
std::string Micros(int64_t ns) {
  char text[48];
  const bool negative = ns < 0;
  const uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  std::snprintf(text, sizeof text, "%s%" PRIu64 ".%03" PRIu64, negative ? "-" : "",
                magnitude / 1000, magnitude % 1000);
  return text;
}

int64_t Ns(TimePoint t) { return t.time_since_epoch().count(); }

}  // namespace

TimelineWriter::TimelineWriter(const std::string& path, int32_t replicas) : file_(path) {
  file_.stream() << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  BeginEvent();
  file_.stream() << R"({"ph":"M","pid":1,"tid":0,"name":"process_name","args":{"name":"replicas"}})";
  BeginEvent();
  file_.stream() << R"({"ph":"M","pid":2,"tid":0,"name":"process_name","args":{"name":"sessions"}})";
  for (int32_t r = 0; r < replicas; ++r) NameTrack(kReplicaPid, r, "replica " + std::to_string(r));
}

TimelineWriter::~TimelineWriter() = default;

void TimelineWriter::BeginEvent() {
  if (!first_event_) file_.stream() << ",\n";
  first_event_ = false;
}

void TimelineWriter::NameTrack(int pid, int64_t tid, const std::string& name) {
  BeginEvent();
  nlohmann::ordered_json event;
  event["ph"] = "M";
  event["pid"] = pid;
  event["tid"] = tid;
  event["name"] = "thread_name";
  event["args"] = {{"name", name}};
  file_.stream() << event.dump();
}

void TimelineWriter::AddStep(const TimelineStep& step) {
  const double usage = step.kv_total_blocks > 0 ? static_cast<double>(step.kv_used_blocks) /
                                                      static_cast<double>(step.kv_total_blocks)
                                                : 0.0;
  char usage_text[32];
  std::snprintf(usage_text, sizeof usage_text, "%.4f", usage);
  BeginEvent();
  file_.stream() << "{\"ph\":\"X\",\"pid\":" << kReplicaPid << ",\"tid\":" << step.replica
                 << ",\"name\":\"step\",\"ts\":" << Micros(Ns(step.start))
                 << ",\"dur\":" << Micros(Ns(step.end) - Ns(step.start))
                 << ",\"args\":{\"tokens\":" << step.tokens
                 << ",\"prefill\":" << step.prefill_sequences
                 << ",\"decode\":" << step.decode_sequences
                 << ",\"preempted\":" << step.preempted
                 << ",\"kv_used_blocks\":" << step.kv_used_blocks
                 << ",\"kv_total_blocks\":" << step.kv_total_blocks
                 << ",\"kv_usage\":" << usage_text << "}}";
}

void TimelineWriter::AddRequest(const RequestRecord& request) {
  if (named_sessions_.insert(request.user).second) {
    NameTrack(kSessionPid, request.user, "user " + std::to_string(request.user));
  }
  BeginEvent();
  file_.stream() << "{\"ph\":\"X\",\"pid\":" << kSessionPid << ",\"tid\":" << request.user
                 << ",\"name\":\"request " << request.request_id
                 << "\",\"ts\":" << Micros(Ns(request.arrival))
                 << ",\"dur\":" << Micros(Ns(request.finish) - Ns(request.arrival))
                 << ",\"args\":{\"request_id\":" << request.request_id
                 << ",\"round\":" << request.round
                 << ",\"prompt_tokens\":" << request.prompt_tokens
                 << ",\"cached_tokens\":" << request.cached_tokens
                 << ",\"output_tokens\":" << request.output_tokens
                 << ",\"cancelled\":" << (request.cancelled ? "true" : "false") << "}}";
}

void TimelineWriter::Commit() {
  file_.stream() << "\n]}\n";
  file_.Commit();
}

}  // namespace efimsim
