#include "models/import/csv_columns.h"

#include <charconv>
#include <cmath>

#include "models/import/profile_import.h"
#include "sim/base/errors.h"

namespace efimsim {
namespace {

std::vector<std::string_view> SplitFields(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t start = 0;
  while (true) {
    const size_t comma = line.find(',', start);
    if (comma == std::string_view::npos) {
      fields.push_back(line.substr(start));
      return fields;
    }
    fields.push_back(line.substr(start, comma - start));
    start = comma + 1;
  }
}

}  // namespace

CsvColumns::CsvColumns(const std::string& text, const std::string& origin, const std::string& what)
    : origin_(origin) {
  size_t start = 0;
  int64_t line_number = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++line_number;
    start = end + 1;
    if (line.empty()) continue;
    if (line.find('"') != std::string_view::npos) {
      throw InputError(origin_, line_number, "", "quoted fields are not expected in " + what);
    }
    const std::vector<std::string_view> fields = SplitFields(line);
    if (header_.empty()) {
      for (size_t i = 0; i < fields.size(); ++i) {
        if (!columns_.emplace(std::string(fields[i]), i).second && !fields[i].empty()) {
          throw InputError(origin_, line_number, std::string(fields[i]), "column named twice");
        }
        header_.emplace_back(fields[i]);
      }
      continue;
    }
    if (fields.size() != header_.size()) {
      throw InputError(origin_, line_number, "",
                       "has " + std::to_string(fields.size()) + " fields, the header has " +
                           std::to_string(header_.size()));
    }
    rows_.push_back({line_number, fields});
  }
  if (header_.empty()) throw InputError(origin_, 0, "", "empty file");
}

double CsvColumns::Number(size_t row, const std::string& column) const {
  const std::string_view text = Cell(row, column);
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    throw InputError(origin_, rows_[row].line, column,
                     "expected a number, got \"" + std::string(text) + "\"");
  }
  return value;
}

double CsvColumns::Milliseconds(size_t row, const std::string& column) const {
  const double value = Number(row, column);
  if (!(value > 0) || value >= kMaxSourceMilliseconds) {
    throw InputError(origin_, rows_[row].line, column, "must be > 0 and < 1e6 ms");
  }
  return value;
}

int64_t CsvColumns::Int(size_t row, const std::string& column, int64_t min_value) const {
  const std::string_view text = Cell(row, column);
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) {
    throw InputError(origin_, rows_[row].line, column,
                     "expected an integer, got \"" + std::string(text) + "\"");
  }
  if (value < min_value) {
    throw InputError(origin_, rows_[row].line, column, "must be >= " + std::to_string(min_value));
  }
  return value;
}

bool CsvColumns::Bool(size_t row, const std::string& column) const {
  const std::string_view text = Cell(row, column);
  if (text == "True" || text == "true" || text == "1") return true;
  if (text == "False" || text == "false" || text == "0") return false;
  throw InputError(origin_, rows_[row].line, column,
                   "expected True or False, got \"" + std::string(text) + "\"");
}

std::string CsvColumns::Text(size_t row, const std::string& column) const {
  return std::string(Cell(row, column));
}

double CsvColumns::OptionalMilliseconds(size_t row, const std::string& column) const {
  if (Cell(row, column).empty()) return std::nan("");
  return Milliseconds(row, column);
}

void CsvColumns::Require(const std::string& column) const {
  if (!columns_.count(column)) throw InputError(origin_, 1, column, "missing column");
}

std::string_view CsvColumns::Cell(size_t row, const std::string& column) const {
  const auto it = columns_.find(column);
  if (it == columns_.end()) throw InputError(origin_, 1, column, "missing column");
  return rows_[row].fields[it->second];
}

}  // namespace efimsim
