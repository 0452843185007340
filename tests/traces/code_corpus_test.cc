#include "traces/code_corpus.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <memory>

#include "sim/base/errors.h"
#include "traces/text_paper_workload.h"
#include "traces/tokenizer/default_tokenizer_path.h"

namespace efimsim {
namespace {

// Tokenizer and corpus are built once for the suite (about 1-2 s).
class CodeCorpusTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string path;
    try {
      path = tokenizer::DefaultTokenizerPath();
    } catch (const std::exception&) {
      return;
    }
    if (!std::filesystem::exists(path)) return;
    tokenizer_ = std::make_unique<tokenizer::BpeTokenizer>(tokenizer::BpeTokenizer::FromFile(path));
    corpus_ = std::make_unique<CodeCorpus>(CodeCorpus::Build(CodeCorpusConfig{}, *tokenizer_));
  }
  void SetUp() override {
    if (!corpus_) {
      GTEST_SKIP() << "needs the Llama-3.1 tokenizer (scripts/fetch-tokenizer)";
    }
  }
  static std::unique_ptr<tokenizer::BpeTokenizer> tokenizer_;
  static std::unique_ptr<CodeCorpus> corpus_;
};
std::unique_ptr<tokenizer::BpeTokenizer> CodeCorpusTest::tokenizer_;
std::unique_ptr<CodeCorpus> CodeCorpusTest::corpus_;

// The default corpus is the pinned one: the same documents on every machine
// (traces/data/README.md: 94 of its 250 files lie in the default range).
TEST_F(CodeCorpusTest, DefaultIsThePinnedCorpus) {
  EXPECT_EQ(corpus_->source(), "pinned corpus cpython-3.11.2");
  EXPECT_EQ(corpus_->files_scanned(), 250);
  EXPECT_EQ(corpus_->documents().size(), 94u);
  EXPECT_EQ(corpus_->documents().front().path.rfind("cpython-3.11.2/", 0), 0u);
}

TEST_F(CodeCorpusTest, KeepsOnlyDocumentsInTheOpenTokenRangeSortedByPath) {
  const auto& docs = corpus_->documents();
  ASSERT_GE(docs.size(), 16u);
  EXPECT_GT(corpus_->files_scanned(), static_cast<int64_t>(docs.size()));
  for (size_t i = 0; i < docs.size(); ++i) {
    EXPECT_GT(docs[i].num_tokens, 2048);
    EXPECT_LT(docs[i].num_tokens, 4096);
    if (i > 0) {
      EXPECT_LT(docs[i - 1].path, docs[i].path);
    }
  }
  const CodeDocument& doc = docs[docs.size() / 2];
  EXPECT_EQ(static_cast<int64_t>(
                tokenizer_->Encode(doc.text, tokenizer::AddedTokenText::kAsPlainText).size()),
            doc.num_tokens);
}

TEST_F(CodeCorpusTest, CountsTheFilesBuildReadsWithoutATokenizer) {
  EXPECT_EQ(CodeCorpus::CountCandidateFiles(CodeCorpusConfig{}), corpus_->files_scanned());
}

TEST_F(CodeCorpusTest, SamplingIsDeterministicAndPrefixStable) {
  const std::vector<size_t> five = corpus_->Sample(5, 7);
  const std::vector<size_t> ten = corpus_->Sample(10, 7);
  EXPECT_EQ(five, corpus_->Sample(5, 7));
  EXPECT_TRUE(std::equal(five.begin(), five.end(), ten.begin()));
  EXPECT_NE(five, corpus_->Sample(5, 8));
  EXPECT_THROW(corpus_->Sample(static_cast<int64_t>(corpus_->documents().size()) + 1, 1),
               UsageError);
}

