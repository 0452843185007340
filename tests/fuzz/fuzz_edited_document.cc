// Fuzz target: EditedDocument (traces/edited_document.h) driven by fuzzed
// edit sequences, checked against a reference model written here.
//
// Input layout (all bytes optional; missing bytes read as 0):
//   [n][n bytes: initial text][cursor: Int]   then edits until the end:
//   [kind byte][offset: Int][length: Int][m][m bytes: text]
// Int: a mode byte choosing how the value is made, so that offsets near
// the document's size, its cursor and the int64 limits are all reachable:
//   mode % 6: 0 next byte; 1 size - next byte; 2 cursor + (int8) next byte;
//             3 INT64_MAX - next byte; 4 INT64_MIN + next byte; 5 8 raw bytes.
// The initial text may be invalid UTF-8 and the cursor anywhere: the
// constructor must then throw InvalidEdit. Every edit goes to Apply as is
// (a trace reader passes any int64 through), and Apply must throw
// InvalidEdit exactly when the reference rejects it, leaving the document
// unchanged, and otherwise give the reference's text, cursor and effect.
// IsValidUtf8 and IsUtf8Boundary are checked against the reference too.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>

#include "tests/fuzz/fuzz_common.h"
#include "traces/edited_document.h"
#include "traces/utf8_text.h"

namespace {

class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool empty() const { return pos_ >= size_; }
  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  std::string Text(size_t n) {
    const size_t take = std::min(n, size_ - std::min(pos_, size_));
    std::string out(reinterpret_cast<const char*>(data_) + pos_, take);
    pos_ += take;
    return out;
  }
  int64_t Int(int64_t size, int64_t cursor) {
    const uint8_t mode = Byte();
    switch (mode % 6) {
      case 0: return Byte();
      case 1: return size - Byte();
      case 2: return cursor + static_cast<int8_t>(Byte());
      case 3: return std::numeric_limits<int64_t>::max() - Byte();
      case 4: return std::numeric_limits<int64_t>::min() + Byte();
      default: {
        uint64_t raw = 0;
        for (int i = 0; i < 8; ++i) raw = (raw << 8) | Byte();
        int64_t value;
        std::memcpy(&value, &raw, sizeof value);
        return value;
      }
    }
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// Reference UTF-8 validity (RFC 3629: no overlongs, no surrogates, <= U+10FFFF).
bool RefValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    size_t n;
    uint32_t cp;
    if (b0 < 0x80) { ++i; continue; }
    if (b0 >= 0xC2 && b0 <= 0xDF) { n = 1; cp = b0 & 0x1Fu; }
    else if (b0 >= 0xE0 && b0 <= 0xEF) { n = 2; cp = b0 & 0x0Fu; }
    else if (b0 >= 0xF0 && b0 <= 0xF4) { n = 3; cp = b0 & 0x07u; }
    else return false;
    if (s.size() - i < n + 1) return false;  // truncated sequence
    for (size_t k = 1; k <= n; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if ((b & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (b & 0x3Fu);
    }
    if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF)) {
      return false;
    }
    i += n + 1;
  }
  return true;
}

bool RefBoundary(std::string_view s, int64_t offset) {
  if (offset < 0 || offset > static_cast<int64_t>(s.size())) return false;
  return offset == static_cast<int64_t>(s.size()) ||
         (static_cast<unsigned char>(s[static_cast<size_t>(offset)]) & 0xC0) != 0x80;
}

struct Expected {
  bool valid = false;
  std::string text;
  int64_t cursor = 0;
  efimsim::EditEffect effect;
};

Expected Reference(const std::string& text, int64_t cursor, const efimsim::EditEvent& e) {
  Expected x;
  x.text = text;
  x.cursor = cursor;
  const int64_t size = static_cast<int64_t>(text.size());
  switch (e.kind) {
    case efimsim::EditKind::kInsert:
    case efimsim::EditKind::kCompletionAccepted:
      if (!RefBoundary(text, e.offset_bytes) || e.text.empty() || !RefValidUtf8(e.text)) return x;
      x.text.insert(static_cast<size_t>(e.offset_bytes), e.text);
      x.cursor = e.offset_bytes + static_cast<int64_t>(e.text.size());
      x.effect.text_changed = true;
      x.effect.appended_at_cursor = e.offset_bytes == cursor;
      x.effect.first_changed_byte = e.offset_bytes;
      break;
    case efimsim::EditKind::kDelete:
      if (!RefBoundary(text, e.offset_bytes) || e.length_bytes < 1 ||
          e.length_bytes > size - e.offset_bytes ||
          !RefBoundary(text, e.offset_bytes + e.length_bytes)) {
        return x;
      }
      x.text.erase(static_cast<size_t>(e.offset_bytes), static_cast<size_t>(e.length_bytes));
      x.cursor = e.offset_bytes;
      x.effect.text_changed = true;
      x.effect.first_changed_byte = e.offset_bytes;
      break;
    case efimsim::EditKind::kMoveCursor:
      if (!RefBoundary(text, e.offset_bytes)) return x;
      x.cursor = e.offset_bytes;
      break;
    default:
      break;
  }
  x.valid = true;
  x.effect.cursor_moved = x.cursor != cursor;
  return x;
}

