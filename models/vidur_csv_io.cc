// Readers of Vidur's profiling CSVs (microsoft/vidur, data/profiling/):
// compute/<gpu>/<model>/mlp.csv and network/<cluster>/all_reduce.csv. Plain
// comma-separated values with a header row; the first, unnamed column is a
// row index. Columns this reader does not use are allowed.
#include <charconv>
#include <cmath>
#include <map>
#include <string_view>

#include "models/profile_import.h"
#include "models/strict_json_io.h"
#include "sim/base/errors.h"
#include "sim/base/sha256.h"

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

// A CSV read into named columns; every value is checked where it is used.
class CsvColumns {
 public:
  CsvColumns(const std::string& text, const std::string& origin) : origin_(origin) {
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
        throw InputError(origin_, line_number, "", "quoted fields are not expected in a Vidur CSV");
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

  size_t Rows() const { return rows_.size(); }
  int64_t Line(size_t row) const { return rows_[row].line; }

  double Number(size_t row, const std::string& column) const {
    const std::string_view text = Cell(row, column);
    double value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
      throw InputError(origin_, rows_[row].line, column,
                       "expected a number, got \"" + std::string(text) + "\"");
    }
    return value;
  }
  // A time in milliseconds: > 0 and < kMaxSourceMilliseconds.
  double Milliseconds(size_t row, const std::string& column) const {
    const double value = Number(row, column);
    if (!(value > 0) || value >= kMaxSourceMilliseconds) {
      throw InputError(origin_, rows_[row].line, column, "must be > 0 and < 1e6 ms");
    }
    return value;
  }
  int64_t Int(size_t row, const std::string& column, int64_t min_value) const {
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
  bool Bool(size_t row, const std::string& column) const {
    const std::string_view text = Cell(row, column);
    if (text == "True" || text == "true" || text == "1") return true;
    if (text == "False" || text == "false" || text == "0") return false;
    throw InputError(origin_, rows_[row].line, column,
                     "expected True or False, got \"" + std::string(text) + "\"");
  }
  std::string Text(size_t row, const std::string& column) const {
    return std::string(Cell(row, column));
  }
  // A time in milliseconds that may be absent: NaN for an empty cell.
  double OptionalMilliseconds(size_t row, const std::string& column) const {
    if (Cell(row, column).empty()) return std::nan("");
    return Milliseconds(row, column);
  }
  void Require(const std::string& column) const {
    if (!columns_.count(column)) throw InputError(origin_, 1, column, "missing column");
  }

 private:
  struct Row {
    int64_t line = 0;
    std::vector<std::string_view> fields;
  };
  std::string_view Cell(size_t row, const std::string& column) const {
    const auto it = columns_.find(column);
    if (it == columns_.end()) throw InputError(origin_, 1, column, "missing column");
    return rows_[row].fields[it->second];
  }

  std::string origin_;
  std::vector<std::string> header_;
  std::map<std::string, size_t> columns_;
  std::vector<Row> rows_;
};

std::string Median(const std::string& op) { return "time_stats." + op + ".median"; }

}  // namespace

VidurMlpTable ParseVidurMlpCsv(const std::string& text, const std::string& origin) {
  const CsvColumns csv(text, origin);
  for (const char* column : {"num_tokens", "num_tensor_parallel_workers", "n_head", "n_kv_head",
                             "n_embd", "n_expanded_embd", "use_gated_mlp"}) {
    csv.Require(column);
  }
  for (const char* op : {"attn_pre_proj", "attn_post_proj", "mlp_up_proj", "mlp_down_proj",
                         "input_layernorm", "post_attention_layernorm", "attn_rope", "mlp_act", "add"}) {
    csv.Require(Median(op));
  }
  VidurMlpTable table;
  table.origin = origin;
  table.sha256 = Sha256Hex(text);
  for (size_t i = 0; i < csv.Rows(); ++i) {
    VidurMlpRow row;
    row.line = csv.Line(i);
    row.num_tokens = csv.Int(i, "num_tokens", 1);
    row.tensor_parallel = csv.Int(i, "num_tensor_parallel_workers", 1);
    row.n_head = csv.Int(i, "n_head", 1);
    row.n_kv_head = csv.Int(i, "n_kv_head", 1);
    row.n_embd = csv.Int(i, "n_embd", 1);
    row.n_expanded_embd = csv.Int(i, "n_expanded_embd", 1);
    row.gated_mlp = csv.Bool(i, "use_gated_mlp");
    row.qkv_ms = csv.Milliseconds(i, Median("attn_pre_proj"));
    row.o_ms = csv.Milliseconds(i, Median("attn_post_proj"));
    row.up_ms = csv.Milliseconds(i, Median("mlp_up_proj"));
    row.down_ms = csv.Milliseconds(i, Median("mlp_down_proj"));
    row.input_norm_ms = csv.Milliseconds(i, Median("input_layernorm"));
    row.post_norm_ms = csv.Milliseconds(i, Median("post_attention_layernorm"));
    row.rope_ms = csv.Milliseconds(i, Median("attn_rope"));
    row.act_ms = csv.Milliseconds(i, Median("mlp_act"));
    row.add_ms = csv.Milliseconds(i, Median("add"));
    table.rows.push_back(row);
  }
  if (table.rows.empty()) throw InputError(origin, 0, "", "no data rows");
  return table;
}

