#pragma once
// The EFIM paper's multi-round speed benchmark (SEMANTICS.md §2), exactly:
// with L = document length, half = L // 2, chunk = int(half / (R + 2)):
//   prefix = doc[:chunk] (fixed), suffix = doc[half:] (fixed),
//   round i middle = doc[chunk : int(half / (R + 2) * (i + 2))]
// (Python float arithmetic, reproduced bit for bit). FIM sends
// prefix + middle as its prefix; EFIM keeps prefix as prefix0 and sends the
// middle as its increment.
//
// Documents: until a tokenizer is wired in, each user's document is a
// deterministic synthetic token sequence whose length is uniform in
// (doc_min_tokens, doc_max_tokens), exclusive, and the paper's character
// arithmetic is applied to token positions.

#include <memory>
#include <span>
#include <vector>

#include "sim/core/random.h"
#include "traces/multi_round_workload.h"

namespace efimsim {

struct PaperWorkloadConfig {
  int64_t users = 16;
  int64_t rounds = 5;
  int64_t doc_min_tokens = 2048;  // exclusive
  int64_t doc_max_tokens = 4096;  // exclusive
  int64_t seed = 1;               // >= 0
  TokenId text_first = 256;       // synthetic token ids are drawn from
  TokenId text_last = 31999;      // [text_first, text_last]
};

// The round boundaries of one document, in token positions.
struct PaperRoundLayout {
  int64_t half = 0;
  int64_t chunk = 0;
  std::vector<int64_t> middle_end;  // round i's middle is [chunk, middle_end[i])
};
// Fills `tokens` with ids uniform in [first, last] from `stream`.
void FillUniformTokens(RandomStream& stream, TokenId first, TokenId last, std::span<TokenId> tokens);

// Pure arithmetic of the paper, for a document of `length` units.
PaperRoundLayout ComputePaperLayout(int64_t length, int64_t rounds);

class PaperWorkload : public MultiRoundWorkload {
 public:
  // Throws UsageError for users < 1, rounds < 1, or an empty length range.
  explicit PaperWorkload(PaperWorkloadConfig config);

  int64_t num_users() const override { return config_.users; }
  int64_t num_rounds(int64_t) const override { return config_.rounds; }
  TokenVector InitialPrefix(int64_t user) const override;
  InfillContext Round(int64_t user, int64_t round) const override;
  std::string Name() const override { return "efim-paper"; }
  std::string Description() const override;

  TokenSpan document(int64_t user) const;

 private:
  PaperWorkloadConfig config_;
  // Every user's document, back to back: user u's is
  // [document_begin_[u], document_begin_[u + 1]). One allocation, not
  // zero-filled first (tokens are written once); 24 MB for 2,000 users.
  std::unique_ptr<TokenId[]> tokens_;
  std::vector<int64_t> document_begin_;
  std::vector<PaperRoundLayout> layouts_;
};

}  // namespace efimsim
