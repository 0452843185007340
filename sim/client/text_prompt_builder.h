#pragma once
// Prompts from text, as a completion client sends them and a server
// tokenizes them: the sentinels split the prompt into segments and each
// segment is BPE-encoded on its own (added tokens are never merged with
// text). So a prefix that grows at its tail may re-tokenize its last token,
// and EFIM's increment is encoded apart from prefix0.
//
//   psm:   BOS <PRE> tok(prefix) <SUF> tok(suffix) <MID>
//   spm:   BOS <SUF> tok(suffix) <PRE> tok(prefix) <MID>
//   efim:  BOS <PRE> tok(prefix0) <SUF> tok(suffix) <MID> tok(prefix - prefix0)
//
// EFIM keeps prefix0 (text) while the prefix starts with it and re-bases
// (prefix0 = prefix, one cold prefill) when an edit breaks that.

#include <cstdint>
#include <string>
#include <string_view>

#include "models/formats/model_spec.h"
#include "traces/tokenizer/bpe_tokenizer.h"

namespace efimsim {

// Per-session state of a text prompt builder; caches encodings that did
// not change since the last prompt.
struct TextPromptState {
  bool started = false;
  std::string prefix0;          // EFIM
  TokenVector prefix0_tokens;   // EFIM: tok(prefix0)
  int64_t rebases = 0;          // EFIM: fresh prompts forced by a non-append edit
  std::string last_suffix;      // cache of the last suffix's encoding
  TokenVector last_suffix_tokens;
  bool has_suffix_cache = false;
};

class TextPromptBuilder {
 public:
  // `format`: psm, spm or efim (UsageError otherwise). The tokenizer must
  // outlive the builder.
  TextPromptBuilder(std::string format, const tokenizer::BpeTokenizer& tokenizer,
                    SpecialTokens tokens);

  // Starts a session whose EFIM prefix0 is `initial_prefix` (the text before
  // the user started typing). Without it, the first Build's prefix is used.
  void BeginSession(std::string_view initial_prefix, TextPromptState& state) const;

  // The prompt for the text around the cursor, written to `prompt`.
  void Build(std::string_view prefix, std::string_view suffix, TextPromptState& state,
             TokenVector& prompt) const;

  // A completion's reference output (ClientRequest::reference_output):
  // the first max_tokens tokens of `continuation`, the text a perfect
  // completion produces next, into `reference` (cleared first; empty for
  // max_tokens < 1 or empty text). Tokenized as a segment of its own, as
  // plain text, like a prompt's segments (the model's output starts a new
  // segment after <MID>); only the pre-tokens those tokens need are
  // encoded (BpeTokenizer::EncodeLeading), so the work is about
  // max_tokens tokens' worth of BPE whatever the text's length.
  void EncodeReference(std::string_view continuation, int64_t max_tokens,
                       TokenVector& reference) const;

  const std::string& format() const { return format_; }
  const tokenizer::BpeTokenizer& tokenizer() const { return tokenizer_; }

 private:
  void AppendEncoded(std::string_view text, TokenVector& prompt) const;
  void AppendSuffix(std::string_view suffix, TextPromptState& state, TokenVector& prompt) const;

  std::string format_;
  const tokenizer::BpeTokenizer& tokenizer_;
  SpecialTokens tokens_;
};

// Context windows as completion clients cut them (docs/semantics.md §6): the
// cursor's line plus `lines` whole lines before it (prefix) or after it
// (suffix). lines < 0 keeps everything.
std::string_view WindowPrefix(std::string_view prefix, int64_t lines);
std::string_view WindowSuffix(std::string_view suffix, int64_t lines);

}  // namespace efimsim
