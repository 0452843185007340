#pragma once
// The API server's time per request outside the engine ("frontend"): what a
// benchmark client (GuideLLM, `vllm bench serve`) sees on top of the
// engine's own TTFT and E2E. It covers HTTP and request parsing,
// tokenization of the prompt, the hand-off to the engine core, and
// detokenization and streaming of the first token back to the client.
//
// Model (docs/validation.md, "Frontend"):
//   client TTFT = engine TTFT + per_request + per_prompt_token x prompt tokens
//   client E2E  = engine E2E  + the same + per_output_token x (outputs - 1)
//   client TPOT = engine TPOT + per_output_token
// The frontend is not simulated as a resource: it only adds to the times a
// client sees (engine scheduling and the closed loop's next send are not
// delayed by it).
//
// Defaults per engine: vLLM's are fitted on vLLM 0.11.0 on one H100 (the
// inference-sim-eval runs: GuideLLM's client timings paired with vLLM's
// OpenTelemetry request spans). SGLang has no such data here: it carries
// vLLM's figures over, and says so.

#include <cstdint>
#include <string>
#include <vector>

#include "sim/base/time.h"

namespace efimsim {

struct FrontendCosts {
  // "none" (engine times only), "vllm" / "sglang" (an engine's default), or
  // "explicit" (--frontend US,US[,US]).
  std::string name = "none";
  // One line: where the figures come from.
  std::string source = "none: engine times only";
  int64_t per_request_ns = 0;       // parsing, hand-off, first token's return
  int64_t per_prompt_token_ns = 0;  // tokenization, per prompt token
  int64_t per_output_token_ns = 0;  // streaming, per output token after the first

  bool enabled() const { return name != "none"; }
  // Added to the engine's TTFT for a prompt of `prompt_tokens`.
  Duration Ttft(int64_t prompt_tokens) const;
  // Added to the engine's E2E (Ttft plus streaming of outputs after the first).
  Duration E2e(int64_t prompt_tokens, int64_t output_tokens) const;
  // One line: the three figures in microseconds, and the source.
  std::string Describe() const;
};

// The default frontend of `engine` (a name starting "vllm", or "sglang");
// UsageError for another.
FrontendCosts DefaultFrontend(const std::string& engine);

// --frontend's value: "none", "default" (DefaultFrontend(engine)), or
// "PER_REQUEST_US,PER_PROMPT_TOKEN_US[,PER_OUTPUT_TOKEN_US]" (microseconds,
// decimals allowed, each >= 0 and < 10 s). Throws UsageError("--frontend: ...").
FrontendCosts ParseFrontend(const std::string& text, const std::string& engine);

// A least-squares line through per-request (prompt tokens, client minus
// engine TTFT) pairs, refitted without outliers: pairs whose residual
// exceeds three times the median |residual| are left out and the line
// refitted, until the kept set stops changing (at most 10 rounds). The
// outliers are the server's first request (a cold tokenizer, ~30 ms) and
// bursts where the API server queues requests behind each other.
struct FrontendFit {
  int64_t pairs = 0;          // given
  int64_t kept = 0;           // in the final fit
  double per_request_ms = 0;  // intercept
  double per_prompt_token_us = 0;  // slope, microseconds per token
  // Over every pair (outliers included): residual = measured - fitted, ms.
  double median_abs_residual_ms = 0;
  double mean_residual_ms = 0;
};
// Precondition-free: fewer than two pairs, or prompts all one length, give
// a flat line at the median difference.
FrontendFit FitFrontend(const std::vector<int64_t>& prompt_tokens,
                        const std::vector<double>& difference_ms);

}  // namespace efimsim