VidurMlpTable LoadVidurMlpCsv(const std::string& path) {
  return ParseVidurMlpCsv(ReadWholeFile(path), path);
}

VidurAttentionTable ParseVidurAttentionCsv(const std::string& text, const std::string& origin) {
  const CsvColumns csv(text, origin);
  for (const char* column : {"n_embd", "n_q_head", "n_kv_head", "block_size", "num_tensor_parallel_workers",
                             "batch_size", "prefill_chunk_size", "kv_cache_size", "is_prefill",
                             "attention_backend"}) {
    csv.Require(column);
  }
  for (const char* op : {"attn_prefill", "attn_decode", "attn_kv_cache_save"}) csv.Require(Median(op));
  VidurAttentionTable table;
  table.origin = origin;
  table.sha256 = Sha256Hex(text);
  for (size_t i = 0; i < csv.Rows(); ++i) {
    VidurAttentionRow row;
    row.line = csv.Line(i);
    row.n_embd = csv.Int(i, "n_embd", 1);
    row.n_q_head = csv.Int(i, "n_q_head", 1);
    row.n_kv_head = csv.Int(i, "n_kv_head", 1);
    row.block_size = csv.Int(i, "block_size", 1);
    row.tensor_parallel = csv.Int(i, "num_tensor_parallel_workers", 1);
    row.batch_size = csv.Int(i, "batch_size", 1);
    row.prefill_chunk_size = csv.Int(i, "prefill_chunk_size", 0);
    row.kv_cache_size = csv.Int(i, "kv_cache_size", 0);
    row.is_prefill = csv.Bool(i, "is_prefill");
    row.backend = csv.Text(i, "attention_backend");
    // A prefill point times attn_prefill, a decode point attn_decode; the
    // other may be empty.
    row.prefill_ms = row.is_prefill ? csv.Milliseconds(i, Median("attn_prefill"))
                                    : csv.OptionalMilliseconds(i, Median("attn_prefill"));
    row.decode_ms = row.is_prefill ? csv.OptionalMilliseconds(i, Median("attn_decode"))
                                   : csv.Milliseconds(i, Median("attn_decode"));
    row.kv_cache_save_ms = csv.OptionalMilliseconds(i, Median("attn_kv_cache_save"));
    if (row.is_prefill && row.prefill_chunk_size < 1) {
      throw InputError(origin, row.line, "prefill_chunk_size", "a prefill point needs >= 1 new token");
    }
    table.rows.push_back(row);
  }
  if (table.rows.empty()) throw InputError(origin, 0, "", "no data rows");
  return table;
}

VidurAttentionTable LoadVidurAttentionCsv(const std::string& path) {
  return ParseVidurAttentionCsv(ReadWholeFile(path), path);
}

VidurAllReduceTable ParseVidurAllReduceCsv(const std::string& text, const std::string& origin) {
  const CsvColumns csv(text, origin);
  for (const char* column : {"num_workers", "size", "collective"}) csv.Require(column);
  csv.Require(Median("all_reduce"));
  VidurAllReduceTable table;
  table.origin = origin;
  table.sha256 = Sha256Hex(text);
  for (size_t i = 0; i < csv.Rows(); ++i) {
    VidurAllReduceRow row;
    row.line = csv.Line(i);
    row.num_workers = csv.Int(i, "num_workers", 2);
    row.size_bytes = csv.Int(i, "size", 1);
    row.median_ms = csv.Milliseconds(i, Median("all_reduce"));
    table.rows.push_back(row);
  }
  if (table.rows.empty()) throw InputError(origin, 0, "", "no data rows");
  return table;
}

VidurAllReduceTable LoadVidurAllReduceCsv(const std::string& path) {
  return ParseVidurAllReduceCsv(ReadWholeFile(path), path);
}

}  // namespace efimsim
