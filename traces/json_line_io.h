#pragma once
// Parsing one line of a JSON Lines file into one JSON object, with the
// error every reader reports: InputError(file, line, "", where it broke).
// Included only by *_io.cc files (nlohmann/json stays behind them).

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "sim/base/errors.h"

namespace efimsim {

inline nlohmann::json ParseJsonObjectLine(std::string_view line, const std::string& file,
                                          int64_t line_number) {
  nlohmann::json value;
  try {
    value = nlohmann::json::parse(line.begin(), line.end());
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is 1-based within the line.
    throw InputError(file, line_number, "",
                     "not valid JSON at byte " + std::to_string(e.byte) + " of the line");
  } catch (const nlohmann::json::exception& e) {
    // e.g. a number too large for a double (out_of_range 406)
    throw InputError(file, line_number, "", std::string("not usable JSON: ") + e.what());
  }
  if (!value.is_object()) throw InputError(file, line_number, "", "not a JSON object");
  return value;
}

}  // namespace efimsim
