#pragma once
// --compare-torch: runs calibrate/compare_torch.py (python3 + PyTorch) on a
// list of shapes and returns PyTorch's median times. When python3 or torch is
// missing it says so and returns no results; the harness continues.

#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace efimsim::kernels {

struct TorchCase {
  std::string id;
  std::string op;  // "matmul" | "sdpa"
  int m = 0, n = 0, k = 0;                                              // matmul
  int new_tokens = 0, context_tokens = 0, q_heads = 0, kv_heads = 0, head_dim = 0;  // sdpa
};

struct TorchResults {
  bool available = false;
  std::string torch_version;
  std::map<std::string, double> time_us;     // by case id
  std::map<std::string, std::string> notes;  // errors and notes by case id
};

TorchResults run_torch_cases(const std::vector<TorchCase>& cases, const std::string& python,
                             const std::string& script, int warmup, int reps, std::size_t flush_bytes,
                             std::ostream& log);

}  // namespace efimsim::kernels
