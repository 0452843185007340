// Readers of Vidur's profiling CSVs (microsoft/vidur, data/profiling/):
// compute/<gpu>/<model>/mlp.csv and network/<cluster>/all_reduce.csv. Plain
// comma-separated values with a header row; the first, unnamed column is a
// row index. Columns this reader does not use are allowed.
#include <charconv>
#include <cmath>
#include <map>
#include <string_view>

#include "models/import/csv_columns.h"
#include "models/import/profile_import.h"
#include "models/formats/strict_json_io.h"
#include "sim/base/errors.h"
#include "sim/base/sha256.h"

namespace efimsim {
namespace {

std::string Median(const std::string& op) { return "time_stats." + op + ".median"; }

}  // namespace

VidurMlpTable ParseVidurMlpCsv(const std::string& text, const std::string& origin) {
  const CsvColumns csv(text, origin, "a Vidur CSV");
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
  const CsvColumns csv(text, origin, "a Vidur CSV");
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
  const CsvColumns csv(text, origin, "a Vidur CSV");
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
