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

std::unique_ptr<TraceReplayClient> MakeTraceReplayClient(const ExperimentConfig& config,
                                                         Simulator& simulator, TraceReader& reader,
                                                         RequestSink& sink,
                                                         const TextPromptBuilder* builder,
                                                         const std::string& name) {
  CompletionClientConfig completion = config.completion;
  completion.max_output_tokens = config.max_output_tokens;
  const TimePoint stop = config.duration_s > 0 ? TimePoint{FromSeconds(config.duration_s)}
                                               : TimePoint::max();
  return std::make_unique<TraceReplayClient>(simulator, reader, sink, builder, completion, name, stop);
}

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
