#include "models/latency/moe_backend.h"

namespace efimsim {

const std::vector<std::string>& MoeBackendNames() {
  // Longest names first: "flashinfer_cutlass" before a bare "cutlass".
  static const std::vector<std::string> names = {"flashinfer_trtllm", "flashinfer_cutlass", "marlin", "triton"};
  return names;
}

std::string MoeBackendOf(const std::string& kernel) {
  for (const std::string& backend : MoeBackendNames()) {
    if (kernel.find(backend) != std::string::npos) return backend;
  }
  if (kernel.find("fused_moe") != std::string::npos) return "triton";
  return kernel;
}

std::set<std::string> MoeBackendsOf(const std::vector<ShapeMoeTable>& tables, const std::string& dtype) {
  std::set<std::string> backends;
  for (const ShapeMoeTable& t : tables) {
    if (dtype.empty() || t.key.dtype == dtype) backends.insert(MoeBackendOf(t.kernel));
  }
  return backends;
}

}  // namespace efimsim
