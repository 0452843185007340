#include "sim/run/workload.h"

#include "sim/base/registry.h"

namespace efimsim {
namespace {

struct WorkloadEntry {
  std::unique_ptr<Workload> (*make)(const WorkloadContext&) = nullptr;
  WorkloadCapacityAxes capacity;
  MemoryItem (*memory)(const ExperimentConfig&) = nullptr;  // null: streams its requests
};

const Registry<WorkloadEntry>& Workloads() {
  using Rate = WorkloadCapacityAxes::Rate;
  static const Registry<WorkloadEntry> registry = [] {
    Registry<WorkloadEntry> r("workload");
    r.Add("efim-paper", {&MakeClosedLoopPaperWorkload, {true, true, Rate::kNone}});
    r.Add("trace", {&MakeTraceWorkload, {false, false, Rate::kArrivals}});
    r.Add("typing", {&MakeTypingWorkload, {true, false, Rate::kSessions}});
    // Its load stages wait on completions: no arrival schedule to scale.
    r.Add("inference-perf",
          {&MakeInferencePerfWorkload, {false, false, Rate::kNone}, &InferencePerfMemory});
    r.Add("vllm-bench",
          {&MakeVllmBenchWorkload, {false, false, Rate::kArrivals}, &VllmBenchMemory});
    return r;
  }();
  return registry;
}

}  // namespace

MemoryItem WorkloadMemory(const ExperimentConfig& config) {
  const WorkloadEntry& entry = Workloads().Get(config.workload);
  return entry.memory != nullptr ? entry.memory(config) : MemoryItem{};
}

WorkloadCapacityAxes CapacityAxes(const std::string& name) {
  return Workloads().Get(name).capacity;
}

std::string WorkloadsWithAxis(bool (*has)(const WorkloadCapacityAxes& axes)) {
  std::vector<std::string> names;
  for (const std::string& name : Workloads().Names()) {
    if (has(Workloads().Get(name).capacity)) names.push_back(name);
  }
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  }
  return out;
}

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
  const WorkloadEntry* entry = Workloads().Find(name);
  if (entry == nullptr) {
    throw UsageError("--workload: unknown workload '" + name + "' (choose one of: " +
                     Workloads().JoinedNames() + ")");
  }
  return entry->make(context);
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
