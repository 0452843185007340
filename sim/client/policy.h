#pragma once
// A cache policy as the paper compares them: a prompt format plus whether
// the server's prefix cache is on.
//   baseline: psm, prefix caching off (the paper's reference)
//   fim:      psm, prefix caching on
//   spm:      spm, prefix caching on
//   efim:     efim, prefix caching on

#include <string>
#include <vector>

namespace efimsim {

struct PolicySpec {
  std::string name;
  std::string prompt_format;
  bool prefix_caching = true;
  std::string help;
};

std::vector<PolicySpec> AllPolicies();
// Throws UsageError naming the valid policies.
const PolicySpec& GetPolicy(const std::string& name);

}  // namespace efimsim
