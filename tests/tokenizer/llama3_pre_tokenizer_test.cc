// Pre-token splits of the hand-written Llama-3 matcher. Expected values were
// produced by the JS regex the reference tokenizer uses (node 20), e.g.
//   "x \n\n y".match(/(?:'([sS]|...)|...|\s+/gu) -> ["x", " \n\n", " y"].
#include "traces/tokenizer/llama3_pre_tokenizer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace efimsim::tokenizer {
namespace {

std::vector<std::string> Split(std::string_view text) {
  std::vector<std::string> pieces;
  for (std::size_t begin = 0; begin < text.size();) {
    const std::size_t end = Llama3PreTokenEnd(text, begin);
    EXPECT_GT(end, begin);
    pieces.emplace_back(text.substr(begin, end - begin));
    begin = end;
  }
  return pieces;
}

using Pieces = std::vector<std::string>;

TEST(Llama3PreTokenizerTest, WordsTakeTheirLeadingSpaceOrSymbol) {
  EXPECT_EQ(Split("Hello world"), (Pieces{"Hello", " world"}));
  EXPECT_EQ(Split("(foo"), (Pieces{"(foo"}));
  EXPECT_EQ(Split("\tdef"), (Pieces{"\tdef"}));
  EXPECT_EQ(Split("'x"), (Pieces{"'x"}));
  EXPECT_EQ(Split("x'"), (Pieces{"x", "'"}));
}

TEST(Llama3PreTokenizerTest, ContractionsIgnoreAsciiCase) {
  EXPECT_EQ(Split("DON'T"), (Pieces{"DON", "'T"}));
  EXPECT_EQ(Split("we're"), (Pieces{"we", "'re"}));
  EXPECT_EQ(Split("WE'LL"), (Pieces{"WE", "'LL"}));
  EXPECT_EQ(Split("'sup"), (Pieces{"'s", "up"}));
}

TEST(Llama3PreTokenizerTest, NumbersSplitIntoGroupsOfThree) {
  EXPECT_EQ(Split("12345"), (Pieces{"123", "45"}));
  // Arabic-Indic digits are \p{N} too.
  EXPECT_EQ(Split("\u0663\u0664\u0665\u0666"), (Pieces{"\u0663\u0664\u0665", "\u0666"}));
}

TEST(Llama3PreTokenizerTest, WhitespaceRuns) {
  EXPECT_EQ(Split("a  b"), (Pieces{"a", " ", " b"}));
  EXPECT_EQ(Split("x \n\n y"), (Pieces{"x", " \n\n", " y"}));
  EXPECT_EQ(Split("foo   "), (Pieces{"foo", "   "}));
  EXPECT_EQ(Split("  \n  z"), (Pieces{"  \n", " ", " z"}));
  EXPECT_EQ(Split("a\r\n"), (Pieces{"a", "\r\n"}));
  EXPECT_EQ(Split("x\u00a0y"), (Pieces{"x", "\u00a0y"}));  // NBSP is \s
  EXPECT_EQ(Split("a\u2028b"), (Pieces{"a", "\u2028b"}));  // LINE SEPARATOR is \s
}

TEST(Llama3PreTokenizerTest, SymbolsKeepTrailingNewlines) {
  EXPECT_EQ(Split(" += 1"), (Pieces{" +=", " ", "1"}));
  EXPECT_EQ(Split("):\n"), (Pieces{"):\n"}));
}

TEST(Llama3PreTokenizerTest, NonAscii) {
  EXPECT_EQ(Split("\u4e16\u754c \U0001F916"), (Pieces{"\u4e16\u754c", " \U0001F916"}));
  // Combining marks (Mn) are not \p{L}: they start a new pre-token.
  EXPECT_EQ(Split("e\u0301t\u0301"), (Pieces{"e", "\u0301t", "\u0301"}));
}

}  // namespace
}  // namespace efimsim::tokenizer
