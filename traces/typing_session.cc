#include "traces/typing_session.h"

#include <cmath>

#include "sim/base/errors.h"
#include "sim/base/time.h"
#include "traces/utf8_text.h"

namespace efimsim {
namespace {

// A drawn or configured span: one beyond FromSeconds's 2^62 ns comes from
// absurd means (e.g. --think-time-s 1e300), a usage error.
int64_t SecondsToNs(double seconds) {
  if (!FitsFromSeconds(seconds)) {
    throw UsageError("typing: a pause of " + std::to_string(seconds) +
                     " s is beyond 2^62 ns (about 146 years); lower the typing means");
  }
  return ToNanoseconds(FromSeconds(seconds));
}

bool IsProbability(double p) { return p >= 0 && p <= 1; }

}  // namespace

void ValidateTypingBehavior(const TypingBehavior& b) {
  if (!(b.chars_per_second > 0) || !std::isfinite(b.chars_per_second)) {
    throw UsageError("typing: chars_per_second must be > 0");
  }
  if (!(b.min_keystroke_gap_s >= 0) || b.min_keystroke_gap_s >= 1 / b.chars_per_second) {
    throw UsageError("typing: min_keystroke_gap_s must be >= 0 and below 1/chars_per_second");
  }
  if (!IsProbability(b.pause_probability)) throw UsageError("typing: pause_probability not in [0, 1]");
  if (!IsProbability(b.typo_probability)) throw UsageError("typing: typo_probability not in [0, 1]");
  if (!IsProbability(b.jump_probability)) throw UsageError("typing: jump_probability not in [0, 1]");
  if (!IsProbability(b.accept_probability)) {
    throw UsageError("typing: accept_probability not in [0, 1]");
  }
  if (!(b.pause_mean_s > 0) || !(b.jump_dwell_mean_s > 0) || !(b.accept_delay_s >= 0)) {
    throw UsageError("typing: pause_mean_s and jump_dwell_mean_s must be > 0, accept_delay_s >= 0");
  }
  if (b.accept_max_lines < 1) throw UsageError("typing: accept_max_lines must be >= 1");
  if (b.chars_per_session < 1) throw UsageError("typing: chars_per_session must be >= 1");
}

TypingSession::TypingSession(const TypingBehavior& behavior, RandomStream& rng,
                             std::string document, SessionStart start)
    : behavior_(behavior), rng_(rng), document_(std::move(document)), start_(std::move(start)) {
  // Line starts: 0 and every byte after a '\n' (except the end).
  std::vector<size_t> line_starts{0};
  for (size_t i = 0; i + 1 < document_.size(); ++i) {
    if (document_[i] == '\n') line_starts.push_back(i + 1);
  }
  const auto pick = static_cast<size_t>(
      rng_.UniformInt(0, static_cast<int64_t>(line_starts.size()) - 1));
  region_begin_ = line_starts[pick];
  // chars_per_session code points, then on to the end of that line.
  size_t end = region_begin_;
  for (int64_t typed = 0; end < document_.size() && typed < behavior_.chars_per_session; ++typed) {
    end += Utf8SequenceLength(document_, end);
  }
  while (end < document_.size() && document_[end - 1] != '\n') ++end;
  region_end_ = end;
  start_.text = document_.substr(0, region_begin_) + document_.substr(region_end_);
  start_.cursor_bytes = static_cast<int64_t>(region_begin_);
  start_.text_to_type = document_.substr(region_begin_, region_end_ - region_begin_);
  now_ns_ = start_.time_ns;
}

int64_t TypingSession::KeystrokeGapNs() {
  const double mean = 1.0 / behavior_.chars_per_second;
  return SecondsToNs(behavior_.min_keystroke_gap_s +
                     rng_.Exponential(mean - behavior_.min_keystroke_gap_s));
}

int64_t TypingSession::DocumentSize() const {
  return static_cast<int64_t>(document_.size() - (region_end_ - region_begin_) + typed_);
}

bool TypingSession::IsBoundaryOfCurrentText(int64_t offset) const {
  // Current text = document[0, region_begin + typed) + document[region_end, end).
  const auto o = static_cast<size_t>(offset);
  const size_t cursor = region_begin_ + typed_;
  if (o < cursor) return IsUtf8Boundary(document_, o);
  return IsUtf8Boundary(document_, o - cursor + region_end_);
}

EditEvent TypingSession::MakeEvent(EditKind kind) const {
  EditEvent event;
  event.time_ns = now_ns_;
  event.session_id = start_.session_id;
  event.kind = kind;
  return event;
}

void TypingSession::Step(std::deque<TraceRecord>& out) {
  const size_t region_size = region_end_ - region_begin_;
  if (typed_ >= region_size) {
    out.push_back(MakeEvent(EditKind::kEnd));
    finished_ = true;
    return;
  }
  const bool at_line_start = typed_ == 0 || document_[region_begin_ + typed_ - 1] == '\n';
  if (at_line_start && rng_.UniformDouble() < behavior_.accept_probability) {
    const int64_t lines = rng_.UniformInt(1, behavior_.accept_max_lines);
    size_t end = region_begin_ + typed_;
    for (int64_t line = 0; line < lines && end < region_end_; ++line) {
      while (end < region_end_ && document_[end] != '\n') ++end;
      if (end < region_end_) ++end;  // take the '\n'
    }
    const std::string chunk = document_.substr(region_begin_ + typed_, end - region_begin_ - typed_);
    now_ns_ += KeystrokeGapNs();
    EditEvent shown = MakeEvent(EditKind::kCompletionShown);
    shown.text = chunk;
    out.push_back(std::move(shown));
    now_ns_ += SecondsToNs(behavior_.accept_delay_s);
    EditEvent accepted = MakeEvent(EditKind::kCompletionAccepted);
    accepted.offset_bytes = Cursor();
    accepted.text = chunk;
    out.push_back(std::move(accepted));
    typed_ += chunk.size();
    return;
  }
  if (rng_.UniformDouble() < behavior_.pause_probability) {
    EditEvent idle = MakeEvent(EditKind::kIdle);
    idle.duration_ns = SecondsToNs(rng_.Exponential(behavior_.pause_mean_s));
    now_ns_ += idle.duration_ns;
    out.push_back(std::move(idle));
  }
  const double action = rng_.UniformDouble();
  if (action < behavior_.jump_probability) {
    int64_t target = rng_.UniformInt(0, DocumentSize());
    while (!IsBoundaryOfCurrentText(target)) --target;
    const int64_t home = Cursor();
    now_ns_ += KeystrokeGapNs();
    EditEvent away = MakeEvent(EditKind::kMoveCursor);
    away.offset_bytes = target;
    out.push_back(std::move(away));
    now_ns_ += SecondsToNs(rng_.Exponential(behavior_.jump_dwell_mean_s));
    EditEvent back = MakeEvent(EditKind::kMoveCursor);
    back.offset_bytes = home;
    out.push_back(std::move(back));
    return;
  }
  if (action < behavior_.jump_probability + behavior_.typo_probability) {
    now_ns_ += KeystrokeGapNs();
    EditEvent typo = MakeEvent(EditKind::kInsert);
    typo.offset_bytes = Cursor();
    typo.text = std::string(1, static_cast<char>('a' + rng_.UniformInt(0, 25)));
    out.push_back(std::move(typo));
    now_ns_ += KeystrokeGapNs();
    EditEvent backspace = MakeEvent(EditKind::kDelete);
    backspace.offset_bytes = Cursor();
    backspace.length_bytes = 1;
    out.push_back(std::move(backspace));
    return;
  }
  now_ns_ += KeystrokeGapNs();
  EditEvent key = MakeEvent(EditKind::kInsert);
  key.offset_bytes = Cursor();
  const size_t length = Utf8SequenceLength(document_, region_begin_ + typed_);
  key.text = document_.substr(region_begin_ + typed_, length);
  out.push_back(std::move(key));
  typed_ += length;
}

}  // namespace efimsim
