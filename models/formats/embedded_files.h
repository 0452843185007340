#pragma once
// JSON files compiled into the binary by models/CMakeLists.txt
// (generated embedded_files.cc).

#include <string_view>
#include <vector>

namespace efimsim {

struct EmbeddedFile {
  std::string_view name;  // file stem, e.g. "llama-3.1-8b"
  std::string_view text;
};

std::vector<EmbeddedFile> EmbeddedModelSpecs();
std::vector<EmbeddedFile> EmbeddedGpuSpecs();
// models/profiles/<gpu>/<source>/<model>.json; name = "<gpu>/<source>/<model>".
std::vector<EmbeddedFile> EmbeddedKernelProfiles();
// models/shape_profiles/<gpu>/<source>/<engine>.json; name =
// "<gpu>/<source>/<engine>". May be empty.
std::vector<EmbeddedFile> EmbeddedShapeProfiles();

}  // namespace efimsim
