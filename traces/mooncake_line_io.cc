// JSON half of the Mooncake importer.
#include <nlohmann/json.hpp>

#include "traces/json_line_io.h"

#include "sim/base/errors.h"
#include "traces/mooncake_reader.h"

namespace efimsim {

MooncakeRow ParseMooncakeLine(std::string_view line, const std::string& file, int64_t line_number) {
  const nlohmann::json object = ParseJsonObjectLine(line, file, line_number);
  const auto integer = [&](const char* field) -> int64_t {
    const auto it = object.find(field);
    if (it == object.end()) throw InputError(file, line_number, field, "missing");
    if (!it->is_number_integer()) throw InputError(file, line_number, field, "must be an integer");
    if (it->is_number_unsigned() && it->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
      throw InputError(file, line_number, field, "integer too large");
    }
    return it->get<int64_t>();
  };
  MooncakeRow row;
  row.timestamp_ms = integer("timestamp");
  row.input_length = integer("input_length");
  row.output_length = integer("output_length");
  const auto ids = object.find("hash_ids");
  if (ids == object.end()) throw InputError(file, line_number, "hash_ids", "missing");
  if (!ids->is_array()) throw InputError(file, line_number, "hash_ids", "must be an array");
  row.hash_ids.reserve(ids->size());
  for (const nlohmann::json& id : *ids) {
    if (!id.is_number_unsigned()) {
      throw InputError(file, line_number, "hash_ids", "ids must be non-negative integers");
    }
    row.hash_ids.push_back(id.get<uint64_t>());
  }
  return row;
}

}  // namespace efimsim
