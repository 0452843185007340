#include "traces/text_paper_workload.h"

#include "sim/base/check.h"
#include "sim/base/errors.h"
#include "traces/utf8_text.h"

namespace efimsim {
namespace {

TokenVector Encode(const tokenizer::BpeTokenizer& tokenizer, std::string_view text) {
  // Document text is tokenized as plain text: a file that happens to contain
  // "<|begin_of_text|>" must not turn into a special token.
  return tokenizer.Encode(text, tokenizer::AddedTokenText::kAsPlainText);
}

}  // namespace

int64_t CommonLeadingTokens(TokenSpan a, TokenSpan b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return static_cast<int64_t>(n);
}

TextPaperWorkload::TextPaperWorkload(TextPaperWorkloadConfig config, const CodeCorpus& corpus,
                                     tokenizer::BpeTokenizer tokenizer)
    : config_(config), tokenizer_(std::move(tokenizer)) {
  if (config_.users < 1) throw UsageError("--users: must be at least 1");
  if (config_.rounds < 1) throw UsageError("--rounds: must be at least 1");
  corpus_description_ = corpus.source() + ", " + std::to_string(corpus.documents().size()) +
                        " files with " + std::to_string(corpus.config().min_tokens) +
                        " < tokens < " + std::to_string(corpus.config().max_tokens);
  const std::vector<size_t> picks = corpus.Sample(config_.users, config_.seed);
  for (const size_t pick : picks) {
    const CodeDocument& doc = corpus.documents()[pick];
    UserDocument user;
    user.path = doc.path;
    user.text = doc.text;
    user.layout = ComputePaperLayout(CountCodePoints(user.text), config_.rounds);
    if (user.layout.chunk < 1) {
      throw UsageError("--rounds: document " + doc.path + " is too short for " +
                       std::to_string(config_.rounds) + " rounds");
    }
    user.chunk_bytes = ByteOffsetOfCodePoint(user.text, user.layout.chunk);
    user.half_bytes = ByteOffsetOfCodePoint(user.text, user.layout.half);
    for (const int64_t end : user.layout.middle_end) {
      user.middle_end_bytes.push_back(ByteOffsetOfCodePoint(user.text, end));
    }
    const std::string_view text = user.text;
    user.initial_prefix = Encode(tokenizer_, text.substr(0, user.chunk_bytes));
    user.suffix = Encode(tokenizer_, text.substr(user.half_bytes));
    for (const size_t end : user.middle_end_bytes) {
      TokenVector prefix;
      if (config_.tokenization == PrefixTokenization::kFragments) {
        prefix = user.initial_prefix;
        const TokenVector increment =
            Encode(tokenizer_, text.substr(user.chunk_bytes, end - user.chunk_bytes));
        prefix.insert(prefix.end(), increment.begin(), increment.end());
      } else {
        prefix = Encode(tokenizer_, text.substr(0, end));
      }
      user.round_prefix.push_back(std::move(prefix));
    }
    users_.push_back(std::move(user));
  }
}

TokenVector TextPaperWorkload::InitialPrefix(int64_t user) const {
  return User(user).initial_prefix;
}

InfillContext TextPaperWorkload::Round(int64_t user, int64_t round) const {
  EFIMSIM_CHECK(round >= 0 && round < config_.rounds, "round out of range");
  const UserDocument& doc = User(user);
  return InfillContext{doc.round_prefix[static_cast<size_t>(round)], doc.suffix};
}

std::string_view TextPaperWorkload::InitialPrefixText(int64_t user) const {
  const UserDocument& doc = User(user);
  return std::string_view(doc.text).substr(0, doc.chunk_bytes);
}

std::string_view TextPaperWorkload::IncrementText(int64_t user, int64_t round) const {
  const UserDocument& doc = User(user);
  const size_t end = doc.middle_end_bytes.at(static_cast<size_t>(round));
  return std::string_view(doc.text).substr(doc.chunk_bytes, end - doc.chunk_bytes);
}

std::string_view TextPaperWorkload::PrefixText(int64_t user, int64_t round) const {
  const UserDocument& doc = User(user);
  return std::string_view(doc.text).substr(0, doc.middle_end_bytes.at(static_cast<size_t>(round)));
}

std::string_view TextPaperWorkload::SuffixText(int64_t user) const {
  const UserDocument& doc = User(user);
  return std::string_view(doc.text).substr(doc.half_bytes);
}

std::string_view TextPaperWorkload::ContinuationText(int64_t user, int64_t round) const {
  const UserDocument& doc = User(user);
  const size_t begin = doc.middle_end_bytes.at(static_cast<size_t>(round));
  EFIMSIM_CHECK(begin <= doc.half_bytes, "a round's cursor lies in the suffix");
  return std::string_view(doc.text).substr(begin, doc.half_bytes - begin);
}

BoundaryReuse TextPaperWorkload::AnalyzeBoundaryReuse(int64_t user, int64_t round) const {
  EFIMSIM_CHECK(round >= 1 && round < config_.rounds, "round out of range");
  BoundaryReuse reuse;
  const TokenVector previous_prefix = Encode(tokenizer_, PrefixText(user, round - 1));
  const TokenVector prefix = Encode(tokenizer_, PrefixText(user, round));
  reuse.previous_prefix_tokens = static_cast<int64_t>(previous_prefix.size());
  reuse.common_prefix_tokens = CommonLeadingTokens(previous_prefix, prefix);
  const TokenVector previous_increment = Encode(tokenizer_, IncrementText(user, round - 1));
  const TokenVector increment = Encode(tokenizer_, IncrementText(user, round));
  reuse.previous_increment_tokens = static_cast<int64_t>(previous_increment.size());
  reuse.common_increment_tokens = CommonLeadingTokens(previous_increment, increment);
  return reuse;
}

std::string TextPaperWorkload::Description() const {
  return "efim-paper-text: " + std::to_string(config_.users) + " users x " +
         std::to_string(config_.rounds) + " rounds, closed loop; documents: real code (" +
         corpus_description_ + "), Llama-3.1 tokenizer; paper's arithmetic on characters, " +
         (config_.tokenization == PrefixTokenization::kFragments
              ? "prefix0 and increment tokenized separately"
              : "whole prefix tokenized");
}

}  // namespace efimsim
