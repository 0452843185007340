#include "traces/edited_document.h"

#include <gtest/gtest.h>

namespace efimsim {
namespace {

EditEvent Make(EditKind kind, int64_t offset, std::string text = "", int64_t length = 0) {
  EditEvent e;
  e.kind = kind;
  e.offset_bytes = offset;
  e.text = std::move(text);
  e.length_bytes = length;
  return e;
}

TEST(EditedDocument, TypingAtTheCursorIsAnAppend) {
  EditedDocument doc("def f():\n    \n", 13);
  EXPECT_EQ(doc.prefix(), "def f():\n    ");
  EditEffect effect = doc.Apply(Make(EditKind::kInsert, 13, "r"));
  EXPECT_TRUE(effect.text_changed);
  EXPECT_TRUE(effect.appended_at_cursor);
  EXPECT_EQ(effect.first_changed_byte, 13);
  EXPECT_EQ(doc.cursor_bytes(), 14);
  effect = doc.Apply(Make(EditKind::kCompletionAccepted, 14, "eturn 1"));
  EXPECT_TRUE(effect.appended_at_cursor);
  EXPECT_EQ(doc.text(), "def f():\n    return 1\n");
  EXPECT_EQ(doc.suffix(), "\n");
}

TEST(EditedDocument, EditsAwayFromTheCursorAreNotAppends) {
  EditedDocument doc("abcdef", 6);
  EditEffect effect = doc.Apply(Make(EditKind::kInsert, 2, "X"));
  EXPECT_FALSE(effect.appended_at_cursor);
  EXPECT_EQ(effect.first_changed_byte, 2);
  EXPECT_EQ(doc.text(), "abXcdef");
  EXPECT_EQ(doc.cursor_bytes(), 3);
  // Backspace: deletes the byte before the cursor, the cursor follows.
  effect = doc.Apply(Make(EditKind::kDelete, 2, "", 1));
  EXPECT_FALSE(effect.appended_at_cursor);
  EXPECT_TRUE(effect.text_changed);
  EXPECT_EQ(doc.text(), "abcdef");
  EXPECT_EQ(doc.cursor_bytes(), 2);
  effect = doc.Apply(Make(EditKind::kMoveCursor, 6));
  EXPECT_FALSE(effect.text_changed);
  EXPECT_TRUE(effect.cursor_moved);
  for (EditKind kind : {EditKind::kCompletionShown, EditKind::kCompletionRejected, EditKind::kIdle,
                        EditKind::kEnd}) {
    effect = doc.Apply(Make(kind, 0));
    EXPECT_FALSE(effect.text_changed);
    EXPECT_FALSE(effect.cursor_moved);
  }
  EXPECT_EQ(doc.text(), "abcdef");
}

TEST(EditedDocument, RejectsBadOffsetsNamingTheFieldAndChangesNothing) {
  EditedDocument doc("aé", 0);  // 'é' is bytes 1..2
  const auto field_of = [&](const EditEvent& e) -> std::string {
    try {
      doc.Apply(e);
    } catch (const InvalidEdit& error) {
      return error.field() + ": " + error.what();
    }
    return "no error";
  };
  EXPECT_NE(field_of(Make(EditKind::kInsert, 4, "x")).find("offset_bytes: offset 4 is outside"),
            std::string::npos);
  EXPECT_NE(field_of(Make(EditKind::kInsert, -1, "x")).find("offset_bytes"), std::string::npos);
  EXPECT_NE(field_of(Make(EditKind::kInsert, 2, "x")).find("splits a UTF-8"), std::string::npos);
  EXPECT_NE(field_of(Make(EditKind::kMoveCursor, 2)).find("offset_bytes"), std::string::npos);
  EXPECT_NE(field_of(Make(EditKind::kDelete, 0, "", 2)).find("length_bytes: range end 2 splits"),
            std::string::npos);
  EXPECT_NE(field_of(Make(EditKind::kDelete, 1, "", 5)).find("runs past the end"),
            std::string::npos);
  EXPECT_NE(field_of(Make(EditKind::kInsert, 0, "\xc3")).find("text"), std::string::npos);
  EXPECT_EQ(doc.text(), "aé");
  EXPECT_EQ(doc.cursor_bytes(), 0);
  EXPECT_THROW(EditedDocument("ab", 3), InvalidEdit);
  EXPECT_THROW(EditedDocument("\xff", 0), InvalidEdit);
}

// text_to_type: the planned text still to be typed, while the cursor is
// where it goes on.
SessionStart Planned(std::string text, int64_t cursor, std::string to_type) {
  SessionStart start;
  start.text = std::move(text);
  start.cursor_bytes = cursor;
  start.text_to_type = std::move(to_type);
  return start;
}

TEST(EditedDocument, TextToTypeShrinksAsThePlanIsTyped) {
  EditedDocument doc(Planned("a\n\nz", 2, "bc\nde\n"));
  EXPECT_EQ(doc.text_to_type(), "bc\nde\n");
  doc.Apply(Make(EditKind::kInsert, 2, "b"));
  EXPECT_EQ(doc.text_to_type(), "c\nde\n");
  doc.Apply(Make(EditKind::kCompletionAccepted, 3, "c\nd"));  // several bytes at once
  EXPECT_EQ(doc.text_to_type(), "e\n");
  doc.Apply(Make(EditKind::kInsert, 6, "e\n"));
  EXPECT_EQ(doc.text_to_type(), "");
  EXPECT_EQ(doc.text(), "a\nbc\nde\n\nz");
  EXPECT_EQ(EditedDocument("ab", 1).text_to_type(), "");  // nothing known
}

TEST(EditedDocument, TextToTypeIsEmptyWhileTheCursorIsAwayOrATypoIsPending) {
  EditedDocument doc(Planned("ab", 1, "xyz"));
  doc.Apply(Make(EditKind::kInsert, 1, "x"));
  doc.Apply(Make(EditKind::kMoveCursor, 0));  // a jump away
  EXPECT_EQ(doc.text_to_type(), "");
  doc.Apply(Make(EditKind::kMoveCursor, 2));  // and back
  EXPECT_EQ(doc.text_to_type(), "yz");
  doc.Apply(Make(EditKind::kInsert, 2, "q"));  // a typo sits after the typed part
  EXPECT_EQ(doc.text_to_type(), "");
  doc.Apply(Make(EditKind::kDelete, 2, "", 1));  // its backspace
  EXPECT_EQ(doc.text_to_type(), "yz");
  doc.Apply(Make(EditKind::kInsert, 2, "y"));  // a typo that happens to be the next letter
  doc.Apply(Make(EditKind::kDelete, 2, "", 1));
  EXPECT_EQ(doc.text_to_type(), "yz");
  doc.Apply(Make(EditKind::kInsert, 2, "yz"));
  EXPECT_EQ(doc.text(), "axyzb");
  EXPECT_EQ(doc.text_to_type(), "");
}

TEST(EditedDocument, EditsBeforeThePlanShiftItAndEditsInsideItDropIt) {
  EditedDocument doc(Planned("ab", 1, "xyz"));
  doc.Apply(Make(EditKind::kInsert, 1, "x"));
  doc.Apply(Make(EditKind::kInsert, 0, "00"));  // before: the plan moves along
  doc.Apply(Make(EditKind::kDelete, 0, "", 1));
  doc.Apply(Make(EditKind::kMoveCursor, 3));
  EXPECT_EQ(doc.text(), "0axb");
  EXPECT_EQ(doc.text_to_type(), "yz");
  doc.Apply(Make(EditKind::kInsert, 4, "!"));  // after it: no change
  doc.Apply(Make(EditKind::kMoveCursor, 3));
  EXPECT_EQ(doc.text_to_type(), "yz");
  doc.Apply(Make(EditKind::kDelete, 1, "", 2));  // "ax": the typed part is cut
  EXPECT_EQ(doc.cursor_bytes(), 1);
  EXPECT_EQ(doc.text_to_type(), "");
  doc.Apply(Make(EditKind::kInsert, 1, "yz"));
  EXPECT_EQ(doc.text_to_type(), "");  // dropped for good
}

}  // namespace
}  // namespace efimsim
