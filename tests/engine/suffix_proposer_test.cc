// Suffix decoding (sim/engine/spec_decode/suffix_proposer.h). Expected values
// are worked out by hand from ArcticInference v0.1.1's SuffixTree /
// SuffixDecodingCache and vLLM's SuffixDecodingProposer: count(w) = stored
// suffixes (cut at max_depth) starting with w; the walk multiplies by
// count(child) / count(node) at each branch and stops below min_token_prob;
// match lengths 1 .. |context| - 1 are tried, a later (longer) one wins
// score ties; the request's own tree wins ties with the global tree.
#include "sim/engine/spec_decode/suffix_proposer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

namespace efimsim {
namespace {

SuffixDraft SpeculateTree(const SuffixTree& tree, const TokenVector& context,
                          int32_t max_spec_tokens, float factor = 1.0f, float offset = 0.0f,
                          float min_prob = 0.1f) {
  return tree.Speculate(TokenSpan(context), max_spec_tokens, factor, offset, min_prob);
}

// Prompt [10,11,12,13,10,11], context [13,10,11]. Match 1 = [11]:
// count("11") = 2 (starts 1, 5), its only child "12.." has count 1, so
// p = 1/2 and one token (1 x factor 1): [12], score 0.5. Match 2 = [10,11]:
// count 2 (starts 0, 4), child "12.." count 1: p = 0.5, two tokens [12,13],
// score 1.0. Match 3 would be the whole context: never tried. The global
// tree is empty (score 0), so the prompt's draft wins.
TEST(SuffixDecodingCache, DraftFromThePromptTree) {
  SuffixDecodingCache cache(/*max_tree_depth=*/8, /*max_cached_requests=*/4);
  cache.StartRequest(1, TokenVector{10, 11, 12, 13, 10, 11});
  const SuffixDraft draft = cache.Speculate(1, TokenVector{13, 10, 11}, 4);
  EXPECT_EQ(draft.token_ids, (TokenVector{12, 13}));
  EXPECT_EQ(draft.probs, (std::vector<float>{0.5f, 0.5f}));
  EXPECT_EQ(draft.score, 1.0f);
  EXPECT_EQ(draft.match_len, 2);
}

// Request 1 produced [50..54] and stopped; its output (not its prompt) is in
// the global tree. Request 2's own tree "7 50 51" has nothing after "51"
// (score 0). Global: [50,51] (count 1) continues 52, 53, 54 with p = 1;
// match 2 allows two tokens: [52,53], score 2.
TEST(SuffixDecodingCache, DraftFromAnEarlierRequestsOutput) {
  SuffixDecodingCache cache(8, 4);
  cache.StartRequest(1, TokenVector{1, 2});
  cache.AddActiveResponse(1, TokenVector{50, 51, 52, 53, 54});
  cache.StopRequest(1);
  EXPECT_FALSE(cache.IsActive(1));
  EXPECT_TRUE(cache.IsCached(1));
  cache.StartRequest(2, TokenVector{7, 50, 51});
  const SuffixDraft draft = cache.Speculate(2, TokenVector{7, 50, 51}, 5);
  EXPECT_EQ(draft.token_ids, (TokenVector{52, 53}));
  EXPECT_EQ(draft.score, 2.0f);
  // Request 1's prompt [1,2] was never stored globally: nothing follows "2"
  // anywhere, nor "1" in request 2's own tree.
  EXPECT_TRUE(cache.Speculate(2, TokenVector{9, 1, 2}, 5).token_ids.empty());
}

// Own tree and global tree give equal scores: the own tree wins. Request 1
// output [5,6,7,8]; request 2 prompt [5,6,7,9], context [4,5,6]: match 2
// gives [7,9] (own) and [7,8] (global), both score 2.
TEST(SuffixDecodingCache, OwnTreeWinsTies) {
  SuffixDecodingCache cache(8, 4);
  cache.StartRequest(1, TokenVector{0});
  cache.AddActiveResponse(1, TokenVector{5, 6, 7, 8});
  cache.StopRequest(1);
  cache.StartRequest(2, TokenVector{5, 6, 7, 9});
  EXPECT_EQ(cache.Speculate(2, TokenVector{4, 5, 6}, 5).token_ids, (TokenVector{7, 9}));
}

// Prompt [5,6,7,5,6,8,5,6,9,5,6] (depth 16): count("5 6") = 4 (starts 0, 3,
// 6, 9; the last one ends there), children 7, 8, 9 with count 1 each, in
// creation order, 7 first. So p(7) = 1/4 = 0.25 exactly, and the tokens after
// it in the same node keep p = 0.25. min_token_prob 0.25 lets them through
// (match 2: [7,5], score 0.5); 0.3 stops every walk before its first token.
TEST(SuffixDecodingCache, MinTokenProbCutsTheDraft) {
  SuffixDecodingCache cache(16, 4);
  cache.StartRequest(1, TokenVector{5, 6, 7, 5, 6, 8, 5, 6, 9, 5, 6});
  const TokenVector context = {9, 5, 6};
  const SuffixDraft kept = cache.Speculate(1, context, 4, 1.0f, 0.0f, 0.25f);
  EXPECT_EQ(kept.token_ids, (TokenVector{7, 5}));
  EXPECT_EQ(kept.probs, (std::vector<float>{0.25f, 0.25f}));
  EXPECT_TRUE(cache.Speculate(1, context, 4, 1.0f, 0.0f, 0.3f).token_ids.empty());
}

// Sequence [1,2,3,4,5,6,7,1,2], context [7,1,2]. Match 1 ([2]) and match 2
// ([1,2]) both have count 2 and one child of count 1: p = 0.5 along
// 3,4,5,6,... Tokens allowed = int(match_len * factor + 1e-6), capped by k.
TEST(SuffixDecodingCache, MaxSpecFactorLimitsTokensPerMatchLength) {
  SuffixDecodingCache cache(16, 0);
  cache.StartRequest(1, TokenVector{1, 2, 3, 4, 5, 6, 7, 1, 2});
  const TokenVector context = {7, 1, 2};
  // factor 1: match 2 allows 2 tokens.
  EXPECT_EQ(cache.Speculate(1, context, 8, 1.0f).token_ids, (TokenVector{3, 4}));
  // factor 2: match 2 allows 4 tokens (score 2 beats match 1's 1).
  EXPECT_EQ(cache.Speculate(1, context, 8, 2.0f).token_ids, (TokenVector{3, 4, 5, 6}));
  // ... but never more than max_spec_tokens.
  EXPECT_EQ(cache.Speculate(1, context, 3, 2.0f).token_ids, (TokenVector{3, 4, 5}));
  // factor 0.5: match 1 allows int(0.5) = 0 tokens, match 2 allows 1.
  const SuffixDraft half = cache.Speculate(1, context, 8, 0.5f);
  EXPECT_EQ(half.token_ids, (TokenVector{3}));
  EXPECT_EQ(half.match_len, 2);
  // factor 0 with offset 1: one token whatever the match length; equal
  // scores, so the longest match (2) is reported.
  const SuffixDraft offset = cache.Speculate(1, context, 8, 0.0f, 1.0f);
  EXPECT_EQ(offset.token_ids, (TokenVector{3}));
  EXPECT_EQ(offset.match_len, 2);
}

// max_cached_requests = 2: starting the third request evicts the oldest
// output (request 1), in StartRequest order, whether or not it is active.
TEST(SuffixDecodingCache, EvictsTheOldestOutputFirst) {
  SuffixDecodingCache cache(8, 2);
  cache.StartRequest(1, TokenVector{1});
  cache.AddActiveResponse(1, TokenVector{20, 21, 22});
  cache.StopRequest(1);
  cache.StartRequest(2, TokenVector{2});
  cache.AddActiveResponse(2, TokenVector{30, 31, 32});
  cache.StartRequest(3, TokenVector{3});  // request 2 still active
  EXPECT_FALSE(cache.IsCached(1));
  EXPECT_TRUE(cache.IsCached(2));
  EXPECT_TRUE(cache.IsCached(3));
  EXPECT_EQ(cache.global_tree().num_seqs(), 1);  // 3 has no output yet
  EXPECT_TRUE(cache.Speculate(3, TokenVector{9, 20}, 4).token_ids.empty());
  EXPECT_EQ(cache.Speculate(3, TokenVector{9, 30}, 4).token_ids, (TokenVector{31}));

  // A fourth start evicts request 2 although it is still active; its later
  // output then only goes to its own tree.
  cache.StartRequest(4, TokenVector{4});
  EXPECT_FALSE(cache.IsCached(2));
  cache.AddActiveResponse(2, TokenVector{33, 34});
  EXPECT_TRUE(cache.Speculate(4, TokenVector{9, 33}, 4).token_ids.empty());
  EXPECT_EQ(cache.Speculate(2, TokenVector{9, 33}, 4).token_ids, (TokenVector{34}));
  EXPECT_EQ(cache.global_tree().CheckIntegrity(), "");
}

// Restarting a cached id replaces its output; max_cached_requests = 0 keeps
// no global tree at all.
TEST(SuffixDecodingCache, RestartAndDisabledGlobalTree) {
  SuffixDecodingCache cache(8, 3);
  cache.StartRequest(1, TokenVector{1});
  cache.AddActiveResponse(1, TokenVector{40, 41});
  cache.StopRequest(1);
  cache.StartRequest(1, TokenVector{1});
  EXPECT_TRUE(cache.IsCached(1));
  EXPECT_EQ(cache.num_cached(), 1);
  cache.StartRequest(2, TokenVector{2});
  EXPECT_TRUE(cache.Speculate(2, TokenVector{9, 40}, 4).token_ids.empty());

  SuffixDecodingCache local_only(8, 0);
  local_only.StartRequest(1, TokenVector{1});
  local_only.AddActiveResponse(1, TokenVector{40, 41});
  EXPECT_FALSE(local_only.IsCached(1));
  EXPECT_EQ(local_only.global_tree().num_seqs(), 0);
  local_only.StopRequest(1);
  local_only.StartRequest(2, TokenVector{2});
  EXPECT_TRUE(local_only.Speculate(2, TokenVector{9, 40}, 4).token_ids.empty());
}

// Sibling order among equal counts (depth 2, a=1, b=2, c=3). In
// "a b a c a c a" the children of "a" are b (created first), then c; c
// reaches count 2 while b is still 1, so c goes first: head c, p = 2/4.
// Appending "b a": b goes from 1 to 2 while first among count 1, so it
// becomes FIRST among count 2, ahead of c: head b, p = 2/5. (A stable
// "first come first" order would still give c.)
TEST(SuffixTree, EqualCountTiesFollowUpstreamSiblingOrder) {
  SuffixTree tree(2);
  tree.Extend(0, TokenVector{1, 2, 1, 3, 1, 3, 1});
  SuffixDraft draft = SpeculateTree(tree, {3, 1}, 1);
  EXPECT_EQ(draft.token_ids, (TokenVector{3}));
  EXPECT_EQ(draft.probs, (std::vector<float>{0.5f}));
  tree.Extend(0, TokenVector{2, 1});
  draft = SpeculateTree(tree, {2, 1}, 1);
  EXPECT_EQ(draft.token_ids, (TokenVector{2}));
  EXPECT_EQ(draft.probs, (std::vector<float>{2.0f / 5.0f}));
  EXPECT_EQ(tree.CheckIntegrity(), "");
}

// Contexts of 0 or 1 tokens try no match at all; a context whose last token
// is unknown stops at match 1.
TEST(SuffixTree, ShortOrUnknownContextGivesNothing) {
  SuffixTree tree(4);
  tree.Extend(0, TokenVector{1, 2, 3});
  EXPECT_TRUE(SpeculateTree(tree, {}, 4).token_ids.empty());
  EXPECT_TRUE(SpeculateTree(tree, {1}, 4).token_ids.empty());
  EXPECT_TRUE(SpeculateTree(tree, {1, 9}, 4).token_ids.empty());
  EXPECT_EQ(SpeculateTree(tree, {9, 1}, 4).token_ids, (TokenVector{2}));
  EXPECT_EQ(SpeculateTree(tree, {9, 1}, 0).token_ids, TokenVector{});
}

// ---- The vLLM proposer flow ----

SuffixDecodingConfig ProposerConfig() {
  SuffixDecodingConfig config;
  config.num_speculative_tokens = 3;
  config.max_tree_depth = 8;
  config.max_cached_requests = 4;
  config.max_model_len = 100;
  return config;
}

// First decode step of a request with prompt [1,2,3,1,2] that sampled 3:
// its tree holds [1,2,3,1,2,3]. Match 3 ([1,2,3], count 2, child count 1):
// p = 0.5 and 3 tokens [1,2,3] (score 1.5) beat matches 1, 2 (0.5, 1.0) and
// matches 4, 5 (which end at the sequence's end: score 0).
TEST(SuffixDecodingProposer, FirstStepStartsTheRequestAndDrafts) {
  SuffixDecodingProposer proposer(ProposerConfig());
  const TokenVector history = {1, 2, 3, 1, 2, 3};
  EXPECT_EQ(proposer.Propose(7, history, 5, TokenVector{3}), (TokenVector{1, 2, 3}));
  EXPECT_TRUE(proposer.cache().IsActive(7));
  EXPECT_TRUE(proposer.cache().IsCached(7));
}

// Budget = min(k, max_model_len - n - 1) with n = 6: a limit of 8 leaves 1
// token (every match then scores 0.5; the longest is kept), 7 leaves none,
// and at n >= max_model_len the request is not even started.
TEST(SuffixDecodingProposer, MaxModelLenLimitsTheBudget) {
  const TokenVector history = {1, 2, 3, 1, 2, 3};
  SuffixDecodingConfig config = ProposerConfig();
  config.max_model_len = 8;
  SuffixDecodingProposer one(config);
  EXPECT_EQ(one.Propose(7, history, 5, TokenVector{3}), (TokenVector{1}));
  config.max_model_len = 7;
  SuffixDecodingProposer none(config);
  EXPECT_TRUE(none.Propose(7, history, 5, TokenVector{3}).empty());
  EXPECT_TRUE(none.cache().IsActive(7));
  config.max_model_len = 6;
  SuffixDecodingProposer full(config);
  EXPECT_TRUE(full.Propose(7, history, 5, TokenVector{3}).empty());
  EXPECT_FALSE(full.cache().IsActive(7));
}

// A partial prefill (nothing sampled) neither drafts nor starts the request.
TEST(SuffixDecodingProposer, PartialPrefillIsSkipped) {
  SuffixDecodingProposer proposer(ProposerConfig());
  EXPECT_TRUE(proposer.Propose(7, TokenVector{1, 2, 3}, 3, TokenVector{}).empty());
  EXPECT_FALSE(proposer.cache().IsActive(7));
}

// A request that leaves the batch is stopped; when it comes back vLLM
// evicts its cached output and restarts it from the prompt alone, so the
// token 3 generated before is lost: its tree is [1,2,3,1,2] + [1]. Context
// [1,2,3,1,2,3,1]: match 1 ([1], count 3, child "2" count 2): [2] p = 2/3;
// match 2 ([3,1], count 1): [2,1] score 2; matches 3 and 4 also give [2,1]
// (score 2, longer wins); match 5 ([3,1,2,3,1]) is not in the tree. The
// global tree only has the new output [1]: nothing. (Had the lost 3 been
// kept, match 4 = [1,2,3,1] would have count 2 and a different draft.)
TEST(SuffixDecodingProposer, ResumedRequestRestartsFromItsPrompt) {
  SuffixDecodingProposer proposer(ProposerConfig());
  proposer.Propose(7, TokenVector{1, 2, 3, 1, 2, 3}, 5, TokenVector{3});
  const std::vector<uint64_t> batch_without_7 = {8};
  proposer.StopRequestsNotIn(batch_without_7);
  EXPECT_FALSE(proposer.cache().IsActive(7));
  EXPECT_TRUE(proposer.cache().IsCached(7));
  const TokenVector history = {1, 2, 3, 1, 2, 3, 1};
  EXPECT_EQ(proposer.Propose(7, history, 5, TokenVector{1}), (TokenVector{2, 1}));
  EXPECT_EQ(proposer.cache().global_tree().num_seqs(), 1);
}

TEST(SuffixDecodingProposer, StopRequestsNotInKeepsTheBatch) {
  SuffixDecodingProposer proposer(ProposerConfig());
  proposer.Propose(1, TokenVector{1, 2}, 1, TokenVector{2});
  proposer.Propose(2, TokenVector{3, 4}, 1, TokenVector{4});
  proposer.Propose(3, TokenVector{5, 6}, 1, TokenVector{6});
  const std::vector<uint64_t> batch = {3, 1};
  proposer.StopRequestsNotIn(batch);
  EXPECT_EQ(proposer.cache().ActiveRequests(), (std::vector<uint64_t>{1, 3}));
}

TEST(SuffixDecodingConfig, DefaultsAndChecksAreVllms) {
  SuffixDecodingConfig config;
  EXPECT_EQ(ValidateSuffixDecodingConfig(config), "");
  EXPECT_EQ(config.max_tree_depth, 24);
  EXPECT_EQ(config.max_cached_requests, 10000);
  EXPECT_EQ(config.max_spec_factor, 1.0f);
  EXPECT_EQ(config.min_token_prob, 0.1f);
  EXPECT_EQ(config.EffectiveNumSpeculativeTokens(), 24);  // defaults to the depth
  config.num_speculative_tokens = 0;
  EXPECT_EQ(ValidateSuffixDecodingConfig(config),
            "Expected num_speculative_tokens to be greater than zero (0).");
  config = SuffixDecodingConfig();
  config.max_tree_depth = 0;
  EXPECT_EQ(ValidateSuffixDecodingConfig(config), "suffix_decoding_max_tree_depth=0 must be >= 1");
  config = SuffixDecodingConfig();
  config.max_cached_requests = -1;
  EXPECT_EQ(ValidateSuffixDecodingConfig(config),
            "suffix_decoding_max_cached_requests=-1 must be >= 0");
  config = SuffixDecodingConfig();
  config.max_spec_factor = -0.5f;
  EXPECT_EQ(ValidateSuffixDecodingConfig(config),
            "suffix_decoding_max_spec_factor=-0.5 must be >= 0");
  config = SuffixDecodingConfig();
  config.min_token_prob = 1.5f;
  EXPECT_EQ(ValidateSuffixDecodingConfig(config),
            "suffix_decoding_min_token_prob=1.5 must be in [0, 1]");
}

// ---- Compressed trie vs. an uncompressed reference ----

// One node per token string, children in sibling order by the rules of the
// header, written as plainly as possible. O(depth) nodes per suffix.
class ReferenceTrie {
 public:
  explicit ReferenceTrie(int32_t depth) : depth_(depth) {}

