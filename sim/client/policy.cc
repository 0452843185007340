#include "sim/client/policy.h"

#include "sim/base/registry.h"

namespace efimsim {
namespace {

const Registry<PolicySpec>& Policies() {
  static const Registry<PolicySpec> registry = [] {
    Registry<PolicySpec> r("policy");
    auto add = [&r](PolicySpec spec) { r.Add(spec.name, spec); };
    add({"baseline", "psm", false, "PSM prompts with prefix caching off (the paper's reference)"});
    add({"fim", "psm", true, "PSM prompts with prefix caching on"});
    add({"spm", "spm", true, "SPM prompts with prefix caching on"});
    add({"efim", "efim", true, "EFIM prompts (typed text after <MID>) with prefix caching on"});
    return r;
  }();
  return registry;
}

}  // namespace

std::vector<PolicySpec> AllPolicies() {
  std::vector<PolicySpec> out;
  for (const std::string& name : Policies().Names()) out.push_back(Policies().Get(name));
  return out;
}

const PolicySpec& GetPolicy(const std::string& name) { return Policies().Get(name); }

}  // namespace efimsim
