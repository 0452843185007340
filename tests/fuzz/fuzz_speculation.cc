// Fuzz target: speculative decoding's --speculative-config reader and the
// draft proposers it configures (sim/engine/vllm/speculative_config.h,
// sim/engine/spec_decode/).
//
// Input: the config JSON up to the first newline, then token ids, one per
// byte (mod 16, so the history repeats and lookups find matches). A config
// that reads is used to draft over every prefix of the history, as a
// request decoding token by token would: ngram drafts must be a run of the
// history of at most k tokens; suffix drafts at most k tokens, with the
// cache's trees consistent at the end (SuffixTree::CheckIntegrity).
// UsageError is the documented outcome for a bad config.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/base/errors.h"
#include "sim/engine/spec_decode/ngram_proposer.h"
#include "sim/engine/spec_decode/suffix_proposer.h"
#include "sim/engine/vllm/speculative_config.h"
#include "tests/fuzz/fuzz_common.h"

namespace {

using efimsim::TokenId;
using efimsim::TokenVector;

// Whether `draft` occurs in `history` (an ngram draft is copied from it).
bool OccursIn(const TokenVector& draft, const TokenVector& history) {
  if (draft.empty()) return true;
  for (size_t i = 0; i + draft.size() <= history.size(); ++i) {
    if (std::equal(draft.begin(), draft.end(), history.begin() + static_cast<std::ptrdiff_t>(i))) {
      return true;
    }
  }
  return false;
}

void DraftNgram(const efimsim::SpeculativeConfig& config, const TokenVector& tokens) {
  TokenVector history;
  for (const TokenId token : tokens) {
    history.push_back(token);
    const TokenVector draft = efimsim::ProposeNgramDraft(history, config.ngram);
    FUZZ_CHECK(static_cast<int64_t>(draft.size()) <= config.num_speculative_tokens,
               "an ngram draft longer than k");
    FUZZ_CHECK(OccursIn(draft, history), "an ngram draft that is not a run of the history");
  }
}

void DraftSuffix(const efimsim::SpeculativeConfig& config, const TokenVector& tokens) {
  efimsim::SuffixDecodingProposer proposer(config.suffix);
  // Two requests: the first's output reaches the global tree, the second
  // drafts from it.
  for (uint64_t request = 0; request < 2; ++request) {
    const size_t prompt = tokens.size() / 2;
    TokenVector history(tokens.begin(), tokens.begin() + static_cast<std::ptrdiff_t>(prompt));
    for (size_t i = prompt; i < tokens.size(); ++i) {
      history.push_back(tokens[i]);
      const TokenVector draft = proposer.Propose(request, history, static_cast<int64_t>(prompt),
                                                 TokenVector{tokens[i]});
      FUZZ_CHECK(static_cast<int64_t>(draft.size()) <= config.num_speculative_tokens,
                 "a suffix draft longer than k");
    }
    const std::vector<uint64_t> none;
    proposer.StopRequestsNotIn(none);
  }
  const std::string problem = proposer.cache().global_tree().CheckIntegrity();
  FUZZ_CHECK(problem.empty(), problem);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const size_t newline = input.find('\n');
  const std::string json = input.substr(0, newline);
  TokenVector tokens;
  if (newline != std::string::npos) {
    for (size_t i = newline + 1; i < input.size() && tokens.size() < 512; ++i) {
      tokens.push_back(static_cast<TokenId>(static_cast<uint8_t>(input[i]) % 16));
    }
  }
  efimsim::SpeculativeConfig config;
  try {
    config = efimsim::ParseSpeculativeConfig(json, 4096);
  } catch (const efimsim::UsageError&) {
    return 0;
  } catch (const efimsim::InputError&) {
    return 0;  // acceptance_counters naming a file that is no vLLM /metrics dump
  }
  if (config.method == efimsim::SpecMethod::kNgram) DraftNgram(config, tokens);
  if (config.method == efimsim::SpecMethod::kSuffix) DraftSuffix(config, tokens);
  return 0;
}
