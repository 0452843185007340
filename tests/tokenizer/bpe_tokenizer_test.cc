// Unit tests of BpeTokenizer on the committed tiny fixture (no download).
// Expected ids were cross-checked with the JS reference (@lenml/tokenizers
// TokenizerLoader.fromPreTrained on the same fixture).
#include "traces/tokenizer/bpe_tokenizer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace efimsim::tokenizer {
namespace {

using Ids = std::vector<int32_t>;

const std::string kFixture = std::string(EFIMSIM_TOKENIZER_TESTDATA_DIR) + "/tiny_tokenizer.json";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

// Writes the fixture with the first `from` replaced by `to` to a temp file.
std::string WriteEditedFixture(const std::string& name, const std::string& from, const std::string& to) {
  std::string text = ReadFile(kFixture);
  const std::size_t at = text.find(from);
  if (at == std::string::npos) throw std::logic_error("fixture does not contain " + from);
  text.replace(at, from.size(), to);
  const std::string path = testing::TempDir() + "/" + name + ".json";
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

class BpeTokenizerTest : public testing::Test {
 protected:
  BpeTokenizer tokenizer_ = BpeTokenizer::FromFile(kFixture);
};

TEST_F(BpeTokenizerTest, VocabSizeCountsAddedTokens) { EXPECT_EQ(tokenizer_.VocabSize(), 270); }

TEST_F(BpeTokenizerTest, MergesApplyInRankOrder) {
  EXPECT_EQ(tokenizer_.Encode("hellos"), (Ids{259, 115}));  // h e l l o -> hello, then s
  EXPECT_EQ(tokenizer_.Encode("say hello world"), (Ids{115, 97, 121, 32, 259, 264}));
}

TEST_F(BpeTokenizerTest, EqualRankMergesLeftmostFirst) {
  EXPECT_EQ(tokenizer_.Encode("lll"), (Ids{257, 108}));
  EXPECT_EQ(tokenizer_.Encode("lld"), (Ids{257, 100}));  // (l,l) ranks before (l,d)
}

TEST_F(BpeTokenizerTest, UnmergedBytesFallBackToByteTokens) {
  EXPECT_EQ(tokenizer_.Encode("\xC3\xA9"), (Ids{195, 169}));  // "é" has no merges
  EXPECT_EQ(tokenizer_.Encode(""), Ids{});
}

TEST_F(BpeTokenizerTest, IgnoreMergesMapsWholeVocabPreTokens) {
  // " world" is in the vocab (264) although no merge chain builds it.
  EXPECT_EQ(tokenizer_.Encode(" world"), (Ids{264}));
  const BpeTokenizer with_merges = BpeTokenizer::FromFile(
      WriteEditedFixture("no_ignore_merges", "\"ignore_merges\": true", "\"ignore_merges\": false"));
  EXPECT_EQ(with_merges.Encode(" world"), (Ids{262, 263}));  // Ġ w o r l d -> Ġwor ld
  EXPECT_EQ(with_merges.Encode("hello"), (Ids{259}));
}

TEST_F(BpeTokenizerTest, LegacyStringMergesReadTheSame) {
  const BpeTokenizer legacy =
      BpeTokenizer::FromFile(std::string(EFIMSIM_TOKENIZER_TESTDATA_DIR) + "/tiny_tokenizer_string_merges.json");
  for (const char* text : {"hellos", "lll", " world", "say hello world"}) {
    EXPECT_EQ(legacy.Encode(text), tokenizer_.Encode(text)) << text;
  }
}

TEST_F(BpeTokenizerTest, AddedTokensAreRecognizedByDefault) {
  EXPECT_EQ(tokenizer_.Encode("<|fim_prefix|>a<|fim_suffix|>b<|fim_middle|>"), (Ids{265, 97, 267, 98, 266}));
  // Longest content wins at a position.
  EXPECT_EQ(tokenizer_.Encode("<sep>!"), (Ids{269}));
  EXPECT_EQ(tokenizer_.Encode("<sep>?"), (Ids{268, 63}));
}

TEST_F(BpeTokenizerTest, AddedTokensCanBeTreatedAsPlainText) {
  // "<sep" is one pre-token (symbol + letters), ">" another.
  EXPECT_EQ(tokenizer_.Encode("<sep>", AddedTokenText::kAsPlainText), (Ids{60, 115, 101, 112, 62}));
  const Ids plain = tokenizer_.Encode("x<|fim_prefix|>", AddedTokenText::kAsPlainText);
  EXPECT_EQ(std::count(plain.begin(), plain.end(), 265), 0);
  EXPECT_EQ(tokenizer_.Decode(plain), "x<|fim_prefix|>");
}

TEST_F(BpeTokenizerTest, SpecialTokenIdLooksUpAddedTokens) {
  EXPECT_EQ(tokenizer_.SpecialTokenId("<|fim_prefix|>"), 265);
  EXPECT_EQ(tokenizer_.SpecialTokenId("<sep>!"), 269);
  EXPECT_EQ(tokenizer_.SpecialTokenId("hello"), std::nullopt);  // vocab, not added
  EXPECT_EQ(tokenizer_.SpecialTokenId("<|fim"), std::nullopt);
}

TEST_F(BpeTokenizerTest, DecodeInvertsEncode) {
  for (const char* text : {"say hello world\n", "<|fim_prefix|>def f():\n\treturn 1<|fim_middle|>",
                           "\xE4\xB8\x96\xE7\x95\x8C \xF0\x9F\xA4\x96", "  trailing   "}) {
    EXPECT_EQ(tokenizer_.Decode(tokenizer_.Encode(text)), text);
  }
  EXPECT_THROW(tokenizer_.Decode(Ids{270}), std::out_of_range);
  EXPECT_THROW(tokenizer_.Decode(Ids{-1}), std::out_of_range);
}

TEST_F(BpeTokenizerTest, InvalidUtf8IsReplacedLikeNodeDoes) {
  EXPECT_EQ(tokenizer_.Encode("\xFF"), (Ids{0xEF, 0xBF, 0xBD}));  // U+FFFD
  EXPECT_EQ(tokenizer_.Decode(tokenizer_.Encode("a\xE4\xB8")), "a\xEF\xBF\xBD");
}

// EncodeLeading is Encode cut to its first max_tokens ids, whatever the
// cut (inside a pre-token's ids, at an added token, past the end).
TEST_F(BpeTokenizerTest, EncodeLeadingIsALeadingRunOfEncode) {
  for (const char* text : {"say hello world\n  hello\n\n\tworld  ", "hellos lll lld",
                           "a<|fim_prefix|>hello<sep>!<sep>? world", "\xFF hello \xE4\xB8"}) {
    for (const AddedTokenText mode : {AddedTokenText::kRecognize, AddedTokenText::kAsPlainText}) {
      const Ids all = tokenizer_.Encode(text, mode);
      for (std::size_t n = 0; n <= all.size() + 2; ++n) {
        const Ids expected(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(std::min(n, all.size())));
        EXPECT_EQ(tokenizer_.EncodeLeading(text, n, mode), expected) << text << " n=" << n;
      }
    }
  }
}

// Loading errors name the file and the JSON field.
void ExpectLoadError(const std::string& path, const std::string& field) {
  try {
    BpeTokenizer::FromFile(path);
    ADD_FAILURE() << "expected TokenizerError for field " << field;
  } catch (const TokenizerError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

TEST(BpeTokenizerLoadErrorTest, NamesFileAndField) {
  ExpectLoadError("/nonexistent/tokenizer.json", "");
  ExpectLoadError(WriteEditedFixture("bad_json", "{", "["), "");
  ExpectLoadError(WriteEditedFixture("wordpiece", "\"type\": \"BPE\"", "\"type\": \"WordPiece\""), "model.type");
  ExpectLoadError(WriteEditedFixture("byte_fallback", "\"byte_fallback\": false", "\"byte_fallback\": true"),
                  "model.byte_fallback");
  ExpectLoadError(WriteEditedFixture("regex", R"(\\p{N}{1,3})", R"(\\p{N}+)"),
                  "pre_tokenizer.pretokenizers[0].pattern.Regex");
  ExpectLoadError(WriteEditedFixture("behavior", "\"Isolated\"", "\"Removed\""),
                  "pre_tokenizer.pretokenizers[0].behavior");
  ExpectLoadError(WriteEditedFixture("lstrip", "\"lstrip\": false", "\"lstrip\": true"), "added_tokens[0].lstrip");
  ExpectLoadError(WriteEditedFixture("normalizer", "\"normalizer\": null", "\"normalizer\": {\"type\": \"NFC\"}"),
                  "normalizer");
  ExpectLoadError(WriteEditedFixture("merge_result", "\"hell\": 258", "\"hellx\": 258"), "model.merges[2]");
  ExpectLoadError(WriteEditedFixture("missing_byte", "\"a\": 97", "\"zz\": 97"), "model.vocab");
  ExpectLoadError(WriteEditedFixture("bad_id", "\"hell\": 258", "\"hell\": \"x\""), "model.vocab[\"hell\"]");
}

// A poll stops a long load: the fixture padded with 40,000 ignored values
// (post_processor is not read) gives the parse enough events to poll.
struct StopLoad {};

std::string WritePaddedFixture() {
  std::string values;
  for (int i = 0; i < 40000; ++i) values += i == 0 ? "0" : ",0";
  return WriteEditedFixture("padded", "\"version\": \"1.0\",",
                            "\"version\": \"1.0\", \"post_processor\": [" + values + "],");
}

TEST(BpeTokenizerStopPollTest, IsCalledDuringTheParseAndWhatItThrowsEscapes) {
  const std::string path = WritePaddedFixture();
  int polls = 0;
  const BpeTokenizer tokenizer = BpeTokenizer::FromFile(path, [&polls] { ++polls; });
  EXPECT_GE(polls, 2);  // 40,000+ parse events, a poll every kItemsPerStopPoll
  EXPECT_EQ(tokenizer.Encode("hello", AddedTokenText::kAsPlainText),
            BpeTokenizer::FromFile(kFixture).Encode("hello", AddedTokenText::kAsPlainText));

  int calls = 0;
  EXPECT_THROW(BpeTokenizer::FromFile(path, [&calls] { if (++calls == 2) throw StopLoad{}; }),
               StopLoad);
  EXPECT_EQ(calls, 2);  // stopped at the second poll, not at the end
}

}  // namespace
}  // namespace efimsim::tokenizer
