// validate-serving's JSON report. nlohmann/json stays in this file.
#include <nlohmann/json.hpp>

#include "sim/base/atomic_file.h"
#include "sim/run/serving_validation.h"

namespace efimsim {

void WriteServingValidationJson(const std::string& path, const ServingRun& run,
                                const ServingValidation& v) {
  using Json = nlohmann::ordered_json;
  Json j;
  j["kind"] = "efimsim-validate-serving";
  j["run"] = {{"format", run.format}, {"description", v.run_description}};
  Json files = Json::array();
  for (size_t i = 0; i < run.files.size(); ++i) {
    files.push_back({{"path", run.files[i]}, {"sha256", run.sha256[i]}});
  }
  j["run"]["files"] = files;
  j["arrivals"] = v.arrivals;
  Json mapping = Json::object();
  for (const auto& [k, value] : v.mapping) mapping[k] = value;
  j["configuration"] = mapping;
  j["latency_model"] = v.latency_model;
  j["frontend"] = {{"name", v.frontend.name},
                   {"source", v.frontend.source},
                   {"per_request_us", static_cast<double>(v.frontend.per_request_ns) * 1e-3},
                   {"per_prompt_token_us", static_cast<double>(v.frontend.per_prompt_token_ns) * 1e-3},
                   {"per_output_token_us", static_cast<double>(v.frontend.per_output_token_ns) * 1e-3}};
  j["run"]["timed_at"] = run.timed_at;
  j["not_reproduced"] = v.not_reproduced;
  j["simulated"] = {{"requests", v.result.summary.requests_completed},
                    {"steps", v.result.summary.engine.steps},
                    {"preemptions", v.result.summary.engine.preemptions},
                    {"prefix_cache_hit_rate", v.result.summary.prefix_cache_hit_rate},
                    {"peak_kv_usage", v.result.summary.peak_kv_usage},
                    {"kv_blocks", v.result.summary.engine.kv_blocks_total}};
  const char* stats[5] = {"mean", "median", "p90", "p95", "p99"};
  Json metrics = Json::object();
  for (const MetricComparison& c : v.metrics) {
    Json m;
    m["unit"] = "ms";
    m["samples"] = c.samples;
    for (int i = 0; i < 5; ++i) {
      m[stats[i]] = {{"measured", c.measured[i]}, {"predicted", c.predicted[i]}, {"error", c.error[i]}};
    }
    m["per_request_median_abs_error"] = c.per_request_median_abs_error;
    metrics[c.metric] = m;
  }
  j["metrics"] = metrics;
  if (v.queue) {
    const QueueComparison& q = *v.queue;
    j["queue"] = {{"samples_1s", q.samples},
                  {"running_mean", {q.measured_running_mean, q.predicted_running_mean}},
                  {"waiting_mean", {q.measured_waiting_mean, q.predicted_waiting_mean}},
                  {"waiting_peak", {q.measured_waiting_peak, q.predicted_waiting_peak}},
                  {"running_mean_abs_diff", q.running_mean_abs_diff},
                  {"waiting_mean_abs_diff", q.waiting_mean_abs_diff}};
  }
  if (v.prefix_cache) {
    j["prefix_cache_hit_rate"] = {{"measured", v.prefix_cache->measured},
                                  {"predicted", v.prefix_cache->predicted},
                                  {"same_window", v.prefix_cache->same_window}};
  }
  if (v.frontend_check) {
    const FrontendComparison& f = *v.frontend_check;
    j["frontend_check"] = {{"pairs", f.pairs},
                           {"client_minus_engine_ttft_mean_ms", {f.measured_mean_ms, f.predicted_mean_ms}},
                           {"per_request_median_abs_error_ms", f.median_abs_error_ms},
                           {"fit", {{"per_request_ms", f.fit.per_request_ms},
                                    {"per_prompt_token_us", f.fit.per_prompt_token_us},
                                    {"kept", f.fit.kept},
                                    {"median_abs_residual_ms", f.fit.median_abs_residual_ms},
                                    {"mean_residual_ms", f.fit.mean_residual_ms}}}};
  }
  Json requests = Json::array();
  for (const RequestComparison& r : v.requests) {
    Json request = {{"id", r.id}, {"prompt_tokens", r.prompt_tokens},
                    {"output_tokens", r.output_tokens}, {"arrival_ms", r.arrival_ms},
                    {"ttft_ms", {r.measured_ttft, r.predicted_ttft}},
                    {"tpot_ms", {r.measured_tpot, r.predicted_tpot}},
                    {"e2e_ms", {r.measured_e2e, r.predicted_e2e}}};
    if (r.measured_client_ttft >= 0) {
      request["client_ttft_ms"] = {r.measured_client_ttft, r.predicted_client_ttft};
    }
    requests.push_back(request);
  }
  j["requests_measured_predicted"] = requests;
  AtomicOutputFile file(path);
  file.stream() << j.dump(2) << "\n";
  file.Commit();
}

}  // namespace efimsim
