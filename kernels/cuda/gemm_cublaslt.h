#pragma once
// The GEMM path a serving engine uses: cuBLASLt, bf16 inputs and output,
// fp32 compute, with a workspace and the heuristic's first algorithm (what
// PyTorch's cuBLASLt path does). Plans (descriptors + algorithm) are built
// once per (m, n, k) and cached, so a timed run() only enqueues the matmul.

#include <cublasLt.h>

#include <cstddef>
#include <map>
#include <string>
#include <tuple>

#include "device_buffer.h"
#include "kernels.h"

namespace efimsim::kernels::cuda {

const char* cublas_status_string(cublasStatus_t s);

class CublasLtGemm {
 public:
  static constexpr std::size_t kWorkspaceBytes = 32u << 20;

  // Throws std::runtime_error if the handle or workspace cannot be made.
  CublasLtGemm();
  ~CublasLtGemm();
  CublasLtGemm(const CublasLtGemm&) = delete;
  CublasLtGemm& operator=(const CublasLtGemm&) = delete;

  // C = A * B^T with GemmParams' layouts. CUBLAS_STATUS_NOT_SUPPORTED when the
  // heuristic finds no algorithm for the shape.
  cublasStatus_t run(const GemmParams& p, cudaStream_t stream);

 private:
  struct Plan {
    cublasLtMatmulDesc_t op = nullptr;
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
    cublasLtMatmulAlgo_t algo{};
    cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
  };
  Plan& plan(int m, int n, int k);
  static void destroy(Plan& p);

  cublasLtHandle_t handle_ = nullptr;
  DeviceBuffer<unsigned char> workspace_;
  std::map<std::tuple<int, int, int>, Plan> plans_;
};

}  // namespace efimsim::kernels::cuda
