#pragma once
// Hugging Face config.json files read as efimsim model specs: `--model
// PATH/config.json` wherever a spec path is accepted (LoadModelSpec), and
// `efimsim models import`, which writes the spec out. Which fields are read,
// refused and ignored: hf_config_io.cc's header and models/README.md.

#include <string>
#include <vector>

#include "models/formats/model_spec_file.h"

namespace efimsim {

// True when `json_text` is a Hugging Face config.json, not an efimsim spec:
// a JSON object with "architectures" or "model_type" and no
// "schema_version". False for text that is not JSON (the spec reader then
// reports it).
bool IsHfConfig(const std::string& json_text);

// The spec of the model the config.json `json_text` (read from `path`)
// describes. name: the last part of "_name_or_path", else the name of the
// folder holding the file; source: "<path> (Hugging Face config.json,
// architecture X)" and what is not modelled. config.json holds no FIM
// sentinel ids: Qwen's and StarCoder2's tokenizers' are known, other models
// get stand-ins (tokens.note says which). Throws InputError naming `path`
// and the config's field for a shape or feature efimsim does not model.
ModelSpecFile ReadHfConfig(const std::string& json_text, const std::string& path);
// ReadHfConfig of the file at `path` (InputError when it cannot be read).
ModelSpecFile LoadHfConfig(const std::string& path);

// The "architectures" values ReadHfConfig reads, in its error's order.
std::vector<std::string> SupportedHfArchitectures();

}  // namespace efimsim
