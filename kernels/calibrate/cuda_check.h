#pragma once
// Every CUDA call in the harness goes through CUDA_CHECK: a failure throws
// with the call, file and line, and the run stops loudly.

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "../cuda/kernels.h"

namespace efimsim::kernels {

class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline void cuda_check(cudaError_t err, const char* what, const char* file, int line) {
  if (err != cudaSuccess) {
    throw CudaError(std::string(file) + ":" + std::to_string(line) + ": " + what + ": " + cudaGetErrorName(err) +
                    " (" + cudaGetErrorString(err) + ")");
  }
}

}  // namespace efimsim::kernels

#define CUDA_CHECK(call) ::efimsim::kernels::cuda_check((call), #call, __FILE__, __LINE__)
// After a launch: the launcher's status (with the reason a launcher gave for
// refusing the shapes, launch_config.h), then any error the launch left behind.
#define LAUNCH_CHECK(call)                                                                                \
  do {                                                                                                    \
    ::efimsim::kernels::cuda::set_launch_error(std::string());                                            \
    const cudaError_t launch_err_ = (call);                                                               \
    const std::string& why_ = ::efimsim::kernels::cuda::last_launch_error();                              \
    ::efimsim::kernels::cuda_check(launch_err_, why_.empty() ? #call : (std::string(#call) + " [" + why_ + "]").c_str(), \
                                   __FILE__, __LINE__);                                                   \
    ::efimsim::kernels::cuda_check(cudaGetLastError(), "after " #call, __FILE__, __LINE__);               \
  } while (false)
