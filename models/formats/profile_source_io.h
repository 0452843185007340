#pragma once
// The "source" object of imported profiles (PROFILE.md), shared by the
// model-keyed and the shape-keyed profile readers and writers (defined in
// profile_io.cc). Include only from *_io.cc files.

#include <nlohmann/json.hpp>

#include "models/formats/kernel_profile.h"
#include "models/formats/strict_json_io.h"

namespace efimsim {

// Reads {"kind", "stack", "method", "files": [{"path", "sha256"}]}; kind is
// one of the importers' sources. InputError names the field path.
ProfileSource ReadProfileSource(StrictObject& source);
nlohmann::ordered_json ProfileSourceJson(const ProfileSource& source);

}  // namespace efimsim
