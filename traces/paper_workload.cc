#include "traces/paper_workload.h"

#include "sim/base/check.h"
#include "sim/base/errors.h"
#include "sim/core/random.h"

namespace efimsim {

// Uniform token ids in [first, last], two per 64-bit draw: each 32-bit half
// is mapped by Lemire's multiply-shift with rejection, so the ids are
// exactly uniform (the range is far below 2^32).
void FillUniformTokens(RandomStream& stream, TokenId first, TokenId last, TokenVector& tokens) {
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
  documents_.resize(static_cast<size_t>(config_.users));
  layouts_.resize(static_cast<size_t>(config_.users));
  for (int64_t user = 0; user < config_.users; ++user) {
    // One stream per user: a user's document does not depend on how many
    // other users the run has.
    RandomStream stream = RandomStream::Derive(static_cast<uint64_t>(config_.seed), static_cast<uint64_t>(user),
                                               "efim-paper.document");
    const int64_t length =
        stream.UniformInt(config_.doc_min_tokens + 1, config_.doc_max_tokens - 1);
    TokenVector& doc = documents_[user];
    doc.resize(static_cast<size_t>(length));
    FillUniformTokens(stream, config_.text_first, config_.text_last, doc);
    layouts_[user] = ComputePaperLayout(length, config_.rounds);
  }
}

TokenVector PaperWorkload::InitialPrefix(int64_t user) const {
  const TokenVector& doc = documents_.at(static_cast<size_t>(user));
  return TokenVector(doc.begin(), doc.begin() + layouts_[user].chunk);
}

InfillContext PaperWorkload::Round(int64_t user, int64_t round) const {
  EFIMSIM_CHECK(round >= 0 && round < config_.rounds, "round out of range");
  const TokenVector& doc = documents_.at(static_cast<size_t>(user));
  const PaperRoundLayout& layout = layouts_[user];
  const TokenSpan text(doc);
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
