#include "sim/client/text_prompt_builder.h"

#include <gtest/gtest.h>

#include "sim/base/errors.h"

namespace efimsim {
namespace {

constexpr TokenId kBos = 1000, kPre = 1001, kSuf = 1002, kMid = 1003;

class TextPromptBuilderTest : public ::testing::Test {
 protected:
  TextPromptBuilderTest()
      : bpe_(tokenizer::BpeTokenizer::FromFile(std::string(EFIMSIM_TOKENIZER_TESTDATA_DIR) +
                                               "/tiny_tokenizer.json")) {
    tokens_.bos = kBos;
    tokens_.fim_prefix = kPre;
    tokens_.fim_suffix = kSuf;
    tokens_.fim_middle = kMid;
  }
  TokenVector Encode(std::string_view text) const {
    const auto ids = bpe_.Encode(text, tokenizer::AddedTokenText::kAsPlainText);
    return TokenVector(ids.begin(), ids.end());
  }
  static TokenVector Join(std::initializer_list<TokenVector> parts) {
    TokenVector out;
    for (const TokenVector& p : parts) out.insert(out.end(), p.begin(), p.end());
    return out;
  }

  tokenizer::BpeTokenizer bpe_;
  SpecialTokens tokens_;
};

TEST_F(TextPromptBuilderTest, PsmEncodesPrefixAndSuffixAsSeparateSegments) {
  const TextPromptBuilder psm("psm", bpe_, tokens_);
  TextPromptState state;
  TokenVector prompt;
  psm.Build("def f(", "):\n", state, prompt);
  EXPECT_EQ(prompt, Join({{kBos, kPre}, Encode("def f("), {kSuf}, Encode("):\n"), {kMid}}));
}

TEST_F(TextPromptBuilderTest, SpmPutsTheSuffixFirst) {
  const TextPromptBuilder spm("spm", bpe_, tokens_);
  TextPromptState state;
  TokenVector prompt;
  spm.Build("ab", "cd", state, prompt);
  EXPECT_EQ(prompt, Join({{kBos, kSuf}, Encode("cd"), {kPre}, Encode("ab"), {kMid}}));
}

TEST_F(TextPromptBuilderTest, EfimEncodesTheIncrementApartFromPrefix0) {
  const TextPromptBuilder efim("efim", bpe_, tokens_);
  TextPromptState state;
  efim.BeginSession("x = 1\n", state);
  TokenVector prompt;
  efim.Build("x = 1\ny = 2", "\nz = 3\n", state, prompt);
  EXPECT_EQ(prompt, Join({{kBos, kPre}, Encode("x = 1\n"), {kSuf}, Encode("\nz = 3\n"), {kMid},
                          Encode("y = 2")}));
  EXPECT_EQ(state.rebases, 0);
}

TEST_F(TextPromptBuilderTest, EfimRebasesOnANonAppendEditOnly) {
  const TextPromptBuilder efim("efim", bpe_, tokens_);
  TextPromptState state;
  efim.BeginSession("abc", state);
  TokenVector prompt;
  efim.Build("abcd", "", state, prompt);
  EXPECT_EQ(state.rebases, 0);
  efim.Build("aXcd", "", state, prompt);  // an edit inside prefix0
  EXPECT_EQ(state.rebases, 1);
  EXPECT_EQ(prompt, Join({{kBos, kPre}, Encode("aXcd"), {kSuf, kMid}}));  // empty increment
}

TEST_F(TextPromptBuilderTest, ChangedSuffixIsReencoded) {
  const TextPromptBuilder psm("psm", bpe_, tokens_);
  TextPromptState state;
  TokenVector first, second;
  psm.Build("a", "bb", state, first);
  psm.Build("a", "cc", state, second);
  EXPECT_EQ(second, Join({{kBos, kPre}, Encode("a"), {kSuf}, Encode("cc"), {kMid}}));
}

TEST_F(TextPromptBuilderTest, UnknownFormatIsAUsageError) {
  EXPECT_THROW(TextPromptBuilder("lpm", bpe_, tokens_), UsageError);
}

TEST(ContextWindow, KeepsTheCursorLineAndNWholeLinesAroundIt) {
  EXPECT_EQ(WindowPrefix("a\nb\nc", 1), "b\nc");
  EXPECT_EQ(WindowPrefix("a\nb\nc", 0), "c");
  EXPECT_EQ(WindowPrefix("a\nb\nc", 5), "a\nb\nc");
  EXPECT_EQ(WindowPrefix("a\nb\nc", -1), "a\nb\nc");
  EXPECT_EQ(WindowSuffix("x\ny\nz", 0), "x\n");
  EXPECT_EQ(WindowSuffix("x\ny\nz", 1), "x\ny\n");
  EXPECT_EQ(WindowSuffix("x\ny\nz", 9), "x\ny\nz");
}

}  // namespace
}  // namespace efimsim
