#include "sim/client/prompt_format.h"

#include <algorithm>

#include "sim/base/check.h"
#include "sim/base/registry.h"

namespace efimsim {
namespace {

void PushIfPresent(TokenVector& prompt, TokenId token) {
  if (token >= 0) prompt.push_back(token);
}

// What Build leaves for the next round: `shared` (this prompt's leading
// tokens equal to the previous prompt's if the context extends the
// previous one; 0 for the first prompt) and this prompt's lengths.
void Remember(const InfillContext& context, const TokenVector& prompt, int64_t shared,
              FormatSessionState& state) {
  state.shared_if_extended = state.previous_prompt_tokens > 0 ? shared : 0;
  state.previous_prompt_tokens = static_cast<int64_t>(prompt.size());
  state.previous_prefix_tokens = static_cast<int64_t>(context.prefix.size());
}
int64_t IfPresent(TokenId token) { return token >= 0 ? 1 : 0; }

class PsmFormat : public PromptFormat {
 public:
  explicit PsmFormat(SpecialTokens tokens) : tokens_(tokens) {}
  std::string name() const override { return "psm"; }
  void Build(const InfillContext& context, FormatSessionState& state,
             TokenVector& prompt) const override {
    prompt.clear();
    prompt.reserve(context.prefix.size() + context.suffix.size() + 4);
    PushIfPresent(prompt, tokens_.bos);
    prompt.push_back(tokens_.fim_prefix);
    prompt.insert(prompt.end(), context.prefix.begin(), context.prefix.end());
    prompt.push_back(tokens_.fim_suffix);
    prompt.insert(prompt.end(), context.suffix.begin(), context.suffix.end());
    prompt.push_back(tokens_.fim_middle);
    // BOS <PRE> and the previous prefix, which starts this one.
    Remember(context, prompt, IfPresent(tokens_.bos) + 1 + state.previous_prefix_tokens, state);
  }

 private:
  SpecialTokens tokens_;
};

class SpmFormat : public PromptFormat {
 public:
  explicit SpmFormat(SpecialTokens tokens) : tokens_(tokens) {}
  std::string name() const override { return "spm"; }
  void Build(const InfillContext& context, FormatSessionState& state,
             TokenVector& prompt) const override {
    prompt.clear();
    prompt.reserve(context.prefix.size() + context.suffix.size() + 4);
    PushIfPresent(prompt, tokens_.bos);
    prompt.push_back(tokens_.fim_suffix);
    prompt.insert(prompt.end(), context.suffix.begin(), context.suffix.end());
    prompt.push_back(tokens_.fim_prefix);
    prompt.insert(prompt.end(), context.prefix.begin(), context.prefix.end());
    prompt.push_back(tokens_.fim_middle);
    // Everything before <MID>: the suffix is the same, the previous prefix
    // starts this one.
    Remember(context, prompt,
             IfPresent(tokens_.bos) + 2 + static_cast<int64_t>(context.suffix.size()) +
                 state.previous_prefix_tokens,
             state);
  }

