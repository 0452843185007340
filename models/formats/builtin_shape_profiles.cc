// The built-in shape profiles: models/shape_profiles/*/*/*.json, compiled
// into the binary in their compact form (shape_profile_binary.h) by the
// build tool efimsim_compile_shape_profiles, which also checked each one
// (ParseShapeProfile, its place, the round trip). Decoding one takes well
// under a millisecond.

#include <map>
#include <memory>
#include <mutex>

#include "models/formats/embedded_files.h"
#include "models/formats/shape_profile.h"
#include "models/formats/shape_profile_binary.h"

namespace efimsim {

const ShapeProfile* FindBuiltinShapeProfile(const std::string& gpu, const std::string& source,
                                            const std::string& engine) {
  // Decoded on first use and kept: a sweep builds thousands of latency models.
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<const ShapeProfile>> decoded;
  const std::string name = gpu + "/" + source + "/" + engine;
  const std::lock_guard<std::mutex> lock(mutex);
  const auto cached = decoded.find(name);
  if (cached != decoded.end()) return cached->second.get();
  for (const EmbeddedFile& file : EmbeddedShapeProfiles()) {
    if (file.name != name) continue;
    auto profile = std::make_unique<ShapeProfile>(DecodeShapeProfile(
        file.text, "built-in shape profile models/shape_profiles/" + name + ".json"));
    return decoded.emplace(name, std::move(profile)).first->second.get();
  }
  decoded.emplace(name, nullptr);
  return nullptr;
}

std::vector<std::string> BuiltinShapeProfileNames() {
  return EmbeddedNames(EmbeddedShapeProfiles());
}

}  // namespace efimsim
