#pragma once
// Strict reading of JSON objects for the *_io.cc parsers: fields are read by
// name and a key nobody read is an error, every error an InputError naming
// the file and the field path ("gemm[2].points[5].time_us").
//
// Include only from *_io.cc files: nlohmann/json stays behind that wall.

#include <cstdio>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/base/errors.h"

namespace efimsim {

class StrictObject {
 public:
  // `prefix`: the field path of this object in the file ("" at the root).
  StrictObject(const nlohmann::json& object, std::string origin, std::string prefix)
      : object_(object), origin_(std::move(origin)), prefix_(std::move(prefix)) {
    if (!object_.is_object()) throw InputError(origin_, 0, prefix_, "expected a JSON object");
  }

  const nlohmann::json& Field(const std::string& key) {
    used_.insert(key);
    const auto it = object_.find(key);
    if (it == object_.end()) throw InputError(origin_, 0, Path(key), "missing");
    return *it;
  }
  bool Has(const std::string& key) const { return object_.contains(key); }

  int64_t Int(const std::string& key, int64_t min_value) {
    const nlohmann::json& value = Field(key);
    if (!value.is_number_integer()) throw InputError(origin_, 0, Path(key), "expected an integer");
    const int64_t number = value.get<int64_t>();
    if (number < min_value) {
      throw InputError(origin_, 0, Path(key), "must be >= " + std::to_string(min_value));
    }
    return number;
  }
  double Number(const std::string& key, double min_value) {
    const nlohmann::json& value = Field(key);
    if (!value.is_number()) throw InputError(origin_, 0, Path(key), "expected a number");
    const double number = value.get<double>();
    if (!(number >= min_value) || !std::isfinite(number)) {
      throw InputError(origin_, 0, Path(key), "must be a finite number >= " + FormatMinimum(min_value));
    }
    return number;
  }
  // A finite number > 0 (times, bandwidths).
  double Positive(const std::string& key) {
    const double number = Number(key, 0.0);
    if (!(number > 0)) throw InputError(origin_, 0, Path(key), "must be > 0");
    return number;
  }
  std::string String(const std::string& key) {
    const nlohmann::json& value = Field(key);
    if (!value.is_string()) throw InputError(origin_, 0, Path(key), "expected a string");
    return value.get<std::string>();
  }
  bool Bool(const std::string& key) {
    const nlohmann::json& value = Field(key);
    if (!value.is_boolean()) throw InputError(origin_, 0, Path(key), "expected true or false");
    return value.get<bool>();
  }
  const nlohmann::json& Array(const std::string& key) {
    const nlohmann::json& value = Field(key);
    if (!value.is_array()) throw InputError(origin_, 0, Path(key), "expected a JSON list");
    return value;
  }
  void RejectUnknownKeys() const {
    for (const auto& [key, value] : object_.items()) {
      if (!used_.count(key)) throw InputError(origin_, 0, Path(key), "unknown key");
    }
  }
  // "0", "0.5": a bound as a person writes it (not std::to_string's "0.000000").
  static std::string FormatMinimum(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", value);
    return text;
  }
  std::string Path(const std::string& key) const { return prefix_.empty() ? key : prefix_ + "." + key; }
  const std::string& origin() const { return origin_; }
  const std::string& prefix() const { return prefix_; }

 private:
  const nlohmann::json& object_;
  std::string origin_;
  std::string prefix_;
  std::set<std::string> used_;
};

inline nlohmann::json ParseJson(const std::string& text, const std::string& origin) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& error) {  // parse_error, out_of_range (1e400)
    throw InputError(origin, 0, "", std::string("not valid JSON: ") + error.what());
  }
}

inline std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", "cannot open file");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace efimsim