 private:
  SpecialTokens tokens_;
};

class EfimFormat : public PromptFormat {
 public:
  explicit EfimFormat(SpecialTokens tokens) : tokens_(tokens) {}
  std::string name() const override { return "efim"; }
  void Build(const InfillContext& context, FormatSessionState& state,
             TokenVector& prompt) const override {
    const auto prefix_tokens = static_cast<int64_t>(context.prefix.size());
    bool appends = false;
    if (state.extends_previous) {
      // prefix0 starts the previous prefix, which starts this one.
      EFIMSIM_CHECK(prefix_tokens >= state.prefix0_tokens, "an extending round's prefix is shorter");
      appends = true;
    } else {
      EFIMSIM_CHECK(static_cast<int64_t>(state.prefix0.size()) == state.prefix0_tokens,
                    "prefix0 not kept: the previous Build was told this round extends it");
      appends = prefix_tokens >= state.prefix0_tokens &&
                std::equal(state.prefix0.begin(), state.prefix0.end(), context.prefix.begin());
    }
    const bool kept = appends && !state.extends_previous;  // prefix0 holds the tokens now
    if (!appends) {
      state.prefix0_tokens = prefix_tokens;
      ++state.rebases;
    }
    const TokenSpan prefix0 = context.prefix.first(static_cast<size_t>(state.prefix0_tokens));
    if (state.next_extends) {
      TokenVector().swap(state.prefix0);
    } else if (!kept) {
      state.prefix0.assign(prefix0.begin(), prefix0.end());
    }
    const auto increment_begin = context.prefix.begin() + state.prefix0_tokens;
    prompt.clear();
    prompt.reserve(context.prefix.size() + context.suffix.size() + 4);
    PushIfPresent(prompt, tokens_.bos);
    prompt.push_back(tokens_.fim_prefix);
    prompt.insert(prompt.end(), prefix0.begin(), prefix0.end());
    prompt.push_back(tokens_.fim_suffix);
    if (context.suffix_ids_unspecified) {
      // Nobody reads these ids (the prompter says where they go): not
      // copying them spares reading a suffix that was never made.
      prompt.resize(prompt.size() + context.suffix.size());
    } else {
      prompt.insert(prompt.end(), context.suffix.begin(), context.suffix.end());
    }
    prompt.push_back(tokens_.fim_middle);
    prompt.insert(prompt.end(), increment_begin, context.prefix.end());
    // Without a re-base the previous prompt is this one's start: the same
    // prefix0 and suffix, and its increment starts this increment.
    Remember(context, prompt, appends ? state.previous_prompt_tokens : 0, state);
  }
  // An extending round appends (no re-base): BOS <PRE> prefix0 <SUF>, then
  // the suffix, and the whole previous prompt is shared (as Build counts).
  std::optional<SuffixPlace> SuffixPlaceWhenExtending(const FormatSessionState& state,
                                                      int64_t suffix_tokens) const override {
    if (!state.extends_previous) return std::nullopt;
    const int64_t begin = IfPresent(tokens_.bos) + 1 + state.prefix0_tokens + 1;
    return SuffixPlace{begin, begin + suffix_tokens, state.previous_prompt_tokens};
  }

 private:
  SpecialTokens tokens_;
};

using Factory = std::unique_ptr<PromptFormat> (*)(const SpecialTokens&);
struct Entry {
  std::string help;
  Factory make;
};

const Registry<Entry>& Formats() {
  static const Registry<Entry> registry = [] {
    Registry<Entry> r("prompt format");
    r.Add("psm", {"BOS <PRE> prefix <SUF> suffix <MID> (FIM, the common default)",
                  [](const SpecialTokens& t) -> std::unique_ptr<PromptFormat> {
                    return std::make_unique<PsmFormat>(t);
                  }});
    r.Add("spm", {"BOS <SUF> suffix <PRE> prefix <MID>",
                  [](const SpecialTokens& t) -> std::unique_ptr<PromptFormat> {
                    return std::make_unique<SpmFormat>(t);
                  }});
    r.Add("efim", {"BOS <PRE> prefix0 <SUF> suffix <MID> increment (Guo et al., Euro-Par 2025)",
                   [](const SpecialTokens& t) -> std::unique_ptr<PromptFormat> {
                     return std::make_unique<EfimFormat>(t);
                   }});
    return r;
  }();
  return registry;
}

}  // namespace

void PromptFormat::BeginSession(TokenSpan initial_prefix, FormatSessionState& state) const {
  state.prefix0.assign(initial_prefix.begin(), initial_prefix.end());
  state.prefix0_tokens = static_cast<int64_t>(initial_prefix.size());
  state.extends_previous = false;
  state.next_extends = false;
  state.rebases = 0;
  state.shared_if_extended = 0;
  state.previous_prompt_tokens = 0;
  state.previous_prefix_tokens = 0;
}

std::unique_ptr<PromptFormat> MakePromptFormat(const std::string& name,
                                               const SpecialTokens& tokens) {
  return Formats().Get(name).make(tokens);
}

}  // namespace efimsim
