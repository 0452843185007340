#include "traces/shared_prefix_token_ids.h"

#include <algorithm>
#include <limits>
#include <set>
#include <string_view>
#include <utility>

namespace efimsim {
namespace {

size_t CommonPrefixChars(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  return static_cast<size_t>(std::mismatch(a.begin(), a.begin() + static_cast<ptrdiff_t>(n), b.begin()).first -
                             a.begin());
}

constexpr int64_t kMaxTokenId = std::numeric_limits<TokenId>::max();

}  // namespace

SharedPrefixTokenIds RebuildSharedPrefixTokenIds(const std::vector<PromptText>& prompts,
                                                 int64_t max_held_tokens) {
  SharedPrefixTokenIds out;
  out.token_ids.resize(prompts.size());
  // Earlier prompts' text in sorted order: the earlier prompt sharing the
  // longest leading run with a new one is its neighbour in that order.
  std::set<std::pair<std::string_view, size_t>> earlier;
  TokenId next_id = 1;  // fresh ids: never reused, so never falsely shared
  int64_t held = 0;     // ids allocated over all prompts
  for (size_t i = 0; i < prompts.size(); ++i) {
    const int64_t tokens = prompts[i].tokens;
    // Fresh ids are int32, and the ids held are bounded: a run too
    // long for either keeps its later prompts without ids (counted as
    // without text) rather than reusing an id or exhausting memory.
    if (!prompts[i].text || tokens < 1 || tokens > kMaxTokenId - next_id ||
        tokens > max_held_tokens - held) {
      continue;
    }
    held += tokens;
    ++out.with_text;
    const std::string_view text = *prompts[i].text;
    size_t best_chars = 0, best = 0;
    const auto next = earlier.lower_bound({text, 0});
    if (next != earlier.end()) {
      best_chars = CommonPrefixChars(text, next->first);
      best = next->second;
    }
    if (next != earlier.begin()) {
      const auto previous = std::prev(next);
      const size_t chars = CommonPrefixChars(text, previous->first);
      if (chars > best_chars || (chars == best_chars && previous->second < best)) {
        best_chars = chars;
        best = previous->second;
      }
    }
    int64_t shared = 0;
    if (best_chars > 0 && !text.empty()) {
      shared = static_cast<int64_t>(static_cast<double>(best_chars) * static_cast<double>(tokens) /
                                    static_cast<double>(text.size()));
      shared = std::min({shared, tokens, static_cast<int64_t>(out.token_ids[best].size())});
    }
    TokenVector& ids = out.token_ids[i];
    ids.reserve(static_cast<size_t>(tokens));
    ids.assign(out.token_ids[best].begin(), out.token_ids[best].begin() + shared);
    while (static_cast<int64_t>(ids.size()) < tokens) ids.push_back(next_id++);
    if (shared > 0) {
      ++out.sharing;
      out.shared_tokens += shared;
    }
    earlier.emplace(text, i);
  }
  return out;
}

}  // namespace efimsim
