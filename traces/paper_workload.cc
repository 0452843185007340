#include "traces/paper_workload.h"

#include "sim/base/check.h"
#include "sim/base/errors.h"
#include "sim/core/random.h"

namespace efimsim {

// Uniform token ids in [first, last], two per 64-bit draw: each 32-bit half
// is mapped by Lemire's multiply-shift with rejection, so the ids are
// exactly uniform (the range is far below 2^32).
void FillUniformTokens(RandomStream& stream, TokenId first, TokenId last, std::span<TokenId> tokens) {
  const uint64_t span = static_cast<uint64_t>(last - first) + 1;
  const uint64_t threshold = (uint64_t{1} << 32) % span;  // 2^32 mod span
  constexpr uint64_t kLow32 = 0xffffffff;
  TokenId* out = tokens.data();
  TokenId* const end = out + tokens.size();
  // A local copy of the generator, written back at the end: the compiler
  // cannot prove the token stores leave the stream's state alone, and would
  // store its four words on every draw.
  RandomStream local = stream;
  while (out != end) {
    const uint64_t draw = local.NextU64();
    // High half first, then low half; a rejected half is skipped.
    const uint64_t high = (draw >> 32) * span;
    const uint64_t low = (draw & kLow32) * span;
    if ((high & kLow32) >= threshold) *out++ = first + static_cast<TokenId>(high >> 32);
    if (out != end && (low & kLow32) >= threshold) *out++ = first + static_cast<TokenId>(low >> 32);
  }
  stream = local;
}

PaperRoundLayout ComputePaperLayout(int64_t length, int64_t rounds) {
  PaperRoundLayout layout;
  layout.half = length / 2;
  // Python: chunk = int(half / (R + 2)); end_i = int(half / (R + 2) * (i + 2)).
  const double step = static_cast<double>(layout.half) / static_cast<double>(rounds + 2);
  layout.chunk = static_cast<int64_t>(step);
  for (int64_t i = 0; i < rounds; ++i) {
    layout.middle_end.push_back(static_cast<int64_t>(step * static_cast<double>(i + 2)));
  }
  return layout;
}

PaperWorkload::PaperWorkload(PaperWorkloadConfig config) : config_(config) {
  if (config_.users < 1) throw UsageError("--users: must be at least 1");
  if (config_.rounds < 1) throw UsageError("--rounds: must be at least 1");
  if (config_.doc_max_tokens - config_.doc_min_tokens < 2) {
    throw UsageError("--doc-min-tokens/--doc-max-tokens: the open range (" +
                     std::to_string(config_.doc_min_tokens) + ", " +
                     std::to_string(config_.doc_max_tokens) + ") holds no length");
  }
  if (config_.doc_min_tokens + 1 < 2 * (config_.rounds + 2)) {
    throw UsageError("--doc-min-tokens: documents too short for " +
                     std::to_string(config_.rounds) + " rounds");
  }
  EFIMSIM_CHECK(config_.text_first <= config_.text_last, "empty synthetic token range");
  // Each user's length first (the first draw of the user's stream), so
  // that one allocation holds every document; then the tokens, continuing
  // each user's stream.
  std::vector<RandomStream> streams;
  streams.reserve(static_cast<size_t>(config_.users));
  document_begin_.reserve(static_cast<size_t>(config_.users) + 1);
  document_begin_.push_back(0);
  layouts_.resize(static_cast<size_t>(config_.users));
  for (int64_t user = 0; user < config_.users; ++user) {
    // One stream per user: a user's document does not depend on how many
    // other users the run has.
    streams.push_back(RandomStream::Derive(static_cast<uint64_t>(config_.seed),
                                           static_cast<uint64_t>(user), "efim-paper.document"));
    const int64_t length =
        streams.back().UniformInt(config_.doc_min_tokens + 1, config_.doc_max_tokens - 1);
    document_begin_.push_back(document_begin_.back() + length);
    layouts_[static_cast<size_t>(user)] = ComputePaperLayout(length, config_.rounds);
  }
  tokens_.reset(new TokenId[static_cast<size_t>(document_begin_.back())]);
  for (int64_t user = 0; user < config_.users; ++user) {
    const size_t begin = static_cast<size_t>(document_begin_[static_cast<size_t>(user)]);
    const size_t end = static_cast<size_t>(document_begin_[static_cast<size_t>(user) + 1]);
    FillUniformTokens(streams[static_cast<size_t>(user)], config_.text_first, config_.text_last,
                      std::span<TokenId>(tokens_.get() + begin, end - begin));
  }
}

TokenSpan PaperWorkload::document(int64_t user) const {
  EFIMSIM_CHECK(user >= 0 && user < config_.users, "user out of range");
  const size_t begin = static_cast<size_t>(document_begin_[static_cast<size_t>(user)]);
  const size_t end = static_cast<size_t>(document_begin_[static_cast<size_t>(user) + 1]);
  return TokenSpan(tokens_.get() + begin, end - begin);
}

TokenVector PaperWorkload::InitialPrefix(int64_t user) const {
  const TokenSpan doc = document(user);
  return TokenVector(doc.begin(), doc.begin() + layouts_[static_cast<size_t>(user)].chunk);
}

InfillContext PaperWorkload::Round(int64_t user, int64_t round) const {
  EFIMSIM_CHECK(round >= 0 && round < config_.rounds, "round out of range");
  const TokenSpan text = document(user);
  const PaperRoundLayout& layout = layouts_[static_cast<size_t>(user)];
  return InfillContext{text.first(static_cast<size_t>(layout.middle_end[round])),
                       text.subspan(static_cast<size_t>(layout.half))};
}

std::string PaperWorkload::Description() const {
  return "efim-paper: " + std::to_string(config_.users) + " users x " +
         std::to_string(config_.rounds) + " rounds, closed loop; documents: synthetic tokens, " +
         "length uniform in (" + std::to_string(config_.doc_min_tokens) + ", " +
         std::to_string(config_.doc_max_tokens) + ") tokens, paper's character arithmetic on "
         "token positions";
}

}  // namespace efimsim
