#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace efimsim::tokenizer {

// The classes the Llama-3 split regex distinguishes. They are disjoint:
// kLetter is \p{L}, kNumber is \p{N}, kWhitespace is JS \s, kOther the rest.
enum class CodePointClass : uint8_t { kOther = 0, kLetter = 1, kNumber = 2, kWhitespace = 3 };

// A closed range [first, last] of code points sharing one class.
struct CodePointRange {
  char32_t first;
  char32_t last;
  CodePointClass code_point_class;
};

// Generated table (unicode_categories_table.cc): sorted, non-overlapping
// ranges of every code point that is not kOther.
extern const CodePointRange kCodePointRanges[];
extern const std::size_t kCodePointRangeCount;
// The Unicode version of the JS engine the table was generated from.
extern const char kUnicodeVersionOfCategoryTable[];

// Class of a non-ASCII code point (binary search of kCodePointRanges).
CodePointClass ClassifyNonAsciiCodePoint(char32_t code_point);

namespace detail {
constexpr std::array<CodePointClass, 128> MakeAsciiClasses() {
  std::array<CodePointClass, 128> classes{};
  for (int c = 0; c < 128; ++c) {
    CodePointClass cls = CodePointClass::kOther;
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) cls = CodePointClass::kLetter;
    if (c >= '0' && c <= '9') cls = CodePointClass::kNumber;
    if ((c >= 0x09 && c <= 0x0D) || c == ' ') cls = CodePointClass::kWhitespace;
    classes[static_cast<std::size_t>(c)] = cls;
  }
  return classes;
}
inline constexpr std::array<CodePointClass, 128> kAsciiClasses = MakeAsciiClasses();
}  // namespace detail

// Class of any code point, as the JS regex engine sees it.
inline CodePointClass ClassifyCodePoint(char32_t code_point) {
  if (code_point < 128) return detail::kAsciiClasses[code_point];
  return ClassifyNonAsciiCodePoint(code_point);
}

}  // namespace efimsim::tokenizer
