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

namespace efimsim::kernels {

struct CheckSummary {
  int passed = 0;
  int failed = 0;
  bool ok() const { return failed == 0 && passed > 0; }
};

// `seed` makes inputs reproducible; the harness derives it from the time so
// each run sees fresh inputs, and prints it.
CheckSummary run_checks(cuda::CublasLtGemm& cublaslt, int sm_count, std::uint64_t seed, std::ostream& log);

}  // namespace efimsim::kernels
