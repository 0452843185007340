// Fuzz target: the byte-level BPE tokenizer (traces/tokenizer/README.md):
// the tokenizer.json loader on fuzzed JSON, and Encode/Decode on fuzzed text.
//
// Input: byte 0 chooses what the rest is:
//   byte0 % 4 == 0: a tokenizer.json. TokenizerError is a normal outcome;
//     a tokenizer that loads must round-trip a few fixed texts.
//   1, 2: text for the committed fixture tests/tokenizer/testdata/
//     tiny_tokenizer.json, added tokens recognized (1) or as plain text (2).
//   3: text for the Llama-3.1 tokenizer at DefaultTokenizerPath() when it
//     exists (loaded once; scripts/fetch-tokenizer), else the fixture;
//     byte0 & 4 picks plain-text added tokens.
// Checks on every encoding: Decode(Encode(text)) is text with ill-formed
// UTF-8 replaced by U+FFFD (exactly text when it is valid UTF-8), every id
// is below VocabSize, and encoding again (now through the pre-token cache)
// gives the same ids. Nothing but TokenizerError may escape the loader.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/fuzz/fuzz_common.h"
#include "traces/tokenizer/bpe_tokenizer.h"
#include "traces/tokenizer/default_tokenizer_path.h"
#include "traces/tokenizer/utf8.h"

namespace {

using efimsim::tokenizer::AddedTokenText;
using efimsim::tokenizer::BpeTokenizer;

const BpeTokenizer& Fixture() {
  static const BpeTokenizer tokenizer = BpeTokenizer::FromFile(
      std::string(EFIMSIM_FUZZ_SOURCE_DIR) + "/tests/tokenizer/testdata/tiny_tokenizer.json");
  return tokenizer;
}

// The Llama-3.1 tokenizer when fetched, else the fixture.
const BpeTokenizer& Real() {
  static const BpeTokenizer* const tokenizer = []() -> const BpeTokenizer* {
    std::string path;
    try {
      path = efimsim::tokenizer::DefaultTokenizerPath();
    } catch (const std::runtime_error&) {  // neither HOME nor EFIMSIM_CACHE_DIR set
      return &Fixture();
    }
    std::error_code error;
    if (!std::filesystem::is_regular_file(path, error)) return &Fixture();
    return new BpeTokenizer(BpeTokenizer::FromFile(path));
  }();
  return *tokenizer;
}

// Finding 4 (while open): the loader sizes its id tables by the largest
// token id, so one id near 2^31 overflows int (UB) and one of 10^8 asks for
// gigabytes. True when the JSON holds an integer above 2^20 anywhere.
bool HasOpenBugHugeTokenId(std::string_view json_text) {
#ifdef EFIMSIM_FUZZ_OPEN_BUG_TOKENIZER_HUGE_ID
  if (!efimsim::fuzz::OpenBugsTolerated()) return false;
  const nlohmann::json doc = nlohmann::json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  bool huge = false;
  std::function<void(const nlohmann::json&)> walk = [&](const nlohmann::json& value) {
    if (value.is_number_unsigned()) {
      huge = huge || value.get<uint64_t>() > (uint64_t{1} << 20);
    } else if (value.is_number_integer()) {
      huge = huge || value.get<int64_t>() > (int64_t{1} << 20);
    } else if (value.is_structured()) {
      for (const auto& item : value) walk(item);
    }
  };
  if (!doc.is_discarded()) walk(doc);
  return huge;
#else
  (void)json_text;
  return false;
#endif
}

void CheckEncoding(const BpeTokenizer& tokenizer, std::string_view text, AddedTokenText mode) {
  const std::vector<int32_t> ids = tokenizer.Encode(text, mode);
  for (const int32_t id : ids) {
    FUZZ_CHECK(id >= 0 && id < tokenizer.VocabSize(), "id " + std::to_string(id) + " out of range");
  }
  const std::string decoded = tokenizer.Decode(ids);
  const std::string expected = efimsim::tokenizer::IsValidUtf8(text)
                                   ? std::string(text)
                                   : efimsim::tokenizer::ReplaceInvalidUtf8(text);
  FUZZ_CHECK(decoded == expected, "Decode(Encode(text)) != text for " +
                                      std::to_string(text.size()) + " input bytes, " +
                                      std::to_string(ids.size()) + " ids");
  FUZZ_CHECK(tokenizer.Encode(text, mode) == ids, "encoding twice gives different ids");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t control = data[0];
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (control % 4) {
    case 0: {
      if (HasOpenBugHugeTokenId(rest)) return 0;
      const std::string path = efimsim::fuzz::WriteScratchFile("tokenizer.json", rest);
      std::optional<BpeTokenizer> tokenizer;
      try {
        tokenizer.emplace(BpeTokenizer::FromFile(path));
      } catch (const efimsim::tokenizer::TokenizerError& e) {
        FUZZ_CHECK(e.file() == path, "TokenizerError names file '" + e.file() + "'");
        return 0;
      } catch (const std::exception& e) {
        if (!efimsim::fuzz::IsOpenBug(e)) throw;
        return 0;
      }
      for (const std::string_view text :
           {std::string_view("def f(x):\n    return x + 1  # caf\xc3\xa9 \xf0\x9f\x98\x80\n"),
            std::string_view("<|fim_prefix|>a<sep>!b<|fim_middle|>  \t\r\n\n123456 'll"),
            std::string_view("\xff\xc3(\xe2\x82")}) {
        CheckEncoding(*tokenizer, text, AddedTokenText::kRecognize);
        CheckEncoding(*tokenizer, text, AddedTokenText::kAsPlainText);
      }
      break;
    }
    case 1:
      CheckEncoding(Fixture(), rest, AddedTokenText::kRecognize);
      break;
    case 2:
      CheckEncoding(Fixture(), rest, AddedTokenText::kAsPlainText);
      break;
    default:
      CheckEncoding(Real(), rest,
                    (control & 4) != 0 ? AddedTokenText::kAsPlainText : AddedTokenText::kRecognize);
      break;
  }
  return 0;
}
