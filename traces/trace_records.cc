#include "traces/trace_records.h"

#include <array>
#include <utility>

#include "traces/trace_limits.h"
#include "traces/utf8_text.h"

namespace efimsim {
namespace {

constexpr std::array<std::pair<EditKind, std::string_view>, 8> kEditKindNames{{
    {EditKind::kInsert, "insert"},
    {EditKind::kDelete, "delete"},
    {EditKind::kMoveCursor, "move_cursor"},
    {EditKind::kCompletionShown, "completion_shown"},
    {EditKind::kCompletionAccepted, "completion_accepted"},
    {EditKind::kCompletionRejected, "completion_rejected"},
    {EditKind::kIdle, "idle"},
    {EditKind::kEnd, "end"},
}};

std::optional<FieldProblem> Problem(std::string field, std::string problem) {
  return FieldProblem{std::move(field), std::move(problem)};
}

// The upper bounds of trace_limits.h, as a problem with `field`.
std::optional<FieldProblem> TimeTooLate(const char* field, int64_t time_ns) {
  if (std::optional<std::string> problem = TraceTimeProblem(time_ns)) return Problem(field, *problem);
  return std::nullopt;
}
std::optional<FieldProblem> TooManyTokens(const char* field, int64_t tokens) {
  if (std::optional<std::string> problem = TraceTokensProblem(tokens)) return Problem(field, *problem);
  return std::nullopt;
}

std::optional<FieldProblem> ValidateSession(const SessionStart& s) {
  if (s.time_ns < 0) return Problem("time_ns", "must be >= 0");
  if (auto late = TimeTooLate("time_ns", s.time_ns)) return late;
  if (s.session_id.empty()) return Problem("session_id", "must not be empty");
  if (s.user_id.empty()) return Problem("user_id", "must not be empty");
  if (s.document_id.empty()) return Problem("document_id", "must not be empty");
  for (const auto& [name, value] : {std::pair<const char*, const std::string*>{"session_id", &s.session_id},
                                    {"user_id", &s.user_id},
                                    {"document_id", &s.document_id},
                                    {"text_file", &s.text_file}}) {
    if (!IsValidUtf8(*value)) return Problem(name, "not valid UTF-8");
  }
  const std::string_view text_field = s.text_file.empty() ? "text" : "text_file";
  if (!IsValidUtf8(s.text)) return Problem(std::string(text_field), "text is not valid UTF-8");
  if (s.cursor_bytes < 0 || s.cursor_bytes > static_cast<int64_t>(s.text.size())) {
    return Problem("cursor_bytes", std::to_string(s.cursor_bytes) + " is outside the text (0.." +
                                       std::to_string(s.text.size()) + " bytes)");
  }
  if (!IsUtf8Boundary(s.text, static_cast<size_t>(s.cursor_bytes))) {
    return Problem("cursor_bytes", std::to_string(s.cursor_bytes) +
                                       " splits a UTF-8 character");
  }
  return std::nullopt;
}

std::optional<FieldProblem> ValidateEdit(const EditEvent& e) {
  if (e.time_ns < 0) return Problem("time_ns", "must be >= 0");
  if (auto late = TimeTooLate("time_ns", e.time_ns)) return late;
  if (e.session_id.empty()) return Problem("session_id", "must not be empty");
  if (!IsValidUtf8(e.session_id)) return Problem("session_id", "not valid UTF-8");
  const bool uses_offset = e.kind == EditKind::kInsert || e.kind == EditKind::kDelete ||
                           e.kind == EditKind::kMoveCursor ||
                           e.kind == EditKind::kCompletionAccepted;
  const bool uses_text = e.kind == EditKind::kInsert || e.kind == EditKind::kCompletionAccepted ||
                         e.kind == EditKind::kCompletionShown;
  if (uses_offset && e.offset_bytes < 0) return Problem("offset_bytes", "must be >= 0");
  if (!uses_offset && e.offset_bytes != 0) return Problem("offset_bytes", "not used by this kind");
  if (e.kind == EditKind::kDelete) {
    if (e.length_bytes < 1) return Problem("length_bytes", "must be >= 1");
  } else if (e.length_bytes != 0) {
    return Problem("length_bytes", "not used by this kind");
  }
  if (!uses_text && !e.text.empty()) return Problem("text", "not used by this kind");
  if ((e.kind == EditKind::kInsert || e.kind == EditKind::kCompletionAccepted) && e.text.empty()) {
    return Problem("text", "must not be empty");
  }
  if (!IsValidUtf8(e.text)) return Problem("text", "is not valid UTF-8");
  if (e.kind == EditKind::kIdle) {
    if (e.duration_ns < 0) return Problem("duration_ns", "must be >= 0");
    if (auto late = TimeTooLate("duration_ns", e.duration_ns)) return late;
  } else if (e.duration_ns != 0) {
    return Problem("duration_ns", "not used by this kind");
  }
  return std::nullopt;
}

std::optional<FieldProblem> ValidateRequest(const TraceRequest& r) {
  if (r.arrival_ns < 0) return Problem("arrival_ns", "must be >= 0");
  if (auto late = TimeTooLate("arrival_ns", r.arrival_ns)) return late;
  if (r.think_time_ns) {
    if (r.session_id.empty()) return Problem("think_time_ns", "needs a session_id");
    if (*r.think_time_ns < 0) return Problem("think_time_ns", "must be >= 0");
    if (auto late = TimeTooLate("think_time_ns", *r.think_time_ns)) return late;
  }
  if (r.prompt_tokens < 1) return Problem("prompt_tokens", "must be >= 1");
  if (auto many = TooManyTokens("prompt_tokens", r.prompt_tokens)) return many;
  if (r.output_tokens < 0) return Problem("output_tokens", "must be >= 0");
  if (auto many = TooManyTokens("output_tokens", r.output_tokens)) return many;
  if (!r.token_ids.empty() && static_cast<int64_t>(r.token_ids.size()) != r.prompt_tokens) {
    return Problem("token_ids", "has " + std::to_string(r.token_ids.size()) +
                                    " ids but prompt_tokens is " + std::to_string(r.prompt_tokens));
  }
  for (const TokenId id : r.token_ids) {
    if (id < 0) return Problem("token_ids", "holds a negative id");
  }
  if (r.block_keys.empty()) {
    if (r.block_key_tokens != 0) return Problem("block_key_tokens", "given without block_keys");
    return std::nullopt;
  }
  if (r.block_key_tokens < 1) return Problem("block_key_tokens", "must be >= 1 with block_keys");
  if (auto many = TooManyTokens("block_key_tokens", r.block_key_tokens)) return many;
  const int64_t full_blocks = r.prompt_tokens / r.block_key_tokens;
  if (static_cast<int64_t>(r.block_keys.size()) > full_blocks) {
    return Problem("block_keys", "has " + std::to_string(r.block_keys.size()) +
                                     " keys but the prompt has only " +
                                     std::to_string(full_blocks) + " full blocks");
  }
  return std::nullopt;
}

}  // namespace

int64_t RecordTimeNs(const TraceRecord& record) {
  if (const auto* s = std::get_if<SessionStart>(&record)) return s->time_ns;
  if (const auto* e = std::get_if<EditEvent>(&record)) return e->time_ns;
  return std::get<TraceRequest>(record).arrival_ns;
}

std::string_view EditKindName(EditKind kind) {
  for (const auto& [k, name] : kEditKindNames) {
    if (k == kind) return name;
  }
  return "?";
}

std::optional<EditKind> ParseEditKind(std::string_view name) {
  for (const auto& [k, n] : kEditKindNames) {
    if (n == name) return k;
  }
  return std::nullopt;
}

std::optional<FieldProblem> ValidateRecord(const TraceRecord& record) {
  if (const auto* s = std::get_if<SessionStart>(&record)) return ValidateSession(*s);
  if (const auto* e = std::get_if<EditEvent>(&record)) return ValidateEdit(*e);
  return ValidateRequest(std::get<TraceRequest>(record));
}

}  // namespace efimsim
