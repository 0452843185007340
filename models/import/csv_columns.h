#pragma once
// A plain comma-separated file (header row, no quoting) read into named
// columns, for the importers of measured kernel tables (Vidur's and
// AIConfigurator's CSVs). Every value is checked where it is read; errors
// are InputErrors naming the file, the 1-based line and the column.
//
// The table keeps views into `text`: the string must outlive it.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace efimsim {

class CsvColumns {
 public:
  // `what` names the kind of file in messages ("a Vidur CSV").
  CsvColumns(const std::string& text, const std::string& origin, const std::string& what = "a CSV");

  size_t Rows() const { return rows_.size(); }
  int64_t Line(size_t row) const { return rows_[row].line; }
  const std::string& origin() const { return origin_; }

  double Number(size_t row, const std::string& column) const;
  // A time in milliseconds: > 0 and < kMaxSourceMilliseconds (profile_import.h).
  double Milliseconds(size_t row, const std::string& column) const;
  int64_t Int(size_t row, const std::string& column, int64_t min_value) const;
  bool Bool(size_t row, const std::string& column) const;
  std::string Text(size_t row, const std::string& column) const;
  // A time in milliseconds that may be absent: NaN for an empty cell.
  double OptionalMilliseconds(size_t row, const std::string& column) const;
  bool Has(const std::string& column) const { return columns_.count(column) != 0; }
  // InputError (line 1) when the header lacks `column`.
  void Require(const std::string& column) const;

 private:
  struct Row {
    int64_t line = 0;
    std::vector<std::string_view> fields;
  };
  std::string_view Cell(size_t row, const std::string& column) const;

  std::string origin_;
  std::vector<std::string> header_;
  std::map<std::string, size_t> columns_;
  std::vector<Row> rows_;
};

}  // namespace efimsim
