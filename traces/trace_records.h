#pragma once
// The records of an efimsim trace (traces/FORMAT.md). Every reader (the
// efimsim JSON Lines reader, the importers, the typing generator) yields
// these types, and TraceWriter writes them.
//
// Units: times are integer nanoseconds from the start of the trace; text
// offsets and lengths are UTF-8 bytes; token counts are tokens.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "sim/base/tokens.h"

namespace efimsim {

inline constexpr int64_t kTraceSchemaVersion = 1;

// The first line of an efimsim trace. Importers synthesize one.
struct TraceHeader {
  int64_t schema_version = kTraceSchemaVersion;
  std::string source;       // what produced the trace, e.g. "azure-llm-csv"
  std::string description;  // free text; may be empty
};

// An editing session opens: a user starts editing a document.
struct SessionStart {
  int64_t time_ns = 0;
  std::string session_id;   // unique within the trace, non-empty
  std::string user_id;      // non-empty
  std::string document_id;  // non-empty
  // The document's initial text (valid UTF-8). When text_file is set the
  // reader loads text from it; the writer then writes text_file, not text.
  std::string text;
  std::string text_file;  // empty, or a path relative to the trace's directory
  int64_t cursor_bytes = 0;  // initial cursor, a UTF-8 boundary in [0, text.size()]
  // The text the session will type at cursor_bytes, in order, where its
  // source knows it in advance (the typing generator: the region of lines
  // it removed and types back; HumanEval: the canonical middle); empty
  // otherwise. Not part of the trace format: the writer does not write it
  // and readers of files leave it empty. Clients read it through
  // EditedDocument::text_to_type, for a completion's reference output.
  std::string text_to_type;
};

enum class EditKind {
  kInsert,               // insert `text` at offset_bytes; cursor -> offset + text size
  kDelete,               // delete [offset_bytes, offset_bytes + length_bytes); cursor -> offset
  kMoveCursor,           // cursor -> offset_bytes
  kCompletionShown,      // a suggestion `text` (may be empty) is shown; no change
  kCompletionAccepted,   // accepted `text` is inserted at offset_bytes, like kInsert
  kCompletionRejected,   // the shown suggestion is dismissed; no change
  kIdle,                 // the user does nothing for duration_ns; no change
  kEnd,                  // the session ends; no later event names it
};

// One timed event of a session. Fields not used by `kind` stay at their
// defaults (the reader rejects them, the writer omits them).
struct EditEvent {
  int64_t time_ns = 0;
  std::string session_id;
  EditKind kind = EditKind::kInsert;
  int64_t offset_bytes = 0;  // insert, delete, move_cursor, completion_accepted
  int64_t length_bytes = 0;  // delete: > 0
  std::string text;          // insert, completion_accepted (non-empty); completion_shown
  int64_t duration_ns = 0;   // idle: >= 0
};

// A request of an imported, request-level trace (no text).
struct TraceRequest {
  int64_t arrival_ns = 0;
  std::string session_id;  // empty: not part of a session (open loop)
  // Closed loop (needs session_id): the request is sent think_time_ns after
  // the previous request of its session ends, but not before arrival_ns,
  // which is then the earliest send time (FORMAT.md). Absent: open loop,
  // sent at arrival_ns.
  std::optional<int64_t> think_time_ns;
  int64_t prompt_tokens = 0;  // >= 1
  int64_t output_tokens = 0;  // >= 0
  TokenVector token_ids;      // empty, or exactly prompt_tokens ids
  // Chained keys of the prompt's leading full blocks of block_key_tokens
  // tokens: equal keys at position i mean equal tokens in blocks 0..i.
  // At most prompt_tokens / block_key_tokens keys; block_key_tokens is > 0
  // exactly when there are keys.
  int64_t block_key_tokens = 0;
  std::vector<uint64_t> block_keys;
};

using TraceRecord = std::variant<SessionStart, EditEvent, TraceRequest>;

// The time a record happens at (time_ns, or arrival_ns for a request).
int64_t RecordTimeNs(const TraceRecord& record);

// The JSON names of edit kinds ("insert", "delete", "move_cursor",
// "completion_shown", "completion_accepted", "completion_rejected", "idle",
// "end") and back.
std::string_view EditKindName(EditKind kind);
std::optional<EditKind> ParseEditKind(std::string_view name);

// What is wrong with a record, naming the field (FORMAT.md's rules that can
// be checked on one record alone); nullopt when it is valid. Readers turn
// this into InputError(file, line, field, problem); the writer refuses it.
struct FieldProblem {
  std::string field;
  std::string problem;
};
std::optional<FieldProblem> ValidateRecord(const TraceRecord& record);

}  // namespace efimsim
