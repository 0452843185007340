#pragma once
// A document being edited: UTF-8 text and a cursor (byte offset), changed by
// the EditEvents of one session (trace_records.h for what each kind does).
// A client keeps one per open session to build each request's prefix
// (text[0, cursor)) and suffix (text[cursor, end)).

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "traces/trace_records.h"

namespace efimsim {

// An edit that does not fit the document (offset outside the text or
// splitting a UTF-8 character, range past the end). field() names the
// EditEvent field; a reader turns it into InputError(file, line, field, what()).
class InvalidEdit : public std::runtime_error {
 public:
  InvalidEdit(std::string field, const std::string& problem)
      : std::runtime_error(problem), field_(std::move(field)) {}
  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

// What one edit did, for prompt formats.
struct EditEffect {
  bool text_changed = false;
  // True for an insert (or accepted completion) exactly at the cursor: the
  // prefix only grew at its tail, so EFIM keeps prefix0 (docs/semantics.md §1).
  bool appended_at_cursor = false;
  // Lowest byte offset whose content changed (text_changed only): a prefix
  // of first_changed_byte bytes is as before, so a cached prefix0 of at
  // most that many bytes is still valid.
  int64_t first_changed_byte = 0;
  bool cursor_moved = false;
};

class EditedDocument {
 public:
  // Throws InvalidEdit("cursor_bytes", ...) for a bad cursor, or
  // InvalidEdit("text", ...) for text that is not valid UTF-8.
  EditedDocument(std::string text, int64_t cursor_bytes);
  // Also follows the session's SessionStart::text_to_type (text_to_type()).
  explicit EditedDocument(const SessionStart& session);

  // Applies `event` (its session_id and time are not looked at). Throws
  // InvalidEdit naming the field, leaving the document unchanged, when the
  // offset is outside [0, size] or not on a UTF-8 boundary, or a delete
  // range runs past the end or ends inside a character.
  EditEffect Apply(const EditEvent& event);

  const std::string& text() const { return text_; }
  int64_t cursor_bytes() const { return cursor_bytes_; }
  int64_t size_bytes() const { return static_cast<int64_t>(text_.size()); }
  std::string_view prefix() const { return std::string_view(text_).substr(0, Cursor()); }
  std::string_view suffix() const { return std::string_view(text_).substr(Cursor()); }

  // The part of the session's text_to_type not typed yet, when the cursor
  // stands where it is typed next; empty otherwise (nothing known, all
  // typed, the cursor elsewhere). The planned text is typed at a point that
  // starts at the initial cursor and advances over each insert at that
  // point that continues the plan (a keystroke, an accepted completion; a
  // backspace over the typed part's end steps back). Other edits before
  // the typed part shift it; text inserted at the point that does not
  // continue the plan (a typo) sits after it until deleted; an edit inside
  // the typed part drops the plan (text_to_type() stays empty).
  std::string_view text_to_type() const;

 private:
  size_t Cursor() const { return static_cast<size_t>(cursor_bytes_); }
  void CheckOffset(const char* field, int64_t offset) const;

  // Follows text_to_type_ through an edit already applied to text_.
  void FollowPlan(const EditEvent& event);

  std::string text_;
  int64_t cursor_bytes_ = 0;
  std::string to_type_;            // SessionStart::text_to_type; cleared when an edit breaks it
  int64_t to_type_begin_ = 0;      // where its typed part starts
  int64_t to_type_done_ = 0;       // bytes of it typed, at [begin, begin + done)
};

}  // namespace efimsim
