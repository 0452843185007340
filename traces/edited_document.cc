#include "traces/edited_document.h"

#include "traces/utf8_text.h"

namespace efimsim {

EditedDocument::EditedDocument(std::string text, int64_t cursor_bytes)
    : text_(std::move(text)), cursor_bytes_(cursor_bytes) {
  if (!IsValidUtf8(text_)) throw InvalidEdit("text", "text is not valid UTF-8");
  CheckOffset("cursor_bytes", cursor_bytes_);
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
  return effect;
}

}  // namespace efimsim