  void Append(int32_t seq_id, TokenId token) {
    TokenVector& seq = seqs_[seq_id];
    seq.push_back(token);
    ++root_.count;
    const size_t size = seq.size();
    const size_t first = size > static_cast<size_t>(depth_) ? size - depth_ : 0;
    for (size_t start = first; start < size; ++start) {
      Node* node = &root_;
      for (size_t i = start; i + 1 < size; ++i) node = node->by_token.at(seq[i]).get();
      auto it = node->by_token.find(token);
      if (it == node->by_token.end()) {
        auto child = std::make_unique<Node>();
        child->token = token;
        child->count = 1;
        child->parent = node;
        node->order.push_back(child.get());
        node->by_token.emplace(token, std::move(child));
      } else {
        Increment(it->second.get());
      }
    }
  }

  void Remove(int32_t seq_id) {
    const TokenVector seq = seqs_.at(seq_id);
    seqs_.erase(seq_id);
    for (size_t start = 0; start < seq.size(); ++start) {
      --root_.count;
      Node* node = &root_;
      const size_t stop = std::min(seq.size(), start + static_cast<size_t>(depth_));
      for (size_t i = start; i < stop; ++i) {
        Node* child = node->by_token.at(seq[i]).get();
        Decrement(child);
        if (child->count == 0) {
          node->order.erase(std::find(node->order.begin(), node->order.end(), child));
          node->by_token.erase(seq[i]);
          break;
        }
        node = child;
      }
    }
  }

