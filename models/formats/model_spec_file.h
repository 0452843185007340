#pragma once
// A model spec as its JSON file holds it (models/specs/*.json): the
// ModelSpec plus what the file says that ModelSpec does not keep (the dtype's
// name, the notes). Written by `efimsim models import`; read back by
// ParseModelSpec (spec_catalog.h) to the same ModelSpec.

#include <string>

#include "models/formats/model_spec.h"

namespace efimsim {

struct ModelSpecFile {
  ModelSpec spec;           // serving fields (quantization, ...) are not written
  std::string dtype;        // "bfloat16", "float16" or "float32"; matches spec.dtype_bytes
  std::string tokens_note;  // "tokens.note"; "" writes none
  std::string moe_note;     // "moe.note" (MoE specs only); "" writes none
  std::string mla_note;     // "mla.note" (MLA specs only); "" writes none
};

// The spec JSON (schema_version 1), keys in the order of models/specs/*.json,
// "moe" and "mla" last and only for an MoE or MLA spec (its optional keys only when not their
// defaults); two-space indent, a final newline. model_spec_file_io.cc.
std::string ModelSpecFileJson(const ModelSpecFile& file);

}  // namespace efimsim
