#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "traces/tokenizer/stop_poll.h"
#include "traces/tokenizer/tokenizer_error.h"

namespace efimsim::tokenizer {

// What Encode does with added-token text (e.g. "<|begin_of_text|>",
// "<|fim_prefix|>") that appears in its input.
enum class AddedTokenText {
  // Emit the added token's id, as the JS reference (@lenml/tokenizers,
  // encode(text, {add_special_tokens: false})) and HF tokenizers' default
  // do: add_special_tokens only controls the BOS the post-processor adds.
  kRecognize,
  // Tokenize it as ordinary text ("<|", "begin", "_of", ...), like HF's
  // split_special_tokens=True. Use for untrusted text.
  kAsPlainText,
};

// Byte-level BPE tokenizer loaded from a Hugging Face tokenizer.json
// (the Llama-3 family: Llama-3 split regex + ByteLevel + BPE with
// ignore_merges + added tokens). Token ids are identical to the JS reference
// tokenizer's for the supported files (see traces/tokenizer/README.md).
//
// Immutable after loading apart from an internal memo; all methods are
// thread-safe. Copies are cheap and share the loaded data.
class BpeTokenizer {
 public:
  // Loads path. Throws TokenizerError (file + field) when the file is
  // unreadable, malformed, or uses an unsupported feature. `poll` is called
  // now and then during the load; what it throws escapes (stop_poll.h).
  static BpeTokenizer FromFile(const std::string& path, const StopPoll& poll = {});

  // Token ids of text, without BOS/EOS. text is UTF-8; ill-formed sequences
  // are first replaced by U+FFFD (WHATWG decoding, as Node does when reading
  // a file as UTF-8), so the ids are those of the replaced text.
  std::vector<int32_t> Encode(std::string_view text,
                              AddedTokenText added_token_text = AddedTokenText::kRecognize) const;

  // The first `max_tokens` ids of Encode(text, added_token_text), exactly,
  // encoding only the pre-tokens they need: it stops after the pre-token
  // that reaches max_tokens, so the BPE work is that of the ids returned
  // plus one pre-token (the pre-tokenizer reads at most to the end of that
  // pre-token's whitespace run; only the UTF-8 validity check reads all of
  // `text`). For continuations capped by a completion's max_tokens.
  std::vector<int32_t> EncodeLeading(std::string_view text, std::size_t max_tokens,
                                     AddedTokenText added_token_text = AddedTokenText::kRecognize) const;

  // The bytes the ids stand for (added tokens as their content). Decode of
  // Encode(text) gives back text when text is valid UTF-8. Throws
  // std::out_of_range for an id that is not a token.
  std::string Decode(std::span<const int32_t> ids) const;

  // The id of the added token whose content is exactly `content`
  // (e.g. "<|begin_of_text|>" -> 128000 for Llama-3.1), or nullopt.
  std::optional<int32_t> SpecialTokenId(std::string_view content) const;

  // One more than the largest token id (128256 for Llama-3.1).
  int32_t VocabSize() const;

 private:
  struct Model;
  explicit BpeTokenizer(std::shared_ptr<const Model> model);
  // Appends the ids of `section`'s pre-tokens, stopping once ids holds
  // `limit` or more.
  void AppendOrdinaryTextIds(std::string_view section, std::size_t limit,
                             std::vector<int32_t>& ids) const;
  void AppendPreTokenIds(std::string_view pre_token, std::vector<int32_t>& ids) const;

  std::shared_ptr<const Model> model_;
};

}  // namespace efimsim::tokenizer