  SuffixDraft Speculate(const TokenVector& context, int32_t max_spec_tokens, float factor,
                        float offset, float min_prob) const {
    SuffixDraft best;
    for (size_t match_len = 1; match_len < context.size(); ++match_len) {
      const Node* node = &root_;
      for (size_t i = context.size() - match_len; i < context.size() && node; ++i) {
        auto it = node->by_token.find(context[i]);
        node = it == node->by_token.end() ? nullptr : it->second.get();
      }
      if (node == nullptr) break;
      const double limit =
          static_cast<double>(static_cast<float>(match_len) * factor + offset) + 1e-6;
      const int32_t max_tokens =
          std::max(0, limit < max_spec_tokens ? static_cast<int32_t>(limit) : max_spec_tokens);
      SuffixDraft draft;
      float prob = 1.0f;
      while (static_cast<int32_t>(draft.token_ids.size()) < max_tokens && prob >= min_prob &&
             !node->order.empty()) {
        const Node* child = node->order.front();
        prob *= static_cast<float>(child->count) / static_cast<float>(node->count);
        node = child;
        if (prob < min_prob) break;
        draft.token_ids.push_back(node->token);
        draft.probs.push_back(prob);
        draft.score += prob;
      }
      if (draft.score >= best.score) {
        best = draft;
        best.match_len = static_cast<int32_t>(match_len);
      }
    }
    return best;
  }

