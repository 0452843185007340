#include <gtest/gtest.h>

#include <string>

#include "traces/tokenizer/byte_level_alphabet.h"
#include "traces/tokenizer/unicode_categories.h"
#include "traces/tokenizer/utf8.h"

namespace efimsim::tokenizer {
namespace {

TEST(UnicodeCategoriesTest, ClassesFollowTheJsRegexEngine) {
  EXPECT_EQ(ClassifyCodePoint('a'), CodePointClass::kLetter);
  EXPECT_EQ(ClassifyCodePoint('7'), CodePointClass::kNumber);
  EXPECT_EQ(ClassifyCodePoint('\t'), CodePointClass::kWhitespace);
  EXPECT_EQ(ClassifyCodePoint('_'), CodePointClass::kOther);
  EXPECT_EQ(ClassifyCodePoint(0x4E16), CodePointClass::kLetter);     // CJK
  EXPECT_EQ(ClassifyCodePoint(0x0663), CodePointClass::kNumber);     // Arabic-Indic 3
  EXPECT_EQ(ClassifyCodePoint(0x2167), CodePointClass::kNumber);     // Roman numeral (Nl)
  EXPECT_EQ(ClassifyCodePoint(0x3000), CodePointClass::kWhitespace); // ideographic space
  EXPECT_EQ(ClassifyCodePoint(0xFEFF), CodePointClass::kWhitespace); // BOM: JS \s, not White_Space
  EXPECT_EQ(ClassifyCodePoint(0x0085), CodePointClass::kOther);      // NEL: White_Space, not JS \s
  EXPECT_EQ(ClassifyCodePoint(0x0301), CodePointClass::kOther);      // combining acute (Mn)
  EXPECT_EQ(ClassifyCodePoint(0x1F916), CodePointClass::kOther);     // emoji
  EXPECT_EQ(ClassifyCodePoint(0x10FFFF), CodePointClass::kOther);
}

TEST(Utf8Test, ValidityFollowsTheStandard) {
  EXPECT_TRUE(IsValidUtf8("plain ascii, long enough for the word loop"));
  EXPECT_TRUE(IsValidUtf8("\xC3\xA9\xE4\xB8\x96\xF0\x9F\xA4\x96"));
  EXPECT_FALSE(IsValidUtf8("\xC0\xAF"));          // overlong
  EXPECT_FALSE(IsValidUtf8("\xED\xA0\x80"));      // surrogate
  EXPECT_FALSE(IsValidUtf8("\xF4\x90\x80\x80"));  // > U+10FFFF
  EXPECT_FALSE(IsValidUtf8("abc\xE4\xB8"));       // truncated
}

TEST(Utf8Test, ReplacementUsesMaximalSubparts) {
  const std::string fffd = "\xEF\xBF\xBD";
  EXPECT_EQ(ReplaceInvalidUtf8("ok"), "ok");
  EXPECT_EQ(ReplaceInvalidUtf8("\xFF"), fffd);
  EXPECT_EQ(ReplaceInvalidUtf8("\xE4\xB8x"), fffd + "x");          // one U+FFFD for a truncated sequence
  EXPECT_EQ(ReplaceInvalidUtf8("\xED\xA0\x80"), fffd + fffd + fffd);  // surrogate: one per byte
  EXPECT_EQ(ReplaceInvalidUtf8("\xC0\xAF"), fffd + fffd);
  EXPECT_EQ(ReplaceInvalidUtf8("a\xF0\x9F\xA4"), "a" + fffd);
}

TEST(ByteLevelAlphabetTest, RoundTripsEveryByte) {
  std::string all_bytes;
  for (int b = 0; b < 256; ++b) all_bytes.push_back(static_cast<char>(b));
  EXPECT_EQ(ByteLevelTextToBytes(BytesToByteLevelText(all_bytes)), all_bytes);
  EXPECT_EQ(ByteLevelCodePoint(' '), U'\u0120');   // 'Ġ'
  EXPECT_EQ(ByteLevelCodePoint('\n'), U'\u010A');  // 'Ċ'
  EXPECT_EQ(ByteLevelCodePoint('a'), U'a');
  EXPECT_EQ(ByteLevelTextToBytes("\xC4\xA0hi"), " hi");
  EXPECT_FALSE(ByteLevelTextToBytes(" "));  // a raw space is not in the alphabet
}

}  // namespace
}  // namespace efimsim::tokenizer
