#include "traces/snapshot_diff.h"

#include <algorithm>

#include "traces/utf8_text.h"

namespace efimsim {

SnapshotDiff DiffSnapshots(std::string_view before, std::string_view after) {
  size_t prefix = 0;
  const size_t shorter = std::min(before.size(), after.size());
  while (prefix < shorter && before[prefix] == after[prefix]) ++prefix;
  // Back off to a character boundary (equal bytes up to here in both).
  while (prefix > 0 && !IsUtf8Boundary(before, prefix)) --prefix;
  size_t suffix = 0;
  while (suffix < shorter - prefix &&
         before[before.size() - 1 - suffix] == after[after.size() - 1 - suffix]) {
    ++suffix;
  }
  while (suffix > 0 && !IsUtf8Boundary(before, before.size() - suffix)) --suffix;
  SnapshotDiff diff;
  diff.offset_bytes = static_cast<int64_t>(prefix);
  diff.deleted_bytes = static_cast<int64_t>(before.size() - suffix - prefix);
  diff.inserted = std::string(after.substr(prefix, after.size() - suffix - prefix));
  return diff;
}

}  // namespace efimsim
