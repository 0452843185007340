#include "sim/serving/experiment.h"

#include <algorithm>

#include "models/latency_model_registry.h"
#include "models/spec_catalog.h"
#include "sim/base/check.h"
#include "sim/base/errors.h"
#include "sim/client/closed_loop_client.h"
#include "sim/client/policy.h"
#include "sim/serving/kv_capacity.h"
#include "sim/serving/replica.h"

namespace efimsim {
namespace {

// Collects records and closes the loop back to the client.
class RunObserver : public RequestObserver {
 public:
  void set_client(ClosedLoopClient* client) { client_ = client; }
  void OnRequestFinished(const RequestRecord& record) override {
    records.push_back(record);
    client_->OnResponseComplete(record.user);
  }
  void OnRequestCancelled(const RequestRecord& record) override {
    records.push_back(record);
  }
  void OnRequestRejected(const ClientRequest& request, const std::string& reason) override {
    ++rejected;
    if (first_rejection.empty()) {
      first_rejection = "request " + std::to_string(request.request_id) + ": " + reason;
    }
    client_->OnResponseComplete(request.user);  // the user moves on
  }
  std::vector<RequestRecord> records;
  int64_t rejected = 0;
  std::string first_rejection;

 private:
  ClosedLoopClient* client_ = nullptr;
};

void DescribeRun(const ExperimentConfig& config, const PolicySpec& policy,
                 const PaperWorkload& workload, const ModelSpec& model, const GpuSpec& gpu,
                 const LatencyModel& latency, const KvCapacity& capacity, RunInfo& info) {
  auto& p = info.Section("policy").settings;
  p.push_back({"name", policy.name});
  p.push_back({"prompt_format", policy.prompt_format});
  p.push_back({"prefix_caching", policy.prefix_caching});

  auto& w = info.Section("workload").settings;
  w.push_back({"name", workload.Name()});
  w.push_back({"description", workload.Description()});
  w.push_back({"documents", std::string("synthetic tokens")});
  w.push_back({"users", config.workload.users});
  w.push_back({"rounds", config.workload.rounds});
  w.push_back({"doc_min_tokens", config.workload.doc_min_tokens});
  w.push_back({"doc_max_tokens", config.workload.doc_max_tokens});
  w.push_back({"max_output_tokens", config.max_output_tokens});
  w.push_back({"output_length", std::string("always max_output_tokens (no early stop)")});
  w.push_back({"think_time_ms", config.think_time_ms});
  w.push_back({"seed", static_cast<int64_t>(config.workload.seed)});

  auto& m = info.Section("model").settings;
  m.push_back({"name", model.name});
  m.push_back({"weights_gib", static_cast<double>(model.WeightBytes()) / (1 << 30)});
  m.push_back({"kv_bytes_per_token", model.KvBytesPerToken()});

  auto& g = info.Section("gpu").settings;
  g.push_back({"name", gpu.name});
  g.push_back({"description", gpu.description});
  g.push_back({"memory_bytes", gpu.memory_bytes});

  auto& l = info.Section("latency_model").settings;
  l.push_back({"name", latency.Name()});
  l.push_back({"description", latency.Description()});
  l.push_back({"cpu_step_overhead_us", config.cpu.step_us});
  l.push_back({"cpu_per_sequence_overhead_us", config.cpu.per_sequence_us});
  l.push_back({"eager_launch_per_layer_us", config.cpu.eager_launch_per_layer_us});
  l.push_back({"graph_launch_us", config.cpu.graph_launch_us});

  auto& e = info.Section("engine").settings;
  e.push_back({"name", std::string("vllm_v1")});
  e.push_back({"semantics", std::string("vLLM v1 engine, 0.9-0.10 series: synchronous "
                                        "scheduling, FCFS, chunked prefill, recompute "
                                        "preemption, automatic prefix caching")});
  for (const auto& param : EngineParams()) {
    std::visit([&](auto member) { e.push_back({param.info.name, config.engine.*member}); },
               param.field);
  }
  e.push_back({"kv_blocks_effective", capacity.blocks});
  e.push_back({"kv_tokens_effective", capacity.tokens});
  e.push_back({"kv_cache_gib", capacity.kv_gib});
}

}  // namespace

ExperimentResult RunExperiment(const ExperimentConfig& config) {
  const PolicySpec& policy = GetPolicy(config.policy);
  const ModelSpec model = LoadModelSpec(config.engine.model);
  const GpuSpec gpu = LoadGpuSpec(config.engine.gpu);
  if (config.max_output_tokens < 1) throw UsageError("--max-tokens: must be at least 1");
  if (config.think_time_ms < 0) throw UsageError("--think-time-ms: must be >= 0");
  const KvCapacity capacity = ComputeKvCapacity(config.engine, model, gpu);

  CpuOverheadConfig cpu = config.cpu;
  cpu.cuda_graphs = config.engine.cuda_graphs;
  const std::unique_ptr<LatencyModel> latency =
      MakeLatencyModel(config.latency_model, model, gpu, cpu);

  PaperWorkloadConfig workload_config = config.workload;
  workload_config.text_first = model.tokens.text_first;
  workload_config.text_last = model.tokens.text_last;
  const PaperWorkload workload(workload_config);
  const std::unique_ptr<PromptFormat> format = MakePromptFormat(policy.prompt_format, model.tokens);

  ReplicaConfig replica_config;
  replica_config.limits = {config.engine.max_num_batched_tokens, config.engine.max_num_seqs};
  replica_config.block_tokens = static_cast<int32_t>(config.engine.block_tokens);
  replica_config.num_blocks = static_cast<int32_t>(capacity.blocks);
  replica_config.prefix_caching = policy.prefix_caching;
  replica_config.check_invariants = config.engine.check_invariants;
  replica_config.max_context_tokens = model.max_context_tokens;
  replica_config.output_token_first = model.tokens.text_first;
  replica_config.output_token_last = model.tokens.text_last;

  Simulator simulator;
  simulator.set_interrupt_flag(config.interrupt);
  RunObserver observer;
  Replica replica(simulator, replica_config, *latency, observer);
  ClosedLoopConfig client_config;
  client_config.max_output_tokens = config.max_output_tokens;
  client_config.think_time = FromSeconds(config.think_time_ms / 1000.0);
  ClosedLoopClient client(simulator, workload, *format, replica, client_config);
  observer.set_client(&client);

  client.Start();
  simulator.Run();

  // End-of-run invariants.
  EFIMSIM_CHECK(simulator.pending_events() == 0, "events left in the queue");
  EFIMSIM_CHECK(replica.idle(), "requests left unfinished");
  EFIMSIM_CHECK(client.users_done() == workload.num_users(), "a user did not finish");
  EFIMSIM_CHECK(static_cast<int64_t>(observer.records.size()) + observer.rejected ==
                    client.requests_sent(),
                "finished + rejected != sent");
  EFIMSIM_CHECK(replica.cache().pool().num_free_blocks() == replica.cache().pool().num_blocks(),
                "KV blocks not returned to the pool");
  replica.CheckInvariants();

  ExperimentResult result;
  result.records = std::move(observer.records);
  std::sort(result.records.begin(), result.records.end(),
            [](const RequestRecord& a, const RequestRecord& b) { return a.request_id < b.request_id; });
  EngineCounters counters = replica.Counters();
  counters.events = static_cast<int64_t>(simulator.events_handled());
  result.summary = SummarizeRun(result.records, counters);
  result.efim_rebases = client.rebases();
  DescribeRun(config, policy, workload, model, gpu, *latency, capacity, result.info);
  if (observer.rejected > 0) {
    result.info.Section("warnings").settings.push_back(
        {"rejected_requests", observer.first_rejection + " (and " +
                                  std::to_string(observer.rejected - 1) + " more)"});
  }
  return result;
}

}  // namespace efimsim
