#pragma once
// The EFIM paper's multi-round speed benchmark (docs/semantics.md §2), exactly:
// with L = document length, half = L // 2, chunk = int(half / (R + 2)):
//   prefix = doc[:chunk] (fixed), suffix = doc[half:] (fixed),
//   round i middle = doc[chunk : int(half / (R + 2) * (i + 2))]
// (Python float arithmetic, reproduced bit for bit). FIM sends
// prefix + middle as its prefix; EFIM keeps prefix as prefix0 and sends the
// middle as its increment.
//
// Documents: each user's document is a deterministic synthetic token
// sequence whose length is uniform in (doc_min_tokens, doc_max_tokens),
// exclusive, and the paper's character arithmetic is applied to token
// positions.
//
// Memory: nothing per user is made up front. A user's document comes from
// its own named stream (seed, user, "efim-paper.document"), so it is made
// when asked for (InitialPrefix, Round, document) and kept only until the
// workload is asked about another user: memory is one document, whatever
// the number of users, and making one again gives the same tokens (about a
// third of a microsecond per thousand tokens, traces/uniform_tokens.h).
// Not thread-safe (one run, one thread).
//
// Only what a call needs is made. The stream's first draw is the length;
// the head [0, half) comes from the next 16 draws (FillUniformTokens'
// lanes) and the tail [half, L) from the 16 after. A round sends
// [0, middle_end[i]) and the tail, so the head is made only that far: the
// ids [middle_end[i], half) that round i never sends are not drawn (on
// average 3/7 of the head with 5 rounds). Making more of the head later
// starts again from its lanes' seeds and gives the same leading ids. The
// tail (the suffix) is made when a call returns it, and not by
// RoundSuffixIfCheap: a later round's EFIM prompt repeats it, and an
// engine that kept its keys does not read it again.

#include <memory>
#include <optional>
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
  // The constructor refuses a run whose PaperWorkloadPeakBytes exceeds this
  // (a UsageError saying what it would need); 0: this machine's physical
  // memory.
  int64_t memory_budget_bytes = 0;
};

// The round boundaries of one document, in token positions.
struct PaperRoundLayout {
  int64_t half = 0;
  int64_t chunk = 0;
  std::vector<int64_t> middle_end;  // round i's middle is [chunk, middle_end[i])
};
// Pure arithmetic of the paper, for a document of `length` units.
PaperRoundLayout ComputePaperLayout(int64_t length, int64_t rounds);
// The same into `layout`, reusing its storage (the workload makes a layout
// for every request it sends).
void ComputePaperLayout(int64_t length, int64_t rounds, PaperRoundLayout& layout);

class PaperWorkload : public MultiRoundWorkload {
 public:
  // Throws UsageError for users < 1, rounds < 1, an empty length range, or
  // more users than fit in memory (PaperWorkloadPeakBytes over
  // memory_budget_bytes), saying how much the run would need.
  explicit PaperWorkload(PaperWorkloadConfig config);

  int64_t num_users() const override { return config_.users; }
  int64_t num_rounds(int64_t) const override { return config_.rounds; }
  TokenVector InitialPrefix(int64_t user) const override;
  // The views are valid until the next call for another user.
  InfillContext Round(int64_t user, int64_t round) const override;
  // The same with the suffix made only if it already is (for this user,
  // since it was last loaded).
  InfillContext RoundSuffixIfCheap(int64_t user, int64_t round) const override;
  // Every round after the first: the prefix ends at the next middle_end
  // (they increase) and the suffix is the document's second half.
  bool ExtendsPreviousRound(int64_t /*user*/, int64_t round) const override { return round > 0; }
  std::string Name() const override { return "efim-paper"; }
  std::string Description() const override;

  // `user`'s whole document; valid until the next call for another user.
  TokenSpan document(int64_t user) const;
  const PaperRoundLayout& layout(int64_t user) const;

 private:
  // Makes `user`'s layout unless that user is the one held.
  void Load(int64_t user) const;
  // Makes the held document's head up to at least `head_tokens` (<= half).
  void MakeHead(int64_t head_tokens) const;
  // Makes the held document's tail [half, length) unless it is made.
  void MakeTail() const;
  // The held round's context (its head made, its tail made or not).
  InfillContext HeldRound(int64_t round) const;
  // The held document: tokens_[0, length_).
  std::span<TokenId> Held() const {
    return std::span<TokenId>(tokens_).first(static_cast<size_t>(length_));
  }

  PaperWorkloadConfig config_;
  // The document last asked for (user loaded_user_), made from the user's
  // stream: the length is its first draw, the tokens continue the stream.
  // tokens_ has room for the longest document held so far; this one's
  // length is length_, of which [0, head_made_) is made, and [half,
  // length_) when tail_made_.
  mutable int64_t loaded_user_ = -1;
  mutable TokenVector tokens_;
  mutable int64_t length_ = 0;
  mutable PaperRoundLayout layout_;
  mutable std::optional<RandomStream> head_stream_;  // positioned at the head's seeds
  mutable std::optional<RandomStream> tail_stream_;  // positioned at the tail's seeds
  mutable int64_t head_made_ = 0;
  mutable bool tail_made_ = false;
};

// Bytes a closed-loop run of the paper workload holds at its peak, about:
// every user has a request in flight at once (all send round 0 at t = 0),
// each queued with the block keys of its longest prompt (prefix through the
// last round's middle, plus the suffix). An estimate for refusing runs that
// cannot fit (~3.9 KB a user with the default documents and 5 rounds, 3.6
// KB with 1 round; measured 2.5 KB with 1 round), not a measurement.
int64_t PaperWorkloadPeakBytes(const PaperWorkloadConfig& config);

}  // namespace efimsim
