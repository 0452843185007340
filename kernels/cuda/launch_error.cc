// The reason behind a launcher's cudaErrorInvalidValue, per host thread, so
// the harness can say which shape a kernel does not support instead of
// printing only "invalid argument".

#include "kernels.h"

namespace efimsim::kernels::cuda {
namespace {
thread_local std::string g_last_launch_error;
}  // namespace

const std::string& last_launch_error() { return g_last_launch_error; }

cudaError_t set_launch_error(const std::string& why) {
  g_last_launch_error = why;
  return cudaErrorInvalidValue;
}

}  // namespace efimsim::kernels::cuda
