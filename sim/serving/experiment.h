#pragma once
// One run: a workload replayed under one policy on one replica, from set-up
// to summary. The CLI, tests and (later) sweeps all go through RunExperiment.

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "models/latency_model.h"
#include "sim/metrics/run_info.h"
#include "sim/metrics/summary.h"
#include "sim/serving/engine_config.h"
#include "traces/paper_workload.h"

namespace efimsim {

struct ExperimentConfig {
  std::string policy = "efim";
  std::string latency_model = "roofline";
  EngineConfig engine;
  CpuOverheadConfig cpu;            // cuda_graphs is taken from engine.cuda_graphs
  PaperWorkloadConfig workload;     // text token range is taken from the model
  int64_t max_output_tokens = 128;
  double think_time_ms = 0;
  // Optional: a flag that, once true, stops the run with Interrupted.
  const std::atomic<bool>* interrupt = nullptr;
};

struct ExperimentResult {
  std::vector<RequestRecord> records;  // in request-id order
  RunSummary summary;
  RunInfo info;                        // everything needed to reproduce the run
  int64_t efim_rebases = 0;
};

// Throws UsageError for bad settings, Interrupted when config.interrupt is
// raised; InternalError if an end-of-run
// invariant fails (every request finished or rejected, every block back with
// reference count 0, no event left).
ExperimentResult RunExperiment(const ExperimentConfig& config);

}  // namespace efimsim