TEST_F(CodeCorpusTest, TextPaperWorkloadAppliesThePaperArithmeticOnCharacters) {
  TextPaperWorkloadConfig config;
  config.users = 4;
  config.rounds = 5;
  const TextPaperWorkload workload(config, *corpus_, *tokenizer_);
  EXPECT_NE(workload.Description().find("documents: real code ("), std::string::npos);
  EXPECT_NE(workload.Description().find("Llama-3.1 tokenizer"), std::string::npos);
  for (int64_t user = 0; user < 4; ++user) {
    const PaperRoundLayout& layout = workload.layout(user);
    const TokenVector initial = workload.InitialPrefix(user);
    EXPECT_EQ(tokenizer_->Decode(initial), workload.InitialPrefixText(user));
    for (int64_t round = 0; round < 5; ++round) {
      const InfillContext context = workload.Round(user, round);
      // Fragment tokenization: prefix0 is a leading run of every round.
      ASSERT_GE(context.prefix.size(), initial.size());
      EXPECT_TRUE(std::equal(initial.begin(), initial.end(), context.prefix.begin()));
      EXPECT_EQ(tokenizer_->Decode(context.prefix), workload.PrefixText(user, round));
      EXPECT_EQ(tokenizer_->Decode(context.suffix), workload.SuffixText(user));
      // The continuation (a completion's reference output) fills the hole:
      // prefix + continuation + suffix is the whole document.
      EXPECT_EQ(std::string(workload.PrefixText(user, round)) +
                    std::string(workload.ContinuationText(user, round)) +
                    std::string(workload.SuffixText(user)),
                corpus_->documents()[corpus_->Sample(4, config.seed)[static_cast<size_t>(user)]].text);
      // Character counts follow the layout.
      const std::string prefix_text(workload.PrefixText(user, round));
      int64_t chars = 0;
      for (const char c : prefix_text) chars += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
      EXPECT_EQ(chars, layout.middle_end[static_cast<size_t>(round)]);
      if (round > 0) {
        const BoundaryReuse reuse = workload.AnalyzeBoundaryReuse(user, round);
        EXPECT_LE(reuse.common_prefix_tokens, reuse.previous_prefix_tokens);
        // BPE only re-merges near the old end (a word or whitespace run
        // continued by the new text): a few tokens at most.
        EXPECT_GE(reuse.common_prefix_tokens, reuse.previous_prefix_tokens - 8);
        EXPECT_LE(reuse.common_increment_tokens, reuse.previous_increment_tokens);
      }
    }
  }
}

TEST_F(CodeCorpusTest, WholePrefixTokenizationMatchesEncodingThePrefixText) {
  TextPaperWorkloadConfig config;
  config.users = 2;
  config.rounds = 3;
  config.tokenization = PrefixTokenization::kWhole;
  const TextPaperWorkload workload(config, *corpus_, *tokenizer_);
  for (int64_t round = 0; round < 3; ++round) {
    const TokenSpan prefix = workload.Round(1, round).prefix;
    EXPECT_EQ(TokenVector(prefix.begin(), prefix.end()),
              tokenizer_->Encode(workload.PrefixText(1, round),
                                 tokenizer::AddedTokenText::kAsPlainText));
  }
}

// On real code and the real tokenizer, EncodeLeading gives exactly the
// leading ids of Encode (reference outputs are cut this way).
TEST_F(CodeCorpusTest, EncodeLeadingIsALeadingRunOfEncodeOnRealCode) {
  const auto plain = tokenizer::AddedTokenText::kAsPlainText;
  for (size_t d = 0; d < 4; ++d) {
    const std::string_view text = corpus_->documents()[d].text;
    for (const size_t from : {size_t{0}, text.size() / 3, text.size() / 2 + 7}) {
      const std::string_view rest = text.substr(from);
      const std::vector<int32_t> all = tokenizer_->Encode(rest, plain);
      for (const size_t n : {size_t{1}, size_t{16}, size_t{128}, size_t{1000}}) {
        const std::vector<int32_t> leading = tokenizer_->EncodeLeading(rest, n, plain);
        ASSERT_EQ(leading.size(), std::min(n, all.size()));
        EXPECT_TRUE(std::equal(leading.begin(), leading.end(), all.begin())) << d << " " << n;
      }
    }
  }
}

// The poll runs before each file and what it throws stops the build there.
TEST_F(CodeCorpusTest, PollIsCalledPerFileAndWhatItThrowsEscapes) {
  struct StopBuild {};
  int64_t polls = 0;
  const CodeCorpus counted = CodeCorpus::Build(CodeCorpusConfig{}, *tokenizer_, [&polls] { ++polls; });
  EXPECT_EQ(polls, counted.files_scanned());
  EXPECT_EQ(counted.documents().size(), corpus_->documents().size());
  int calls = 0;
  EXPECT_THROW(CodeCorpus::Build(CodeCorpusConfig{}, *tokenizer_,
                                 [&calls] { if (++calls == 3) throw StopBuild{}; }),
               StopBuild);
  EXPECT_EQ(calls, 3);
}

}  // namespace
}  // namespace efimsim
