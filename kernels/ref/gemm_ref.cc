#include <algorithm>
#include <stdexcept>
#include <vector>

#include "parallel.h"
#include "reference.h"

namespace efimsim::kernels {

void gemm_ref(int m, int n, int k, std::span<const bf16> a, std::span<const bf16> b,
              std::span<float> c) {
  if (m < 0 || n < 0 || k < 0 || a.size() != static_cast<std::size_t>(m) * k ||
      b.size() != static_cast<std::size_t>(n) * k || c.size() != static_cast<std::size_t>(m) * n) {
    throw std::invalid_argument("gemm_ref: span sizes do not match m, n, k");
  }
  const std::vector<float> af = to_float(a);
  const std::vector<float> bf = to_float(b);
  // One work item per (row, block of kColumnsPerItem columns), so that the
  // M = 1 and M = 19 rows of the per-model checks use every core too.
  constexpr int kColumnsPerItem = 256;
  const std::int64_t blocks_per_row = (n + kColumnsPerItem - 1) / kColumnsPerItem;
  parallel_for(static_cast<std::int64_t>(m) * blocks_per_row, [&](std::int64_t item) {
    const std::int64_t row = item / blocks_per_row;
    const int col_begin = static_cast<int>(item % blocks_per_row) * kColumnsPerItem;
    const int col_end = std::min(n, col_begin + kColumnsPerItem);
    const float* ar = af.data() + row * k;
    for (int col = col_begin; col < col_end; ++col) {
      const float* br = bf.data() + static_cast<std::size_t>(col) * k;
      // Four independent fp64 partial sums: exact products of bf16 values,
      // and a sum order that does not depend on the thread count.
      double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      int i = 0;
      for (; i + 4 <= k; i += 4) {
        s0 += static_cast<double>(ar[i]) * br[i];
        s1 += static_cast<double>(ar[i + 1]) * br[i + 1];
        s2 += static_cast<double>(ar[i + 2]) * br[i + 2];
        s3 += static_cast<double>(ar[i + 3]) * br[i + 3];
      }
      for (; i < k; ++i) s0 += static_cast<double>(ar[i]) * br[i];
      c[static_cast<std::size_t>(row) * n + col] = static_cast<float>((s0 + s1) + (s2 + s3));
    }
  });
}

}  // namespace efimsim::kernels
