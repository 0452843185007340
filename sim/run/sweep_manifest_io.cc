#include <nlohmann/json.hpp>

#include "sim/run/sweep_manifest.h"
#include "sim/base/errors.h"

namespace efimsim {

std::string SweepManifestJson(const SweepManifest& manifest) {
  nlohmann::ordered_json root;
  root["kind"] = "efimsim-sweep";
  root["schema_version"] = 1;
  root["grid_size"] = manifest.grid_size;
  root["shard"] = manifest.shard;
  nlohmann::ordered_json axes = nlohmann::ordered_json::array();
  for (const GridAxis& axis : manifest.axes) {
    axes.push_back({{"key", axis.key}, {"values", axis.values}});
  }
  root["axes"] = std::move(axes);
  nlohmann::ordered_json options = nlohmann::ordered_json::object();
  for (const auto& [key, value] : manifest.options) options[key] = value;
  root["options"] = std::move(options);
  return root.dump(2) + "\n";
}

SweepManifest ParseSweepManifest(const std::string& text, const std::string& origin) {
  SweepManifest manifest;
  try {
    const nlohmann::json root = nlohmann::json::parse(text);
    if (!root.is_object() || root.value("kind", "") != "efimsim-sweep") {
      throw InputError(origin, 0, "kind", "not an efimsim sweep manifest");
    }
    manifest.grid_size = root.at("grid_size").get<int64_t>();
    manifest.shard = root.at("shard").get<std::string>();
    for (const auto& axis : root.at("axes")) {
      manifest.axes.push_back(
          {axis.at("key").get<std::string>(), axis.at("values").get<std::vector<std::string>>()});
    }
    for (const auto& [key, value] : root.at("options").items()) {
      manifest.options.push_back({key, value.get<std::string>()});
    }
  } catch (const nlohmann::json::exception& error) {
    throw InputError(origin, 0, "", std::string("malformed sweep manifest: ") + error.what());
  }
  return manifest;
}

std::string SweepManifestDifference(const SweepManifest& a, const SweepManifest& b) {
  if (a.grid_size != b.grid_size) {
    return "grid of " + std::to_string(a.grid_size) + " vs " + std::to_string(b.grid_size) +
           " runs";
  }
  if (a.axes.size() != b.axes.size()) return "different grid axes";
  for (size_t i = 0; i < a.axes.size(); ++i) {
    if (a.axes[i].key != b.axes[i].key || a.axes[i].values != b.axes[i].values) {
      return "grid axis " + a.axes[i].key + " vs " + b.axes[i].key + " (keys or values differ)";
    }
  }
  for (const auto& [key, value] : a.options) {
    for (const auto& [other_key, other_value] : b.options) {
      if (key == other_key && value != other_value) {
        return "option " + key + ": " + value + " vs " + other_value;
      }
    }
  }
  if (a.options.size() != b.options.size()) return "different option sets (efimsim versions?)";
  return {};
}

}  // namespace efimsim
