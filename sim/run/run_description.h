#pragma once
// What a run writes about itself into summary.json's run info: the
// sections every run has (policy, workload, model, GPU, latency model,
// engine), and those only some have (output lengths, cluster, warnings).
// Section order is part of the output format: callers keep it.

#include <string>
#include <vector>

#include "models/latency/latency_model.h"
#include "models/formats/model_spec.h"
#include "sim/client/output_length.h"
#include "sim/client/policy.h"
#include "sim/engine/engines.h"
#include "sim/engine/kv_capacity.h"
#include "sim/metrics/run_info.h"
#include "sim/metrics/summary.h"
#include "sim/engine/kv_link.h"
#include "sim/run/disaggregated_router.h"
#include "sim/run/experiment.h"
#include "sim/run/workload.h"

namespace efimsim {

// policy, workload, model, gpu, latency_model and engine.
void DescribeRun(const ExperimentConfig& config, const PolicySpec& policy,
                 const Workload& workload, const ModelSpec& model, const GpuSpec& gpu,
                 const LatencyModel& latency, const KvCapacity& capacity,
                 const EngineEntry& engine, const EngineContext& engine_context,
                 bool default_output_length, RunInfo& info);

// The output-length model and what it gave: output tokens of the completed
// requests (cancelled ones stopped early and are left out).
void DescribeOutputLengths(const OutputLengthModel& model, const std::vector<int64_t>& tokens,
                           RunInfo& info);

// Clusters (replicas > 1): the router and each replica's requests, steps,
// hit rate and peak KV usage, and the router's note on how it routed
// (RoutingPolicy::Note), if any.
void DescribeCluster(const ExperimentConfig& config, const std::vector<EngineCounters>& replicas,
                     const std::vector<int64_t>& routed, const std::string& router_note,
                     RunInfo& info);

// Data parallelism (--data-parallel-size > 1): the "data_parallel" section:
// ranks per replica, GPUs, how ranks step (together for an MoE model) and
// are routed to, and the group steps in which a rank ran a dummy batch.
void DescribeDataParallel(const ExperimentConfig& config, const ModelSpec& model, DataParallelRouting routing,
                          int64_t dummy_steps, RunInfo& info);

// Disaggregated serving (prefill_replicas > 0): the "disaggregation"
// section: both pools (per replica: requests routed, steps, prefix-cache
// hit rate, peak KV usage, busy fraction = step time / makespan; replicas
// 0..P-1 are the prefill pool), the KV
// link, the prefill pool's hand-offs and the model's simplifications.
// `decode_latency`: the decode pool's own latency model when it has its own
// GPU or TP (then its GPU, TP, blocks and model are listed), else null.
void DescribeDisaggregation(const ExperimentConfig& config,
                            const std::vector<EngineCounters>& replicas,
                            const std::vector<int64_t>& prefill_routed,
                            const std::vector<int64_t>& decode_routed,
                            const PrefillPoolStats& prefill, const KvLinkSpec& link,
                            Duration makespan, const LatencyModel* decode_latency,
                            RunInfo& info);

// Trace lines skipped for their length (into the summary and a warning) and
// rejected requests (a warning naming the first).
void DescribeWarnings(const ExperimentConfig& config, const Workload& workload, int64_t rejected,
                      const std::string& first_rejection, RunSummary& summary, RunInfo& info);

}  // namespace efimsim
