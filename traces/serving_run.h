#pragma once
// A real serving run read from disk, for `efimsim validate-serving`: the
// requests a real engine answered (prompt, forced output length, arrival)
// with what it measured for each, and the engine configuration it ran with.
//
// Two formats:
//   llmservingsim  LLMServingSim's bench layout (casys-kaist/LLMServingSim,
//                  bench/): a workload JSONL (input_toks, output_toks,
//                  arrival_time_ns, input_tok_ids), and the run's
//                  vllm/requests.jsonl (request_id, input_toks, output_toks,
//                  arrival_time, queued_ts, scheduled_ts, first_token_ts,
//                  last_token_ts; seconds) and vllm/meta.json (the engine's
//                  resolved configuration, the dataset's sha256).
//   vllm-bench     `vllm bench serve --save-result --save-detailed` JSON
//                  (vllm/benchmarks/serve.py): input_lens, output_lens,
//                  ttfts, itls, errors, and where the version writes them
//                  latencies and start_times (seconds). No token ids and no
//                  engine configuration.
//   otel           vLLM's OpenTelemetry request spans (`--otlp-traces-endpoint`
//                  collected to OTLP/JSON, one export per line): one
//                  `llm_request` span per request with gen_ai.latency.* (s)
//                  and gen_ai.usage.* attributes; the engine's view.
//   guidellm       GuideLLM's results JSON (benchmarks[].requests.successful[]:
//                  prompt_tokens, output_tokens, time_to_first_token_ms,
//                  request_latency, request_start_time); the client's view.
//   guidellm+otel  both, paired by GuideLLM's response_id = the span's
//                  gen_ai.request.id without its "-0" choice suffix.
//                  With either, the server's vllm.log (version, model,
//                  engine arguments, KV blocks) when given.
// Every reader error is an InputError naming the file, the 1-based line (0 =
// the whole file) and the field.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/base/tokens.h"

namespace efimsim {

struct ServingRunRequest {
  std::string id;            // the run's request id (or the index, vllm-bench)
  int64_t prompt_tokens = 0;
  int64_t output_tokens = 0;
  TokenVector token_ids;     // empty when the run has no token ids
  // Arrival of the request for the replay, ns from the first request's:
  // the workload's schedule (llmservingsim: arrival_time_ns) ...
  int64_t workload_arrival_ns = 0;
  // ... and when the engine queued it (llmservingsim: queued_ts), or the
  // client's send time (vllm-bench: start_times); -1 if unknown.
  int64_t engine_arrival_ns = -1;
  // Measured, milliseconds, defined as the run's own tools define them
  // (LLMServingSim bench/core/validate.py; vLLM serve.py calculate_metrics):
  // TTFT and E2E from queued_ts (vllm-bench: from the client's send), TPOT =
  // (last - first) / (output - 1) for outputs > 1.
  // When the engine first scheduled it, ms after its engine arrival; -1 if
  // the run does not say (vllm-bench).
  double scheduled_ms = -1;
  double ttft_ms = 0;
  double e2e_ms = 0;
  bool has_tpot = false;
  double tpot_ms = 0;
  // The client's TTFT and E2E (ms, from its send) when the run has them
  // besides the engine's ttft_ms and e2e_ms (guidellm+otel); -1 otherwise.
  double client_ttft_ms = -1;
  double client_e2e_ms = -1;
};

// The engine configuration the run recorded, under vLLM's names; a field the
// format does not carry stays unset.
struct ServingRunEngine {
  std::string vllm_version;
  std::string model;         // e.g. meta-llama/Llama-3.1-8B
  std::string device_name;   // e.g. NVIDIA GeForce RTX 4090
  std::optional<int64_t> max_num_seqs, max_num_batched_tokens, block_size, num_gpu_blocks,
      tensor_parallel_size, data_parallel_size, max_model_len;
  std::optional<bool> enable_prefix_caching, enforce_eager, enable_chunked_prefill,
      async_scheduling;
  std::optional<std::string> cudagraph_mode, kv_cache_dtype, dtype, scheduler_policy,
      speculative_config;
  std::vector<int64_t> cudagraph_capture_sizes;
  std::optional<int64_t> long_prefill_token_threshold, max_num_partial_prefills,
      stream_interval;
  std::optional<double> request_rate;  // vllm-bench: the client's configured rate (inf allowed)
  std::optional<int64_t> max_concurrency;
  std::optional<double> gpu_memory_utilization;  // vllm.log, when given
  std::optional<int64_t> kv_cache_tokens;        // vllm.log's "GPU KV cache size"
  // vllm.log's last "Prefix cache hit rate: X%" (vllm.v1.metrics.loggers),
  // as a fraction: vLLM's hit tokens / queried tokens over its most recent
  // 1000 requests' lookups (PrefixCachingMetrics), at the run's end.
  std::optional<double> logged_prefix_cache_hit_rate;
};

struct ServingRun {
  std::string format;        // "llmservingsim" | "vllm-bench" | "otel" | "guidellm" | "guidellm+otel"
  // Where ttft_ms and e2e_ms start: "engine" (when the engine queued the
  // request: llmservingsim, otel, guidellm+otel) or "client" (the client's
  // send: vllm-bench, guidellm).
  std::string timed_at = "engine";
  std::vector<std::string> files;    // what was read, in order
  std::vector<std::string> sha256;   // of each file, same order
  std::string description;   // one line: where it came from
  ServingRunEngine engine;
  std::vector<ServingRunRequest> requests;  // in the workload's order (arrival order)
  // How the requests' token_ids were made where the run does not record
  // them (guidellm: rebuilt from the prompt texts); empty when they are the
  // run's own or absent.
  std::string token_ids_rule;
  // Requests the run lists but that are left out of the comparison
  // (vllm-bench: failed ones), with why.
  std::vector<std::string> excluded;
};

// Reads a run from the command's paths: a folder holding traces.json and/or
// guidellm-results.json (and vllm.log), the files of such a run in any order
// (told apart by content; *.log is the vllm.log), a folder (the LLMServingSim run
// folder holding vllm/{meta.json,requests.jsonl} or those files directly; the
// workload is found from meta.json's dataset_path by walking up the folders,
// unless `workload_path` is given), the three files in any order (named
// meta.json and requests.jsonl; the third is the workload), or one vLLM
// bench JSON file. Throws InputError for bad content, UsageError for paths
// that do not make a run.
ServingRun ReadServingRun(const std::vector<std::string>& paths, const std::string& workload_path);

// The parts, for tests.
ServingRun ReadLlmServingSimRun(const std::string& meta_path, const std::string& requests_path,
                                const std::string& workload_path);
ServingRun ReadVllmBenchResult(const std::string& path);
// otel, guidellm or guidellm+otel: an empty path is absent; at least one of
// spans and GuideLLM results must be given.
ServingRun ReadSpansRun(const std::string& spans_path, const std::string& guidellm_path,
                        const std::string& log_path);
// vllm.log's engine settings into `engine`; what the log does not say stays
// unset. Where the server was started more than once, the last start counts.
void ReadVllmLog(const std::string& path, const std::string& bytes, ServingRunEngine& engine);

}  // namespace efimsim
