#include "gemm_cublaslt.h"

#include <stdexcept>

namespace efimsim::kernels::cuda {

const char* cublas_status_string(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    default: return "cublasStatus (other)";
  }
}

CublasLtGemm::CublasLtGemm() : workspace_(kWorkspaceBytes) {
  const cublasStatus_t s = cublasLtCreate(&handle_);
  if (s != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string("cublasLtCreate: ") + cublas_status_string(s));
}

CublasLtGemm::~CublasLtGemm() {
  for (auto& [shape, p] : plans_) destroy(p);
  if (handle_ != nullptr) cublasLtDestroy(handle_);
}

void CublasLtGemm::destroy(Plan& p) {
  if (p.a) cublasLtMatrixLayoutDestroy(p.a);
  if (p.b) cublasLtMatrixLayoutDestroy(p.b);
  if (p.c) cublasLtMatrixLayoutDestroy(p.c);
  if (p.op) cublasLtMatmulDescDestroy(p.op);
  p = Plan{};
}

// Row-major C[m, n] = A[m, k] * B[n, k]^T is, in cuBLAS's column-major terms,
// C^T (n x m, ld n) = op(B)(n x k) * A^T (k x m), where the row-major B is a
// column-major k x n matrix (ld k) used transposed and the row-major A is a
// column-major k x m matrix (ld k) used as is: the "TN" case.
CublasLtGemm::Plan& CublasLtGemm::plan(int m, int n, int k) {
  const auto key = std::tuple(m, n, k);
  if (auto it = plans_.find(key); it != plans_.end()) return it->second;
  Plan& p = plans_[key];
  auto ok = [&](cublasStatus_t s) {
    if (p.status == CUBLAS_STATUS_SUCCESS) p.status = s;
    return p.status == CUBLAS_STATUS_SUCCESS;
  };
  const cublasOperation_t trans = CUBLAS_OP_T, no_trans = CUBLAS_OP_N;
  cublasLtMatmulPreference_t pref = nullptr;
  if (ok(cublasLtMatmulDescCreate(&p.op, CUBLAS_COMPUTE_32F, CUDA_R_32F)) &&
      ok(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSA, &trans, sizeof trans)) &&
      ok(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSB, &no_trans, sizeof no_trans)) &&
      ok(cublasLtMatrixLayoutCreate(&p.a, CUDA_R_16BF, k, n, k)) &&  // weight B, used transposed
      ok(cublasLtMatrixLayoutCreate(&p.b, CUDA_R_16BF, k, m, k)) &&  // activations A
      ok(cublasLtMatrixLayoutCreate(&p.c, CUDA_R_16BF, n, m, n)) &&
      ok(cublasLtMatmulPreferenceCreate(&pref))) {
    const std::size_t ws = kWorkspaceBytes;
    if (ok(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws))) {
      cublasLtMatmulHeuristicResult_t result{};
      int found = 0;
      if (ok(cublasLtMatmulAlgoGetHeuristic(handle_, p.op, p.a, p.b, p.c, p.c, pref, 1, &result, &found))) {
        if (found == 0) {
          p.status = CUBLAS_STATUS_NOT_SUPPORTED;
        } else {
          p.algo = result.algo;
        }
      }
    }
  }
  if (pref) cublasLtMatmulPreferenceDestroy(pref);
  return p;
}

cublasStatus_t CublasLtGemm::run(const GemmParams& p, cudaStream_t stream) {
  if (p.m <= 0 || p.n <= 0 || p.k <= 0 || !p.a || !p.b || !p.c) return CUBLAS_STATUS_INVALID_VALUE;
  Plan& pl = plan(p.m, p.n, p.k);
  if (pl.status != CUBLAS_STATUS_SUCCESS) return pl.status;
  const float alpha = 1.0f, beta = 0.0f;
  return cublasLtMatmul(handle_, pl.op, &alpha, p.b, pl.a, p.a, pl.b, &beta, p.c, pl.c, p.c, pl.c, &pl.algo,
                        workspace_.data(), workspace_.bytes(), stream);
}

}  // namespace efimsim::kernels::cuda
