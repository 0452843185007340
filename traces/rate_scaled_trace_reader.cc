#include "traces/rate_scaled_trace_reader.h"

#include <cmath>
#include <variant>

#include "sim/base/errors.h"
#include "traces/trace_limits.h"

namespace efimsim {

int64_t ScaleTimeNs(int64_t time_ns, double rate_scale) {
  const double scaled = static_cast<double>(time_ns) / rate_scale;
  // 2^62 is exactly representable; a time at or beyond it is past the
  // trace limit (trace_limits.h), which a consumer relies on.
  if (!(std::fabs(scaled) < static_cast<double>(kMaxTraceTimeNs))) {
    throw UsageError("--rate-scale: time " + std::to_string(time_ns) + " ns / " +
                     std::to_string(rate_scale) + " is not below 2^62 ns (about 146 years)");
  }
  return std::llround(scaled);
}

RateScaledTraceReader::RateScaledTraceReader(std::unique_ptr<TraceReader> inner, double rate_scale)
    : inner_(std::move(inner)), rate_scale_(rate_scale) {
  if (!(rate_scale > 0) || !std::isfinite(rate_scale)) {
    throw UsageError("--rate-scale: must be a positive number, got " + std::to_string(rate_scale));
  }
}

int64_t RateScaledTraceReader::ReleaseBound() const {
  int64_t bound = ScaleTimeNs(input_time_ns_, rate_scale_);
  if (!shift_counts_.empty()) bound = std::min(bound, input_time_ns_ + shift_counts_.begin()->first);
  return bound;
}

void RateScaledTraceReader::Read(TraceRecord record) {
  input_time_ns_ = RecordTimeNs(record);
  int64_t time = 0;
  if (auto* request = std::get_if<TraceRequest>(&record)) {
    time = request->arrival_ns = ScaleTimeNs(request->arrival_ns, rate_scale_);
  } else if (auto* start = std::get_if<SessionStart>(&record)) {
    const int64_t scaled = ScaleTimeNs(start->time_ns, rate_scale_);
    const int64_t shift = scaled - start->time_ns;
    if (session_shift_ns_.emplace(start->session_id, shift).second) ++shift_counts_[shift];
    time = start->time_ns = scaled;
  } else {
    auto& edit = std::get<EditEvent>(record);
    const auto open = session_shift_ns_.find(edit.session_id);
    if (open == session_shift_ns_.end()) {
      time = edit.time_ns = ScaleTimeNs(edit.time_ns, rate_scale_);
    } else {
      time = edit.time_ns = edit.time_ns + open->second;  // both < 2^62: no overflow
      if (time >= kMaxTraceTimeNs) {
        throw UsageError("--rate-scale: session '" + edit.session_id + "' moved to start at " +
                         std::to_string(open->second) + " ns later runs past 2^62 ns");
      }
      if (edit.kind == EditKind::kEnd) {
        const auto count = shift_counts_.find(open->second);
        if (--count->second == 0) shift_counts_.erase(count);
        session_shift_ns_.erase(open);
      }
    }
  }
  pending_.push(Pending{time, sequence_++, inner_->current_line(), std::move(record)});
}

std::optional<TraceRecord> RateScaledTraceReader::ReadNext() {
  while (true) {
    if (!pending_.empty() && (input_done_ || pending_.top().time_ns <= ReleaseBound())) {
      // priority_queue::top is const; the record is moved out just before pop.
      Pending& top = const_cast<Pending&>(pending_.top());
      TraceRecord record = std::move(top.record);
      current_line_ = top.line;
      pending_.pop();
      return record;
    }
    if (input_done_) return std::nullopt;
    std::optional<TraceRecord> record = inner_->Next();
    skipped_ = inner_->skipped_lines();
    if (!record) {
      input_done_ = true;
      continue;
    }
    Read(std::move(*record));
  }
}

}  // namespace efimsim
