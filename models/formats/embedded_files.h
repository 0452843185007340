#pragma once
// Files compiled into the binary by models/CMakeLists.txt: JSON text
// (generated embedded_files.cc), and the shape profiles in their compact
// form (generated embedded_shape_profiles.cc).

#include <string>
#include <string_view>
#include <vector>

namespace efimsim {

struct EmbeddedFile {
  std::string_view name;  // file stem, e.g. "llama-3.1-8b"
  std::string_view text;
};

// The names of `files`, sorted.
std::vector<std::string> EmbeddedNames(const std::vector<EmbeddedFile>& files);

std::vector<EmbeddedFile> EmbeddedModelSpecs();
std::vector<EmbeddedFile> EmbeddedGpuSpecs();
// models/profiles/<gpu>/<source>/<model>.json; name = "<gpu>/<source>/<model>".
std::vector<EmbeddedFile> EmbeddedKernelProfiles();
// models/shape_profiles/<gpu>/<source>/<engine>.json in the compact form of
// shape_profile_binary.h (`text` holds those bytes, not JSON); name =
// "<gpu>/<source>/<engine>". May be empty. Made at build time by
// efimsim_compile_shape_profiles; linked into efimsim_models only.
std::vector<EmbeddedFile> EmbeddedShapeProfiles();

}  // namespace efimsim
