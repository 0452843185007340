#include "traces/edited_document.h"

#include "traces/utf8_text.h"

namespace efimsim {

EditedDocument::EditedDocument(std::string text, int64_t cursor_bytes)
    : text_(std::move(text)), cursor_bytes_(cursor_bytes) {
  if (!IsValidUtf8(text_)) throw InvalidEdit("text", "text is not valid UTF-8");
  CheckOffset("cursor_bytes", cursor_bytes_);
}

EditedDocument::EditedDocument(const SessionStart& session)
    : EditedDocument(session.text, session.cursor_bytes) {
  to_type_ = session.text_to_type;
  to_type_begin_ = cursor_bytes_;
}

void EditedDocument::CheckOffset(const char* field, int64_t offset) const {
  if (offset < 0 || offset > size_bytes()) {
    throw InvalidEdit(field, "offset " + std::to_string(offset) + " is outside the document (0.." +
                                 std::to_string(size_bytes()) + " bytes)");
  }
  if (!IsUtf8Boundary(text_, static_cast<size_t>(offset))) {
    throw InvalidEdit(field, "offset " + std::to_string(offset) + " splits a UTF-8 character");
  }
}

EditEffect EditedDocument::Apply(const EditEvent& event) {
  EditEffect effect;
  const int64_t old_cursor = cursor_bytes_;
  switch (event.kind) {
    case EditKind::kInsert:
    case EditKind::kCompletionAccepted: {
      CheckOffset("offset_bytes", event.offset_bytes);
      if (event.text.empty()) throw InvalidEdit("text", "nothing to insert");
      if (!IsValidUtf8(event.text)) throw InvalidEdit("text", "text is not valid UTF-8");
      text_.insert(static_cast<size_t>(event.offset_bytes), event.text);
      effect.text_changed = true;
      effect.appended_at_cursor = event.offset_bytes == old_cursor;
      effect.first_changed_byte = event.offset_bytes;
      cursor_bytes_ = event.offset_bytes + static_cast<int64_t>(event.text.size());
      break;
    }
    case EditKind::kDelete: {
      CheckOffset("offset_bytes", event.offset_bytes);
      if (event.length_bytes < 1) throw InvalidEdit("length_bytes", "must be >= 1");
      // offset_bytes is in [0, size] here, so this cannot overflow.
      if (event.length_bytes > size_bytes() - event.offset_bytes) {
        throw InvalidEdit("length_bytes", "a range of " + std::to_string(event.length_bytes) +
                                              " bytes from offset " +
                                              std::to_string(event.offset_bytes) +
                                              " runs past the end (" +
                                              std::to_string(size_bytes()) + " bytes)");
      }
      const int64_t end = event.offset_bytes + event.length_bytes;
      if (!IsUtf8Boundary(text_, static_cast<size_t>(end))) {
        throw InvalidEdit("length_bytes", "range end " + std::to_string(end) +
                                              " splits a UTF-8 character");
      }
      text_.erase(static_cast<size_t>(event.offset_bytes), static_cast<size_t>(event.length_bytes));
      effect.text_changed = true;
      effect.first_changed_byte = event.offset_bytes;
      cursor_bytes_ = event.offset_bytes;
      break;
    }
    case EditKind::kMoveCursor:
      CheckOffset("offset_bytes", event.offset_bytes);
      cursor_bytes_ = event.offset_bytes;
      break;
    case EditKind::kCompletionShown:
    case EditKind::kCompletionRejected:
    case EditKind::kIdle:
    case EditKind::kEnd:
      break;
  }
  effect.cursor_moved = cursor_bytes_ != old_cursor;
  if (effect.text_changed && !to_type_.empty()) FollowPlan(event);
  return effect;
}

void EditedDocument::FollowPlan(const EditEvent& event) {
  const int64_t point = to_type_begin_ + to_type_done_;  // where the plan goes on
  if (event.kind == EditKind::kDelete) {
    const int64_t end = event.offset_bytes + event.length_bytes;
    if (end <= to_type_begin_) {
      to_type_begin_ -= event.length_bytes;  // before the typed part
    } else if (event.offset_bytes >= point) {
      // after it: a typo's backspace, or the rest of the document
    } else if (event.offset_bytes >= to_type_begin_ && end == point) {
      to_type_done_ -= event.length_bytes;  // backspace over the typed part's end
    } else {
      to_type_.clear();  // the typed part itself was cut
    }
    return;
  }
  const auto size = static_cast<int64_t>(event.text.size());
  if (event.offset_bytes == point) {
    if (to_type_.compare(static_cast<size_t>(to_type_done_), event.text.size(), event.text) == 0) {
      to_type_done_ += size;  // the plan goes on
    }
    // else a stray insert (a typo): it sits after the point until deleted
  } else if (event.offset_bytes <= to_type_begin_) {
    to_type_begin_ += size;
  } else if (event.offset_bytes < point) {
    to_type_.clear();  // inside the typed part
  }
}

std::string_view EditedDocument::text_to_type() const {
  if (to_type_.empty() || cursor_bytes_ != to_type_begin_ + to_type_done_) return {};
  return std::string_view(to_type_).substr(static_cast<size_t>(to_type_done_));
}

}  // namespace efimsim
