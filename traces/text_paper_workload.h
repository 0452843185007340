#pragma once
// The EFIM paper's multi-round benchmark (docs/semantics.md §2) on real code: the
// paper's arithmetic on CHARACTERS (L = the document's length in Unicode
// code points, like Python's len(str); ComputePaperLayout), then the text
// pieces tokenized with the real Llama-3.1 tokenizer, so prompts are real
// token sequences with real BPE boundaries.
//
// Per user u (document D = corpus.Sample(users, seed)[u]) and round r:
//   prefix0 text   = D[:chunk]                      (chars)
//   increment text = D[chunk : middle_end[r]]
//   suffix text    = D[half:]
//   continuation   = D[middle_end[r] : half]  (ContinuationText)
//   InitialPrefix  = Encode(prefix0 text)
//   Round(u, r).suffix = Encode(suffix text)
//   Round(u, r).prefix = kFragments: Encode(prefix0) ++ Encode(increment)
//                        kWhole:     Encode(D[:middle_end[r]])
// kFragments (default) is the paper's fragment tokenization: prefix0 and the
// increment are tokenized separately, so InitialPrefix is always a leading
// run of every round's prefix and EFIM never re-bases. kWhole is what a FIM
// client that tokenizes the whole prefix sends; there a BPE token may
// straddle the chunk boundary and the token prefix need not start with
// InitialPrefix. Encode never adds BOS (prompt formats do).
//
// The continuation is what a perfect completion of round r produces: the
// text after the round's cursor up to where the suffix starts, i.e. the
// increments the developer types in the next rounds and then the rest of
// the hole, D[middle_end[R-1] : half], which no round types. It stops at
// half because the suffix is already in the prompt: a FIM model fills the
// hole and ends there rather than repeat the suffix. The cursor and the
// suffix are the same under every prompt format (psm, spm, efim, and the
// baseline, psm without caching), so is the continuation.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "traces/code_corpus.h"
#include "traces/multi_round_workload.h"
#include "traces/paper_workload.h"
#include "traces/tokenizer/bpe_tokenizer.h"

namespace efimsim {

enum class PrefixTokenization { kFragments, kWhole };

struct TextPaperWorkloadConfig {
  int64_t users = 16;
  int64_t rounds = 5;
  uint64_t seed = 1;
  PrefixTokenization tokenization = PrefixTokenization::kFragments;
};

// BPE boundary effect between rounds r-1 and r of one user (r >= 1): the
// previous round's text is a prefix of this round's, so by characters all
// its tokens could be reused; by tokens only the common leading run can.
struct BoundaryReuse {
  // Whole prefix (a FIM prompt's prefix): Encode(D[:end_{r-1}]) vs Encode(D[:end_r]).
  int64_t previous_prefix_tokens = 0;  // reusable by characters
  int64_t common_prefix_tokens = 0;    // reusable by tokens
  // EFIM increment: Encode(D[chunk:end_{r-1}]) vs Encode(D[chunk:end_r]).
  int64_t previous_increment_tokens = 0;
  int64_t common_increment_tokens = 0;
};

// Length of the common leading run of two token sequences.
int64_t CommonLeadingTokens(TokenSpan a, TokenSpan b);

class TextPaperWorkload : public MultiRoundWorkload {
 public:
  // Samples the documents and tokenizes every round. Throws UsageError for
  // users < 1, rounds < 1, too few corpus documents, or a document too
  // short for the rounds (chunk of 0 characters).
  TextPaperWorkload(TextPaperWorkloadConfig config, const CodeCorpus& corpus,
                    tokenizer::BpeTokenizer tokenizer);

  int64_t num_users() const override { return config_.users; }
  int64_t num_rounds(int64_t) const override { return config_.rounds; }
  TokenVector InitialPrefix(int64_t user) const override;
  InfillContext Round(int64_t user, int64_t round) const override;
  std::string Name() const override { return "efim-paper-text"; }
  std::string Description() const override;

  // Round boundaries in code points.
  const PaperRoundLayout& layout(int64_t user) const { return User(user).layout; }
  std::string_view InitialPrefixText(int64_t user) const;
  std::string_view IncrementText(int64_t user, int64_t round) const;
  std::string_view PrefixText(int64_t user, int64_t round) const;  // prefix0 + increment
  std::string_view SuffixText(int64_t user) const;
  // D[middle_end[round] : half]: the text a perfect completion of `round`
  // produces (the next rounds' increments, then the rest of the hole).
  std::string_view ContinuationText(int64_t user, int64_t round) const;

  // Requires 1 <= round < rounds. Tokenizes on demand.
  BoundaryReuse AnalyzeBoundaryReuse(int64_t user, int64_t round) const;

 private:
  struct UserDocument {
    std::string path;
    std::string text;
    PaperRoundLayout layout;          // code points
    size_t chunk_bytes = 0;
    size_t half_bytes = 0;
    std::vector<size_t> middle_end_bytes;
    TokenVector initial_prefix;
    TokenVector suffix;
    std::vector<TokenVector> round_prefix;
  };
  const UserDocument& User(int64_t user) const { return users_.at(static_cast<size_t>(user)); }

  TextPaperWorkloadConfig config_;
  std::string corpus_description_;
  tokenizer::BpeTokenizer tokenizer_;
  std::vector<UserDocument> users_;
};

}  // namespace efimsim
