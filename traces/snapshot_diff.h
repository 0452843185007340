#pragma once
// The edit between two snapshots of a file: the minimal common-prefix /
// common-suffix diff (one replaced range), not a full edit script. Enough
// for IDE snapshot logs taken after every change, where consecutive
// snapshots differ in one place; two separate changes between snapshots
// become one replacement covering both.

#include <cstdint>
#include <string>
#include <string_view>

namespace efimsim {

struct SnapshotDiff {
  int64_t offset_bytes = 0;   // where before and after first differ (a UTF-8 boundary)
  int64_t deleted_bytes = 0;  // bytes of `before` replaced, from offset_bytes
  std::string inserted;       // text of `after` in their place
  bool empty() const { return deleted_bytes == 0 && inserted.empty(); }
};

// before[0, offset) == after[0, offset) and the tails after the replaced
// range are equal; the common prefix is taken first (longest), then the
// longest common suffix that does not overlap it. Both ends of the range
// lie on UTF-8 boundaries of valid UTF-8 input.
SnapshotDiff DiffSnapshots(std::string_view before, std::string_view after);

}  // namespace efimsim