std::string Describe(const efimsim::EditEvent& e, const std::string& text, int64_t cursor) {
  return "kind " + std::to_string(static_cast<int>(e.kind)) + " offset " +
         std::to_string(e.offset_bytes) + " length " + std::to_string(e.length_bytes) +
         " text " + std::to_string(e.text.size()) + " bytes, on a document of " +
         std::to_string(text.size()) + " bytes with cursor " + std::to_string(cursor);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes in(data, size);
  const std::string initial = in.Text(in.Byte());
  const int64_t initial_cursor = in.Int(static_cast<int64_t>(initial.size()), 0);

  const bool valid_utf8 = RefValidUtf8(initial);
  FUZZ_CHECK(efimsim::IsValidUtf8(initial) == valid_utf8, "IsValidUtf8 disagrees");
  for (int64_t offset = -1; offset <= static_cast<int64_t>(initial.size()) + 1; ++offset) {
    if (offset < 0) continue;
    FUZZ_CHECK(efimsim::IsUtf8Boundary(initial, static_cast<size_t>(offset)) ==
                   RefBoundary(initial, offset),
               "IsUtf8Boundary disagrees at " + std::to_string(offset));
  }

  const bool constructible = valid_utf8 && RefBoundary(initial, initial_cursor);
  std::optional<efimsim::EditedDocument> doc;
  try {
    doc.emplace(initial, initial_cursor);
  } catch (const efimsim::InvalidEdit& e) {
    FUZZ_CHECK(!constructible, std::string("valid document rejected: ") + e.what());
    FUZZ_CHECK(e.field() == "text" || e.field() == "cursor_bytes", "field " + e.field());
    return 0;
  }
  FUZZ_CHECK(constructible, "invalid document accepted");

  constexpr efimsim::EditKind kKinds[] = {
      efimsim::EditKind::kInsert,           efimsim::EditKind::kDelete,
      efimsim::EditKind::kMoveCursor,       efimsim::EditKind::kCompletionShown,
      efimsim::EditKind::kCompletionAccepted, efimsim::EditKind::kCompletionRejected,
      efimsim::EditKind::kIdle,             efimsim::EditKind::kEnd};
  while (!in.empty()) {
    efimsim::EditEvent event;
    event.session_id = "s";
    event.kind = kKinds[in.Byte() % 8];
    event.offset_bytes = in.Int(doc->size_bytes(), doc->cursor_bytes());
    event.length_bytes = in.Int(doc->size_bytes(), doc->cursor_bytes());
    event.text = in.Text(in.Byte() % 16);

    if (event.kind == efimsim::EditKind::kDelete &&
        efimsim::fuzz::IsOpenBugDeleteOverflow(event.offset_bytes, event.length_bytes)) {
      continue;
    }
    const std::string before = doc->text();
    const int64_t cursor_before = doc->cursor_bytes();
    const std::string what = Describe(event, before, cursor_before);
    const Expected expected = Reference(before, cursor_before, event);
    efimsim::EditEffect effect;
    try {
      effect = doc->Apply(event);
    } catch (const efimsim::InvalidEdit& e) {
      FUZZ_CHECK(!expected.valid, "valid edit rejected (" + e.field() + ": " + e.what() + "): " + what);
      FUZZ_CHECK(doc->text() == before && doc->cursor_bytes() == cursor_before,
                 "rejected edit changed the document: " + what);
      FUZZ_CHECK(e.field() == "offset_bytes" || e.field() == "length_bytes" || e.field() == "text",
                 "field " + e.field());
      continue;
    }
    FUZZ_CHECK(expected.valid, "invalid edit accepted: " + what);
    FUZZ_CHECK(doc->text() == expected.text, "text differs from the reference: " + what);
    FUZZ_CHECK(doc->cursor_bytes() == expected.cursor, "cursor differs: " + what);
    FUZZ_CHECK(effect.text_changed == expected.effect.text_changed, "text_changed: " + what);
    FUZZ_CHECK(effect.appended_at_cursor == expected.effect.appended_at_cursor,
               "appended_at_cursor: " + what);
    FUZZ_CHECK(!effect.text_changed ||
                   effect.first_changed_byte == expected.effect.first_changed_byte,
               "first_changed_byte: " + what);
    FUZZ_CHECK(effect.cursor_moved == expected.effect.cursor_moved, "cursor_moved: " + what);
    FUZZ_CHECK(std::string(doc->prefix()) + std::string(doc->suffix()) == doc->text(),
               "prefix + suffix != text");
    FUZZ_CHECK(doc->prefix().size() == static_cast<size_t>(doc->cursor_bytes()), "prefix size");
  }
  return 0;
}
