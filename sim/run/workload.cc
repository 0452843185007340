#include "sim/run/workload.h"

#include "sim/base/registry.h"

namespace efimsim {
namespace {

using WorkloadFactory = std::unique_ptr<Workload> (*)(const WorkloadContext&);

const Registry<WorkloadFactory>& Workloads() {
  static const Registry<WorkloadFactory> registry = [] {
    Registry<WorkloadFactory> r("workload");
    r.Add("efim-paper", &MakeClosedLoopPaperWorkload);
    r.Add("trace", &MakeTraceWorkload);
    r.Add("typing", &MakeTypingWorkload);
    r.Add("inference-perf", &MakeInferencePerfWorkload);
    r.Add("vllm-bench", &MakeVllmBenchWorkload);
    return r;
  }();
  return registry;
}

}  // namespace

std::unique_ptr<Workload> MakeWorkload(const std::string& name, const WorkloadContext& context) {
  const WorkloadFactory* factory = Workloads().Find(name);
  if (factory == nullptr) {
    throw UsageError("--workload: unknown workload '" + name + "' (choose one of: " +
                     Workloads().JoinedNames() + ")");
  }
  return (*factory)(context);
}

std::vector<std::string> WorkloadNames() { return Workloads().Names(); }

std::vector<RunParamTable> WorkloadOptionTables() {
  std::vector<RunParamTable> out;
  for (auto tables : {&InferencePerfOptionTables, &VllmBenchOptionTables}) {
    for (RunParamTable& table : tables()) out.push_back(std::move(table));
  }
  return out;
}

}  // namespace efimsim
