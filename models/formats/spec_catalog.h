#pragma once
// Finding model and GPU specs by name or path. The JSON files under
// models/specs/ and models/gpus/ are compiled into the binary (so a built
// efimsim needs no source tree); a path to another JSON file works as well.

#include <string>
#include <vector>

#include "models/formats/model_spec.h"

namespace efimsim {

// `name_or_path`: a built-in name ("llama-3.1-8b") or a path to a JSON file.
// Throws UsageError for an unknown name, InputError for a bad file.
ModelSpec LoadModelSpec(const std::string& name_or_path);
GpuSpec LoadGpuSpec(const std::string& name_or_path);

std::vector<std::string> BuiltinModelNames();
std::vector<std::string> BuiltinGpuNames();

// Parsers (spec_io.cc). `origin` names the file in error messages.
ModelSpec ParseModelSpec(const std::string& json_text, const std::string& origin);
GpuSpec ParseGpuSpec(const std::string& json_text, const std::string& origin);

}  // namespace efimsim
