// JSON half of the ShareGPT (LLMServingSim layout) importer, shared with
// validate-serving's workload reader.
#include <limits>

#include "traces/json_line_io.h"
#include "traces/sharegpt_reader.h"

namespace efimsim {
namespace {

// input_tok_ids: an array of exactly `count` ids in [0, 2^31).
TokenVector ParseTokenIds(const nlohmann::json& ids, int64_t count, const std::string& file,
                          int64_t line) {
  if (!ids.is_array()) throw InputError(file, line, "input_tok_ids", "must be an array");
  if (static_cast<int64_t>(ids.size()) != count) {
    throw InputError(file, line, "input_tok_ids",
                     "has " + std::to_string(ids.size()) + " ids, input_toks says " +
                         std::to_string(count));
  }
  TokenVector out;
  out.reserve(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    const nlohmann::json& id = ids[i];
    if (!id.is_number_integer() || id.get<int64_t>() < 0 ||
        id.get<int64_t>() > std::numeric_limits<int32_t>::max()) {
      throw InputError(file, line, "input_tok_ids[" + std::to_string(i) + "]",
                       "must be a token id in [0, 2^31)");
    }
    out.push_back(static_cast<TokenId>(id.get<int64_t>()));
  }
  return out;
}

}  // namespace

ShareGptRow ParseShareGptLine(std::string_view text, const std::string& file, int64_t line) {
  const nlohmann::json object = ParseJsonObjectLine(text, file, line);
  const auto integer = [&](const char* field) -> int64_t {
    const auto it = object.find(field);
    if (it == object.end()) throw InputError(file, line, field, "missing");
    if (!it->is_number_integer()) throw InputError(file, line, field, "must be an integer");
    if (it->is_number_unsigned() && it->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
      throw InputError(file, line, field, "integer too large");
    }
    return it->get<int64_t>();
  };
  ShareGptRow row;
  row.input_toks = integer("input_toks");
  row.output_toks = integer("output_toks");
  row.arrival_time_ns = integer("arrival_time_ns");
  if (row.input_toks < 1) throw InputError(file, line, "input_toks", "must be at least 1");
  if (row.output_toks < 1) throw InputError(file, line, "output_toks", "must be at least 1");
  if (row.arrival_time_ns < 0) throw InputError(file, line, "arrival_time_ns", "must be >= 0");
  const auto ids = object.find("input_tok_ids");
  if (ids != object.end() && !ids->is_null()) {
    row.has_token_ids = true;
    row.token_ids = ParseTokenIds(*ids, row.input_toks, file, line);
  }
  return row;
}

}  // namespace efimsim
