#pragma once
// The correctness gate of efimsim-calibrate: every kernel variant against its
// CPU reference (ref/reference.h) on fresh random inputs at many shapes,
// varlen batches, GQA and MHA, odd lengths and shuffled pages included.
// Outputs are poisoned with NaN first, the error is relative by norm, the
// tolerance is bf16's 1e-2, and NaN never passes. Nothing is timed unless
// every check passes.

#include <cstdint>
#include <ostream>

#include "../cuda/gemm_cublaslt.h"
#include "model_spec.h"

namespace efimsim::kernels {

struct CheckSummary {
  int passed = 0;
  int failed = 0;
  bool ok() const { return failed == 0 && passed > 0; }
};

// `seed` makes inputs reproducible; the harness derives it from the time so
// each run sees fresh inputs, and prints it.
CheckSummary run_checks(cuda::CublasLtGemm& cublaslt, int sm_count, std::uint64_t seed, std::ostream& log);
// Every kernel at one model's shapes: its five GEMMs (cuBLASLt, M = 1 and
// 19), prefill and decode attention with its heads (split factors 1, the
// default and 7), its per-token operators (its MLP activation: silu_and_mul
// or gelu) and sampling over its vocabulary (greedy and top-50).
CheckSummary run_model_checks(cuda::CublasLtGemm& cublaslt, int sm_count, const ModelSpec& spec, std::uint64_t seed,
                              std::ostream& log);

}  // namespace efimsim::kernels
