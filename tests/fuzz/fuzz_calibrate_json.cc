// Fuzz target: the calibration harness's reader of outside input
// (kernels/calibrate): its own JSON parser (the calibration machine has no
// JSON library) and the model spec that `efimsim-calibrate --model-spec`
// reads with it, then the kernel shapes and sweep grids derived from the
// spec, which size the GPU buffers.
//
// Input: the whole input is the JSON text.
// json::Error is the documented outcome for bad input. Invariants beyond
// "no crash": a document that parses writes out as text that parses again
// and writes out the same (the writer is deterministic and round-trips);
// a spec that is accepted gives GEMM shapes and per-token widths that are
// positive, grid points inside the model's context and the device's KV
// budget, and finite, non-negative attention FLOPs and bytes (UBSan checks
// the integer arithmetic on the way).

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "calibrate/json.h"
#include "calibrate/model_spec.h"
#include "tests/fuzz/fuzz_common.h"

namespace {

namespace json = efimsim::kernels::json;
namespace kernels = efimsim::kernels;

// 80 GB of bf16 K and V for a small model: the order of the budgets the
// harness derives from device memory.
constexpr std::int64_t kMaxKvTokens = int64_t{1} << 24;

void CheckSpec(const kernels::ModelSpec& m) {
  for (const kernels::GemmShape& gemm : kernels::gemm_shapes(m)) {
    FUZZ_CHECK(gemm.n > 0 && gemm.k > 0, "GEMM " + gemm.name + " with a non-positive dimension");
  }
  for (const kernels::ElementwiseOp& op : kernels::elementwise_ops(m)) {
    FUZZ_CHECK(op.bytes_per_token > 0, op.name + " moves no bytes per token");
  }
  for (const bool quick : {true, false}) {
    for (const kernels::PrefillPoint& p : kernels::prefill_grid(m, quick)) {
      FUZZ_CHECK(p.new_tokens > 0 && p.context_tokens >= 0 &&
                     std::int64_t{p.new_tokens} + p.context_tokens <= m.max_context_tokens,
                 "prefill point beyond the model's context");
      const double flops = kernels::prefill_attention_flops(m, p.new_tokens, p.context_tokens);
      FUZZ_CHECK(std::isfinite(flops) && flops >= 0, "prefill attention FLOPs not finite");
    }
    for (const kernels::DecodePoint& p : kernels::decode_grid(m, kMaxKvTokens, quick)) {
      FUZZ_CHECK(p.batch > 0 && p.context_tokens > 0 && p.context_tokens <= m.max_context_tokens &&
                     std::int64_t{p.batch} * p.context_tokens <= kMaxKvTokens,
                 "decode point beyond the context or the KV budget");
      const double bytes = kernels::decode_attention_bytes(m, p.batch, p.context_tokens);
      FUZZ_CHECK(std::isfinite(bytes) && bytes >= 0, "decode attention bytes not finite");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::optional<json::Value> doc;
  try {
    doc = json::parse(text);
  } catch (const json::Error&) {
    return 0;
  }
  // Write, read back, write again: the same text.
  const std::string written = json::write(*doc);
  std::optional<json::Value> reread;
  try {
    reread = json::parse(written);
  } catch (const json::Error& e) {
    FUZZ_CHECK(false, std::string("written JSON does not parse: ") + e.what());
  }
  FUZZ_CHECK(json::write(*reread) == written, "write(parse(write(doc))) != write(doc)");

  std::optional<kernels::ModelSpec> spec;
  try {
    spec = kernels::model_spec_from_json(*doc);
  } catch (const json::Error&) {
    return 0;
  }
  CheckSpec(*spec);
  return 0;
}