 private:
  struct Node {
    TokenId token = 0;
    int64_t count = 0;
    Node* parent = nullptr;
    std::map<TokenId, std::unique_ptr<Node>> by_token;
    std::vector<Node*> order;
  };

  static void Increment(Node* node) {
    std::vector<Node*>& order = node->parent->order;
    const auto pos = std::find(order.begin(), order.end(), node) - order.begin();
    const int64_t c = node->count;
    ++node->count;
    if (pos == 0 || order[pos - 1]->count > c + 1) return;
    // First of c+1 if it was first of c, else last of c+1.
    const int64_t group = order[pos - 1]->count == c + 1 ? c + 1 : c;
    auto target = order.begin();
    while ((*target)->count > group && *target != node) ++target;
    order.erase(order.begin() + pos);
    order.insert(target, node);
  }

  static void Decrement(Node* node) {
    std::vector<Node*>& order = node->parent->order;
    const int64_t c = node->count;
    order.erase(std::find(order.begin(), order.end(), node));
    --node->count;
    // First of c-1: right after the last sibling still at c or more.
    auto target = order.begin();
    while (target != order.end() && (*target)->count >= c) ++target;
    order.insert(target, node);
  }

  int32_t depth_;
  Node root_;
  std::map<int32_t, TokenVector> seqs_;
};

// Random appends, removals and speculations on several sequences: the
// compressed trie must keep its invariants and speculate exactly like the
// uncompressed reference (tokens, per-token probabilities, score, match).
TEST(SuffixTree, MatchesUncompressedReference) {
  uint64_t state = 99;
  const auto next = [&state](uint64_t bound) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (state >> 33) % bound;
  };
  for (int trial = 0; trial < 150; ++trial) {
    const int32_t depth = 1 + static_cast<int32_t>(next(10));
    const uint64_t alphabet = 1 + next(5);
    SuffixTree tree(depth);
    ReferenceTrie reference(depth);
    std::map<int32_t, TokenVector> live;
    for (int op = 0; op < 150; ++op) {
      const uint64_t kind = next(10);
      if (kind < 6) {
        const int32_t seq_id = static_cast<int32_t>(next(6));
        const uint64_t n = 1 + next(8);
        for (uint64_t i = 0; i < n; ++i) {
          const TokenId token = static_cast<TokenId>(next(alphabet));
          tree.Append(seq_id, token);
          reference.Append(seq_id, token);
          live[seq_id].push_back(token);
        }
      } else if (kind < 7) {
        const int32_t seq_id = static_cast<int32_t>(next(6));
        if (live.count(seq_id) == 0) continue;
        tree.Remove(seq_id);
        reference.Remove(seq_id);
        live.erase(seq_id);
      } else {
        TokenVector context;
        const uint64_t n = next(static_cast<uint64_t>(depth) + 3);
        for (uint64_t i = 0; i < n; ++i) context.push_back(static_cast<TokenId>(next(alphabet)));
        const int32_t k = static_cast<int32_t>(next(10));
        const float factor = next(3) == 0 ? 0.5f * static_cast<float>(next(5)) : 1.0f;
        const float offset = next(3) == 0 ? 0.5f * static_cast<float>(next(4)) : 0.0f;
        const float min_prob = 0.05f * static_cast<float>(next(8));
        const SuffixDraft got = SpeculateTree(tree, context, k, factor, offset, min_prob);
        const SuffixDraft want = reference.Speculate(context, k, factor, offset, min_prob);
        ASSERT_EQ(got.token_ids, want.token_ids) << "trial " << trial << " op " << op;
        ASSERT_EQ(got.probs, want.probs) << "trial " << trial << " op " << op;
        ASSERT_EQ(got.score, want.score) << "trial " << trial << " op " << op;
        ASSERT_EQ(got.match_len, want.match_len) << "trial " << trial << " op " << op;
      }
      ASSERT_EQ(tree.CheckIntegrity(), "") << "trial " << trial << " op " << op;
    }
  }
}

// Removing every sequence leaves only the root (no leaked nodes or index
// entries).
TEST(SuffixTree, RemovingEverythingLeavesTheRoot) {
  SuffixTree tree(5);
  tree.Extend(0, TokenVector{1, 2, 1, 2, 3, 1, 2});
  tree.Extend(1, TokenVector{2, 1, 2, 4});
  tree.Extend(0, TokenVector{1, 2, 4});
  EXPECT_GT(tree.num_nodes(), 1);
  tree.Remove(0);
  EXPECT_EQ(tree.CheckIntegrity(), "");
  tree.Remove(1);
  EXPECT_EQ(tree.CheckIntegrity(), "");
  EXPECT_EQ(tree.num_nodes(), 1);
  EXPECT_EQ(tree.num_seqs(), 0);
}

}  // namespace
}  // namespace efimsim
