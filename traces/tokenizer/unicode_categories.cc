#include "traces/tokenizer/unicode_categories.h"

#include <algorithm>

namespace efimsim::tokenizer {

CodePointClass ClassifyNonAsciiCodePoint(char32_t code_point) {
  const CodePointRange* begin = kCodePointRanges;
  const CodePointRange* end = kCodePointRanges + kCodePointRangeCount;
  // First range whose last >= code_point.
  const CodePointRange* it = std::lower_bound(
      begin, end, code_point,
      [](const CodePointRange& range, char32_t cp) { return range.last < cp; });
  if (it != end && it->first <= code_point) return it->code_point_class;
  return CodePointClass::kOther;
}

}  // namespace efimsim::tokenizer
