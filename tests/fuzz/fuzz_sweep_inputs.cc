// Fuzz target: what sweeps and capacity searches read from outside the
// process: the shard sweep.csv files that `efimsim merge` joins (they come
// back from other machines, e.g. a Slurm job array), and the values of
// --grid, --shard and --slo (often written by scripts).
//
// Input: byte 0 % 4 chooses the reader, the rest is its input:
//   0 MergeSweepCsvs: the rest split at NUL bytes into up to 4 shard files
//     (byte 0 / 4 % 4 + 1 of them; further pieces join the last file);
//   1 ParseGridAxis (then GridSize and every GridPoint of the one axis);
//   2 ParseShard;
//   3 ParseSlo.
// UsageError and InputError are the documented outcomes for bad input.
// Invariants of a merge that succeeds: the result is the first file's
// header and then one row per run of the grid, in run order; merging the
// shards in reverse order gives the same bytes; and merging the result
// alone gives it back unchanged (a merged sweep.csv is a valid one-shard
// sweep).

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "sim/run/sweep_grid.h"
#include "sim/run/sweep_table.h"
#include "sim/base/errors.h"
#include "sim/run/capacity_search.h"
#include "tests/fuzz/fuzz_common.h"

namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream stream(text);
  std::string line;
  while (std::getline(stream, line)) lines.push_back(line);
  return lines;
}

// The merge's result, or nullopt when it rejects its input (as it must,
// with UsageError or InputError only).
std::optional<std::string> TryMerge(const std::vector<std::string>& contents) {
  std::vector<std::string> names;
  for (size_t i = 0; i < contents.size(); ++i) names.push_back("shard" + std::to_string(i));
  try {
    return efimsim::MergeSweepCsvs(contents, names);
  } catch (const efimsim::UsageError&) {
  } catch (const efimsim::InputError&) {
  }
  return std::nullopt;
}

void FuzzMerge(uint8_t selector, std::string_view rest) {
  const size_t files = selector / 4 % 4 + 1;
  std::vector<std::string> contents(1);
  for (const char c : rest) {
    if (c == '\0' && contents.size() < files) {
      contents.emplace_back();
    } else {
      contents.back().push_back(c);
    }
  }
  const std::optional<std::string> merged = TryMerge(contents);
  std::vector<std::string> reversed(contents.rbegin(), contents.rend());
  const std::optional<std::string> merged_reversed = TryMerge(reversed);
  FUZZ_CHECK(merged.has_value() == merged_reversed.has_value(),
             "a merge's success depends on the order of its shards");
  if (!merged) return;
  FUZZ_CHECK(*merged == *merged_reversed, "a merge's bytes depend on the order of its shards");

  const std::vector<std::string> lines = Lines(*merged);
  FUZZ_CHECK(!lines.empty() && lines.front() == Lines(contents.front()).front(),
             "the merged header is not the first shard's");
  FUZZ_CHECK(merged->back() == '\n', "the merged file does not end with a newline");
  for (size_t row = 1; row < lines.size(); ++row) {
    // The run index as the merge reads it (leading zeros are accepted).
    const std::string index = lines[row].substr(0, lines[row].find(','));
    FUZZ_CHECK(std::strtoll(index.c_str(), nullptr, 10) == static_cast<long long>(row - 1),
               "row " + std::to_string(row) + " is not run " + std::to_string(row - 1));
  }
  const std::optional<std::string> again = TryMerge({*merged});
  FUZZ_CHECK(again.has_value() && *again == *merged,
             "merging a merged sweep.csv alone does not give it back");
}

void FuzzGridAxis(const std::string& text) {
  efimsim::GridAxis axis;
  try {
    axis = efimsim::ParseGridAxis(text);
  } catch (const efimsim::UsageError&) {
    return;
  }
  FUZZ_CHECK(!axis.key.empty() && !axis.values.empty(), "an accepted axis with no key or values");
  const std::vector<efimsim::GridAxis> axes = {axis};
  const int64_t size = efimsim::GridSize(axes);
  FUZZ_CHECK(size == static_cast<int64_t>(axis.values.size()), "grid size != values of its axis");
  for (int64_t i = 0; i < size; ++i) {
    const std::vector<efimsim::OptionSetting> point = efimsim::GridPoint(axes, i);
    FUZZ_CHECK(point.size() == 1 && point[0].first == axis.key &&
                   point[0].second == axis.values[static_cast<size_t>(i)],
               "grid point " + std::to_string(i) + " is not the axis's value");
  }
  // The sweep writes each value into sweep.csv unquoted.
  for (const std::string& value : axis.values) {
    FUZZ_CHECK(value.find_first_of(",\n\"") == std::string::npos,
               "an accepted value would break sweep.csv: '" + value + "'");
  }
}

void FuzzShard(const std::string& text) {
  efimsim::Shard shard;
  try {
    shard = efimsim::ParseShard(text);
  } catch (const efimsim::UsageError&) {
    return;
  }
  FUZZ_CHECK(shard.count >= 1 && shard.index >= 0 && shard.index < shard.count,
             "accepted shard " + std::to_string(shard.index) + "/" + std::to_string(shard.count));
  FUZZ_CHECK(shard.Holds(shard.index) && (shard.count == 1 || !shard.Holds(shard.index + 1)),
             "a shard does not hold exactly its runs");
}

void FuzzSlo(const std::string& text) {
  efimsim::Slo slo;
  try {
    slo = efimsim::ParseSlo(text);
  } catch (const efimsim::UsageError&) {
    return;
  }
  FUZZ_CHECK(slo.limit_ms > 0, "accepted a limit that is not positive");
  bool known = false;
  for (const std::string& name : efimsim::SloMetricNames()) known = known || name == slo.metric;
  FUZZ_CHECK(known, "accepted an unknown metric '" + slo.metric + "'");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t selector = data[0];
  const std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (selector % 4) {
    case 0: FuzzMerge(selector, rest); break;
    case 1: FuzzGridAxis(rest); break;
    case 2: FuzzShard(rest); break;
    case 3: FuzzSlo(rest); break;
  }
  return 0;
}
