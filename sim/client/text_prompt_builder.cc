#include "sim/client/text_prompt_builder.h"

#include "sim/base/errors.h"

namespace efimsim {

TextPromptBuilder::TextPromptBuilder(std::string format, const tokenizer::BpeTokenizer& tokenizer,
                                     SpecialTokens tokens)
    : format_(std::move(format)), tokenizer_(tokenizer), tokens_(tokens) {
  if (format_ != "psm" && format_ != "spm" && format_ != "efim") {
    throw UsageError("unknown prompt format '" + format_ + "' (choose one of: psm, spm, efim)");
  }
}

void TextPromptBuilder::AppendEncoded(std::string_view text, TokenVector& prompt) const {
  if (text.empty()) return;
  // Sentinel-like text typed by a user is plain text to a FIM server.
  const std::vector<int32_t> ids = tokenizer_.Encode(text, tokenizer::AddedTokenText::kAsPlainText);
  prompt.insert(prompt.end(), ids.begin(), ids.end());
}

void TextPromptBuilder::AppendSuffix(std::string_view suffix, TextPromptState& state,
                                     TokenVector& prompt) const {
  if (!state.has_suffix_cache || state.last_suffix != suffix) {
    state.last_suffix.assign(suffix);
    state.last_suffix_tokens.clear();
    AppendEncoded(suffix, state.last_suffix_tokens);
    state.has_suffix_cache = true;
  }
  prompt.insert(prompt.end(), state.last_suffix_tokens.begin(), state.last_suffix_tokens.end());
}

void TextPromptBuilder::BeginSession(std::string_view initial_prefix,
                                     TextPromptState& state) const {
  state = TextPromptState{};
  state.started = true;
  state.prefix0.assign(initial_prefix);
  AppendEncoded(initial_prefix, state.prefix0_tokens);
}

void TextPromptBuilder::Build(std::string_view prefix, std::string_view suffix,
                              TextPromptState& state, TokenVector& prompt) const {
  prompt.clear();
  if (tokens_.bos >= 0) prompt.push_back(tokens_.bos);
  if (format_ == "psm") {
    prompt.push_back(tokens_.fim_prefix);
    AppendEncoded(prefix, prompt);
    prompt.push_back(tokens_.fim_suffix);
    AppendSuffix(suffix, state, prompt);
    prompt.push_back(tokens_.fim_middle);
  } else if (format_ == "spm") {
    prompt.push_back(tokens_.fim_suffix);
    AppendSuffix(suffix, state, prompt);
    prompt.push_back(tokens_.fim_prefix);
    AppendEncoded(prefix, prompt);
    prompt.push_back(tokens_.fim_middle);
  } else {
    if (!state.started || !prefix.starts_with(state.prefix0)) {
      if (state.started) ++state.rebases;
      state.prefix0.assign(prefix);
      state.prefix0_tokens.clear();
      AppendEncoded(prefix, state.prefix0_tokens);
    }
    prompt.push_back(tokens_.fim_prefix);
    prompt.insert(prompt.end(), state.prefix0_tokens.begin(), state.prefix0_tokens.end());
    prompt.push_back(tokens_.fim_suffix);
    AppendSuffix(suffix, state, prompt);
    prompt.push_back(tokens_.fim_middle);
    AppendEncoded(prefix.substr(state.prefix0.size()), prompt);
  }
  state.started = true;
}

void TextPromptBuilder::EncodeReference(std::string_view continuation, int64_t max_tokens,
                                        TokenVector& reference) const {
  reference.clear();
  if (max_tokens < 1 || continuation.empty()) return;
  reference = tokenizer_.EncodeLeading(continuation, static_cast<size_t>(max_tokens),
                                       tokenizer::AddedTokenText::kAsPlainText);
}

std::string_view WindowPrefix(std::string_view prefix, int64_t lines) {
  if (lines < 0) return prefix;
  // Keep the cursor's (partial) line and `lines` newlines' worth above it.
  size_t start = prefix.size();
  for (int64_t seen = 0; seen <= lines; ++seen) {
    const size_t newline = start == 0 ? std::string_view::npos : prefix.rfind('\n', start - 1);
    if (newline == std::string_view::npos) return prefix;
    start = newline;
  }
  return prefix.substr(start + 1);
}

std::string_view WindowSuffix(std::string_view suffix, int64_t lines) {
  if (lines < 0) return suffix;
  size_t end = 0;
  for (int64_t seen = 0; seen <= lines; ++seen) {
    const size_t newline = suffix.find('\n', end);
    if (newline == std::string_view::npos) return suffix;
    end = newline + 1;
  }
  return suffix.substr(0, end);
}

}  // namespace efimsim
