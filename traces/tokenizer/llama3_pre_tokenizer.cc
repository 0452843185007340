#include "traces/tokenizer/llama3_pre_tokenizer.h"

#include "traces/tokenizer/unicode_categories.h"
#include "traces/tokenizer/utf8.h"

namespace efimsim::tokenizer {
namespace {

struct ClassifiedCodePoint {
  char32_t value;
  std::size_t length;
  CodePointClass code_point_class;
};

inline ClassifiedCodePoint ReadCodePoint(std::string_view text, std::size_t pos) {
  const auto lead = static_cast<uint8_t>(text[pos]);
  if (lead < 0x80) return {lead, 1, detail::kAsciiClasses[lead]};
  const DecodedCodePoint cp = DecodeValidUtf8(text, pos);
  return {cp.value, cp.length, ClassifyNonAsciiCodePoint(cp.value)};
}

// End of the maximal run of code points of class `cls` starting at pos.
inline std::size_t EndOfRun(std::string_view text, std::size_t pos, CodePointClass cls) {
  while (pos < text.size()) {
    const ClassifiedCodePoint cp = ReadCodePoint(text, pos);
    if (cp.code_point_class != cls) break;
    pos += cp.length;
  }
  return pos;
}

inline bool IsNewline(char32_t c) { return c == '\r' || c == '\n'; }

inline bool IsAsciiLetterIgnoringCase(char c, char lower) { return c == lower || c == lower - ('a' - 'A'); }

// Alternative 1, "'([sS]|[tT]|[rR][eE]|[vV][eE]|[mM]|[lL][lL]|[dD])", given
// text[pos] == '\''. Returns the match end, or 0 when it does not match.
std::size_t MatchContraction(std::string_view text, std::size_t pos) {
  const std::size_t after = pos + 1;
  if (after >= text.size()) return 0;
  const char c = text[after];
  if (IsAsciiLetterIgnoringCase(c, 's') || IsAsciiLetterIgnoringCase(c, 't') ||
      IsAsciiLetterIgnoringCase(c, 'm') || IsAsciiLetterIgnoringCase(c, 'd')) {
    return after + 1;
  }
  if (after + 1 >= text.size()) return 0;
  const char c2 = text[after + 1];
  if ((IsAsciiLetterIgnoringCase(c, 'r') && IsAsciiLetterIgnoringCase(c2, 'e')) ||
      (IsAsciiLetterIgnoringCase(c, 'v') && IsAsciiLetterIgnoringCase(c2, 'e')) ||
      (IsAsciiLetterIgnoringCase(c, 'l') && IsAsciiLetterIgnoringCase(c2, 'l'))) {
    return after + 2;
  }
  return 0;
}

// "[^\s\p{L}\p{N}]+[\r\n]*" starting at pos, where text[pos] is kOther.
std::size_t EndOfSymbolsThenNewlines(std::string_view text, std::size_t pos) {
  pos = EndOfRun(text, pos, CodePointClass::kOther);
  while (pos < text.size() && (text[pos] == '\r' || text[pos] == '\n')) ++pos;
  return pos;
}

// Alternatives 5-7 for a pre-token starting with whitespace at `begin`:
//   \s*[\r\n]+  -> up to and including the last \r or \n of the run;
//   \s+(?!\S)   -> the whole run at end of text, else all but its last
//                  code point when the run has at least two;
//   \s+         -> the whole run (a single code point before non-space).
std::size_t EndOfWhitespace(std::string_view text, std::size_t begin) {
  std::size_t pos = begin;
  std::size_t after_last_newline = 0;  // 0: no \r or \n in the run
  std::size_t last_code_point_start = begin;
  std::size_t code_points = 0;
  while (pos < text.size()) {
    const ClassifiedCodePoint cp = ReadCodePoint(text, pos);
    if (cp.code_point_class != CodePointClass::kWhitespace) break;
    last_code_point_start = pos;
    ++code_points;
    pos += cp.length;
    if (IsNewline(cp.value)) after_last_newline = pos;
  }
  if (after_last_newline != 0) return after_last_newline;
  if (pos == text.size()) return pos;
  if (code_points >= 2) return last_code_point_start;
  return pos;
}

}  // namespace

std::size_t Llama3PreTokenEnd(std::string_view text, std::size_t begin) {
  const ClassifiedCodePoint first = ReadCodePoint(text, begin);
  const std::size_t next = begin + first.length;

  // 1. (?i:'s|'t|'re|'ve|'m|'ll|'d)
  if (first.value == '\'') {
    if (const std::size_t end = MatchContraction(text, begin)) return end;
  }
  // 2. [^\r\n\p{L}\p{N}]?\p{L}+
  if (first.code_point_class == CodePointClass::kLetter) {
    return EndOfRun(text, next, CodePointClass::kLetter);
  }
  if (first.code_point_class != CodePointClass::kNumber && !IsNewline(first.value) &&
      next < text.size() && ReadCodePoint(text, next).code_point_class == CodePointClass::kLetter) {
    return EndOfRun(text, next, CodePointClass::kLetter);
  }
  // 3. \p{N}{1,3}
  if (first.code_point_class == CodePointClass::kNumber) {
    std::size_t end = next;
    for (int more = 0; more < 2 && end < text.size(); ++more) {
      const ClassifiedCodePoint cp = ReadCodePoint(text, end);
      if (cp.code_point_class != CodePointClass::kNumber) break;
      end += cp.length;
    }
    return end;
  }
  // 4. ' ?[^\s\p{L}\p{N}]+[\r\n]*'
  if (first.value == ' ' && next < text.size() &&
      ReadCodePoint(text, next).code_point_class == CodePointClass::kOther) {
    return EndOfSymbolsThenNewlines(text, next);
  }
  if (first.code_point_class == CodePointClass::kOther) return EndOfSymbolsThenNewlines(text, begin);
  // 5-7. Whitespace.
  return EndOfWhitespace(text, begin);
}

}  // namespace efimsim::tokenizer
