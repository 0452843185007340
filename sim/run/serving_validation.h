#pragma once
// `efimsim validate-serving`: replays a real serving run's exact workload
// (traces/serving_run.h) on efimsim's vLLM v1 engine with the run's
// configuration and compares TTFT, TPOT and E2E, defined as the run's own
// tools define them, measured against predicted.

#include <optional>
#include <string>
#include <vector>

#include "traces/serving_run.h"
#include "models/latency/latency_model_registry.h"
#include "sim/metrics/frontend.h"
#include "sim/run/experiment.h"

namespace efimsim {

struct ServingValidationOptions {
  // "": from the run (its device and model names mapped to efimsim's
  // catalogue; an unmapped name is a UsageError asking for the option).
  std::string gpu;
  std::string model;
  std::string latency_model = "auto";
  // "auto": the engine's queue times when the run has them (what the run's
  // tools measure TTFT from), else the workload's schedule; "workload";
  // "engine".
  std::string arrivals = "auto";
  // Engine, latency-model and host-overhead settings the run does not
  // record (vllm-bench), or overrides (`explicit_options`: the options the
  // user gave, by CLI name); the run's values win for the rest. Read from
  // `replay` (its engine, engine_options, latency and cpu parts) through
  // the run's option rows (run_params.h).
  ExperimentConfig replay;
  std::vector<std::string> explicit_options;
  // "auto": host/GPU overlap (CpuOverheadConfig::overlap_host) as the run's
  // async_scheduling says (off when it does not say); "true"; "false".
  std::string host_overlap = "auto";
  // The API server's time outside the engine (sim/metrics/frontend.h),
  // added to predictions compared with client-side measurements (vllm-bench,
  // GuideLLM): "default" (the engine's), "none", or "US,US[,US]".
  std::string frontend = "default";
  bool check_invariants = false;  // the replay's --check-invariants
};

struct MetricComparison {
  std::string metric;  // ttft | tpot | e2e
  int64_t samples = 0;
  // mean, median, p90, p95, p99, milliseconds
  double measured[5] = {0, 0, 0, 0, 0};
  double predicted[5] = {0, 0, 0, 0, 0};
  double error[5] = {0, 0, 0, 0, 0};  // (predicted - measured) / measured
  // Per request: median of |predicted - measured| / measured.
  double per_request_median_abs_error = 0;
};

// One request, measured and predicted (ms; TPOT 0 when it has none).
struct RequestComparison {
  std::string id;
  int64_t prompt_tokens = 0, output_tokens = 0;
  double arrival_ms = 0;  // the replay's arrival
  double measured_ttft = 0, predicted_ttft = 0;
  double measured_tpot = 0, predicted_tpot = 0;
  double measured_e2e = 0, predicted_e2e = 0;
  // The client's TTFT besides the engine's (guidellm+otel); -1 without.
  double measured_client_ttft = -1, predicted_client_ttft = -1;
};

// Client minus engine TTFT per request, measured (runs with both) and as
// the frontend predicts it, and the line FitFrontend puts through the
// measured differences.
struct FrontendComparison {
  int64_t pairs = 0;
  double measured_mean_ms = 0, predicted_mean_ms = 0;
  double median_abs_error_ms = 0;  // per request |predicted - measured|
  FrontendFit fit;
};

// Requests running (first scheduled, not finished) and waiting (arrived,
// not yet scheduled) sampled once a second, measured (from the run's
// per-request timestamps) and simulated, on the replay's clock. Preempted
// requests count as running on both sides.
struct QueueComparison {
  int64_t samples = 0;
  double measured_running_mean = 0, predicted_running_mean = 0;
  double measured_waiting_mean = 0, predicted_waiting_mean = 0;
  double measured_waiting_peak = 0, predicted_waiting_peak = 0;
  double running_mean_abs_diff = 0, waiting_mean_abs_diff = 0;
};

// The prefix-cache hit rate (hit tokens / queried tokens), where the run
// logs vLLM's: its last logged value (a window over vLLM's most recent 1000
// requests' lookups) against the simulated whole run's.
struct PrefixCacheComparison {
  double measured = 0;
  double predicted = 0;
  bool same_window = false;  // the run has at most 1000 requests: both cover all of it
};

struct ServingValidation {
  std::string run_description;
  std::string arrivals;                      // what the replay's arrivals were
  std::vector<std::pair<std::string, std::string>> mapping;  // run setting -> efimsim setting
  std::vector<std::string> not_reproduced;   // named, never silently ignored
  std::string latency_model;                 // the replay's latency model, as it described itself
  FrontendCosts frontend;                    // what predictions of client-side times add
  ExperimentResult result;                   // the simulated run
  // ttft, tpot, e2e (as the run times them: ServingRun::timed_at), then
  // client_ttft and client_e2e where the run has both views.
  std::vector<MetricComparison> metrics;
  std::optional<FrontendComparison> frontend_check;  // runs with both views
  std::vector<RequestComparison> requests;   // in replay (arrival) order
  std::optional<QueueComparison> queue;      // when the run has scheduling times
  std::optional<PrefixCacheComparison> prefix_cache;  // when the run logs vLLM's hit rate
};

ServingValidation ValidateServing(const ServingRun& run, const ServingValidationOptions& options);

std::string RenderServingValidation(const ServingRun& run, const ServingValidation& validation);
void WriteServingValidationJson(const std::string& path, const ServingRun& run,
                                const ServingValidation& validation);

}  // namespace efimsim
