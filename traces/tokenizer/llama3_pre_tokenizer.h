#pragma once

#include <cstddef>
#include <string_view>

namespace efimsim::tokenizer {

// The Split pattern of the Llama-3 pre-tokenizer, exactly as it appears in
// tokenizer.json. The loader accepts only this pattern.
inline constexpr std::string_view kLlama3SplitPattern =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| "
    "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

// Hand-written matcher equivalent to kLlama3SplitPattern as the JS reference
// runs it: the "(?i:...)" group rewritten to "(?:'([sS]|[tT]|[rR][eE]|[vV][eE]
// |[mM]|[lL][lL]|[dD]))" (ASCII-only case folding), \p{L}/\p{N}/\s with
// V8's Unicode tables (unicode_categories.h), flags "gu".
//
// Returns the end (byte offset) of the pre-token that starts at `begin`.
// Preconditions: text is valid UTF-8, begin < text.size() and begin is on a
// code point boundary. Lookahead never reads past text.size(), so callers
// pass exactly the section to split (the regex sees nothing beyond it).
// Every code point is matched by some alternative, so consecutive calls
// starting at 0 tile the whole text with non-empty pre-tokens.
std::size_t Llama3PreTokenEnd(std::string_view text, std::size_t begin);

}  // namespace efimsim::tokenizer
