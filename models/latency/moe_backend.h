#pragma once
// The MoE backend a fused-MoE kernel belongs to: the kernel family a serving
// engine chooses between (vLLM logs "Using <X> MoE backend"; SGLang's
// --moe-runner-backend). AIConfigurator names each timed kernel
// (kernel_source: "sglang_fused_moe_triton",
// "vllm_fp8moe_flashinfer_trtllm_trtllmfp8expertsmonolithic", ...); kernels
// of one backend differ in fusion and quantization, kernels of two backends
// in how they tile and schedule the expert GEMMs, so the MoE shape rule
// transfers within a backend when the run names one.

#include <set>
#include <string>
#include <vector>

#include "models/formats/shape_profile.h"

namespace efimsim {

// The backends --moe-backend accepts, besides "auto".
const std::vector<std::string>& MoeBackendNames();

// The backend of a kernel_source name: the first of MoeBackendNames() whose
// name the kernel's contains ("fused_moe", vLLM's and SGLang's Triton kernel,
// is "triton"); a kernel of none of them is its own backend.
std::string MoeBackendOf(const std::string& kernel);

// The backends of `tables` (of `dtype` only, where given), in name order.
std::set<std::string> MoeBackendsOf(const std::vector<ShapeMoeTable>& tables, const std::string& dtype = "");

}  // namespace efimsim
