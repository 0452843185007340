#pragma once
// What identifies a sweep, written beside its sweep.csv as sweep.json: the
// grid (axes and their values, in order) and the value of every option the
// sweep does not vary. Shards of one sweep (--shard I/N) write the same
// manifest but for their shard; `merge` joins only shards whose manifests
// agree, so two different sweeps are never mixed into one sweep.csv.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/run/sweep_grid.h"

namespace efimsim {

struct SweepManifest {
  int64_t grid_size = 0;
  std::vector<GridAxis> axes;
  std::vector<OptionSetting> options;  // every option not on an axis, as text
  std::string shard = "0/1";
};

// The manifest as JSON (a fixed key order, two-space indent, a final
// newline): the same sweep gives the same bytes.
std::string SweepManifestJson(const SweepManifest& manifest);
// InputError naming `origin` and the field for a malformed manifest.
SweepManifest ParseSweepManifest(const std::string& text, const std::string& origin);

// Empty when `a` and `b` describe the same sweep (shards aside); otherwise
// what differs, e.g. "option users: 8 vs 16" or "axes".
std::string SweepManifestDifference(const SweepManifest& a, const SweepManifest& b);

}  // namespace efimsim
