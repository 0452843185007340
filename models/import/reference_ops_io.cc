// Reader of the PyTorch reference's op-level timing files
// (../shared/data/gpu/h100-pytorch-reference/<model>.ops.runN.json, written
// by that folder's measure.py). Keys this reader does not use are allowed:
// the file is another program's output.
#include <nlohmann/json.hpp>

#include "models/import/profile_import.h"
#include "models/formats/strict_json_io.h"
#include "sim/base/errors.h"
#include "sim/base/sha256.h"

namespace efimsim {
namespace {

using nlohmann::json;

// A time in milliseconds: > 0 and < kMaxSourceMilliseconds.
double Milliseconds(StrictObject& row, const std::string& key) {
  const double ms = row.Positive(key);
  if (ms >= kMaxSourceMilliseconds) throw InputError(row.origin(), 0, row.Path(key), "must be < 1e6 ms");
  return ms;
}

std::string Indexed(const std::string& path, size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

}  // namespace

ReferenceOps ParseReferenceOps(const std::string& json_text, const std::string& origin) {
  const json root_json = ParseJson(json_text, origin);
  StrictObject root(root_json, origin, "");
  ReferenceOps ops;
  ops.origin = origin;
  ops.sha256 = Sha256Hex(json_text);
  ops.model = root.String("model");

  StrictObject config(root.Field("config"), origin, "config");
  ops.hidden = config.Int("hidden", 1);
  ops.layers = config.Int("layers", 1);
  ops.heads = config.Int("heads", 1);
  ops.kv_heads = config.Int("kv_heads", 1);
  ops.head_dim = config.Int("head_dim", 1);
  ops.inter = config.Int("inter", 1);
  ops.vocab = config.Int("vocab", 1);

  StrictObject device(root.Field("device"), origin, "device");
  ops.torch_version = device.String("torch");
  ops.device = device.String("device");
  ops.sm_count = device.Int("sms", 1);
  StrictObject ceilings(device.Field("ceilings"), origin, "device.ceilings");
  ops.gemm_tflops = ceilings.Positive("bf16_gemm_tflops");
  ops.copy_tbps = ceilings.Positive("d2d_copy_tb_s");

  StrictObject op_tables(root.Field("ops"), origin, "ops");
  const json& gemm = op_tables.Array("gemm");
  for (size_t i = 0; i < gemm.size(); ++i) {
    StrictObject row(gemm[i], origin, Indexed("ops.gemm", i));
    ReferenceGemmRow r;
    r.op = row.String("op");
    if (r.op != "qkv" && r.op != "o" && r.op != "gate_up" && r.op != "down" && r.op != "lm_head") {
      throw InputError(origin, 0, row.Path("op"),
                       "unknown GEMM \"" + r.op + "\" (known: qkv, o, gate_up, down, lm_head)");
    }
    r.m = row.Int("M", 1);
    r.k = row.Int("K", 1);
    r.n = row.Int("N", 1);
    r.median_ms = Milliseconds(row, "median_ms");
    ops.gemm.push_back(r);
  }
  const json& attention = op_tables.Array("attention");
  for (size_t i = 0; i < attention.size(); ++i) {
    StrictObject row(attention[i], origin, Indexed("ops.attention", i));
    ReferenceAttentionRow r;
    const std::string kind = row.String("kind");
    if (kind == "prefill") {
      r.prefill = true;
      r.rows = row.Int("q", 2);
      r.keys = row.Int("cached", 0);
    } else if (kind == "decode") {
      r.rows = row.Int("batch", 1);
      r.keys = row.Int("context", 1);
    } else {
      throw InputError(origin, 0, row.Path("kind"), "expected \"prefill\" or \"decode\"");
    }
    r.median_ms = Milliseconds(row, "median_ms");
    ops.attention.push_back(r);
  }
  if (ops.gemm.empty()) throw InputError(origin, 0, "ops.gemm", "empty list");
  return ops;
}

ReferenceOps LoadReferenceOps(const std::string& path) {
  return ParseReferenceOps(ReadWholeFile(path), path);
}

}  // namespace efimsim
