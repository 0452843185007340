#include "traces/code_corpus.h"

#include <numeric>

#include "sim/base/errors.h"
#include "sim/core/random.h"
#include "traces/source_documents.h"
#include "traces/utf8_text.h"

namespace efimsim {
namespace {

// A document of max_tokens tokens has at most ~4 bytes a token in code;
// anything far larger cannot be in range and is not read.
constexpr int64_t kMaxBytesPerToken = 64;

}  // namespace

int64_t CodeCorpus::CountCandidateFiles(const CodeCorpusConfig& config) {
  return static_cast<int64_t>(SourceDocuments::Open(config.directory, config.extensions).size());
}

CodeCorpus CodeCorpus::Build(const CodeCorpusConfig& config,
                             const tokenizer::BpeTokenizer& tokenizer,
                             const tokenizer::StopPoll& poll) {
  if (config.max_tokens - config.min_tokens < 2) {
    throw UsageError("corpus: the open token range (" + std::to_string(config.min_tokens) + ", " +
                     std::to_string(config.max_tokens) + ") holds no length");
  }
  CodeCorpus corpus;
  corpus.config_ = config;
  const SourceDocuments files = SourceDocuments::Open(config.directory, config.extensions);
  corpus.source_ = files.source();
  corpus.files_scanned_ = static_cast<int64_t>(files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    if (poll) poll();
    std::string text;
    try {
      text = files.Read(i, config.max_tokens * kMaxBytesPerToken);
    } catch (const InputError&) {
      continue;  // unreadable or far too large
    }
    // Fewer bytes than tokens is impossible; skip cheaply.
    if (static_cast<int64_t>(text.size()) <= config.min_tokens || !IsValidUtf8(text)) continue;
    const auto tokens = static_cast<int64_t>(tokenizer.Encode(text, tokenizer::AddedTokenText::kAsPlainText).size());
    if (tokens > config.min_tokens && tokens < config.max_tokens) {
      corpus.documents_.push_back(CodeDocument{files.path(i), std::move(text), tokens});
    }
  }
  return corpus;
}

std::vector<size_t> CodeCorpus::Sample(int64_t count, uint64_t seed) const {
  if (count < 0 || count > static_cast<int64_t>(documents_.size())) {
    throw UsageError("corpus: " + std::to_string(count) + " documents wanted but " +
                     source_ + " has only " + std::to_string(documents_.size()) +
                     " with " + std::to_string(config_.min_tokens) + " < tokens < " +
                     std::to_string(config_.max_tokens));
  }
  std::vector<size_t> order(documents_.size());
  std::iota(order.begin(), order.end(), size_t{0});
  RandomStream stream = RandomStream::Derive(seed, 0, "corpus.sample");
  const auto n = static_cast<int64_t>(order.size());
  for (int64_t i = 0; i < count; ++i) {
    const int64_t j = stream.UniformInt(i, n - 1);
    std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(j)]);
  }
  order.resize(static_cast<size_t>(count));
  return order;
}

}  // namespace efimsim
