// GPU test (ctest label "gpu"): every kernel variant against its CPU
// reference, the same checks efimsim-calibrate runs before timing. Where no
// CUDA device is present it prints why and exits 77, which ctest reports as
// skipped (SKIP_RETURN_CODE).

#include <cuda_runtime.h>

#include <cstdio>
#include <iostream>

#include "../calibrate/checks.h"

int main() {
  int devices = 0;
  const cudaError_t err = cudaGetDeviceCount(&devices);
  if (err != cudaSuccess || devices == 0) {
    std::printf("SKIP: no CUDA device (%s); GPU checks need a GPU\n",
                err != cudaSuccess ? cudaGetErrorString(err) : "device count is 0");
    return 77;
  }
  try {
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    efimsim::kernels::cuda::CublasLtGemm cublaslt;
    const auto s = efimsim::kernels::run_checks(cublaslt, sms, 20261123, std::cout);
    std::printf("%d passed, %d failed\n", s.passed, s.failed);
    return s.ok() ? 0 : 1;
  } catch (const std::exception& e) {
    std::printf("error: %s\n0 passed, 1 failed\n", e.what());
    return 1;
  }
}
