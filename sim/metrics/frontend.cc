#include "sim/metrics/frontend.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>

#include "sim/base/errors.h"
#include "sim/metrics/summary.h"

namespace efimsim {
namespace {

// vLLM 0.11.0 on one H100 80GB HBM3, CodeLlama-34B (both inference-sim-eval
// runs with GuideLLM results: 397 requests paired by id with their
// llm_request spans): FitFrontend of client minus engine TTFT on prompt
// tokens gives 4.21 ms + 1.883 us per prompt token (342 pairs kept; median
// |residual| 0.68 ms over all 397). E2E differs by the same amount to
// 0.1-0.2 ms regardless of output length (slope -0.004 to 0 ms per output
// token), so streaming adds nothing measurable per output token.
// Reproduce: `efimsim validate-serving` on either run prints the fit.
constexpr int64_t kVllmPerRequestNs = 4207000;
constexpr int64_t kVllmPerPromptTokenNs = 1883;
constexpr int64_t kVllmPerOutputTokenNs = 0;
constexpr const char* kVllmSource =
    "fitted on vLLM 0.11.0 on one H100 (GuideLLM client TTFT minus the engine's OpenTelemetry "
    "TTFT, 397 requests of the inference-sim-eval runs; docs/validation.md)";

// Longest accepted figure: 10 s in microseconds.
constexpr double kMaxFrontendUs = 1e7;

Duration Ns(double ns) { return Duration{static_cast<int64_t>(std::llround(ns))}; }

// `text` as microseconds: a finite number >= 0 and < 10 s, else UsageError
// naming `what`.
double ParseMicroseconds(const std::string& text, const char* what, const std::string& whole) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(value) || value < 0 ||
      value >= kMaxFrontendUs) {
    throw UsageError("--frontend: " + std::string(what) + " '" + text + "' in '" + whole +
                     "' must be a number of microseconds >= 0 and < 1e7 (expected none, default, "
                     "or PER_REQUEST_US,PER_PROMPT_TOKEN_US[,PER_OUTPUT_TOKEN_US])");
  }
  return value;
}

std::vector<std::string> SplitCommas(const std::string& text) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    parts.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) return parts;
    start = comma + 1;
  }
}

double MedianOf(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return PercentileOfSorted(values, 50);
}

// Least squares of y on x over the `keep` pairs; a flat line at the median
// when x does not vary. Returns {intercept, slope}.
std::pair<double, double> LeastSquares(const std::vector<int64_t>& x, const std::vector<double>& y,
                                       const std::vector<bool>& keep) {
  double n = 0, mx = 0, my = 0;
  std::vector<double> kept_y;
  for (size_t i = 0; i < x.size(); ++i) {
    if (!keep[i]) continue;
    n += 1;
    mx += static_cast<double>(x[i]);
    my += y[i];
    kept_y.push_back(y[i]);
  }
  if (n < 2) return {MedianOf(kept_y), 0};
  mx /= n;
  my /= n;
  double sxx = 0, sxy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    if (!keep[i]) continue;
    const double dx = static_cast<double>(x[i]) - mx;
    sxx += dx * dx;
    sxy += dx * (y[i] - my);
  }
  if (sxx <= 0) return {MedianOf(kept_y), 0};
  const double slope = sxy / sxx;
  return {my - slope * mx, slope};
}

}  // namespace

Duration FrontendCosts::Ttft(int64_t prompt_tokens) const {
  return Duration{per_request_ns} +
         Ns(static_cast<double>(per_prompt_token_ns) * static_cast<double>(prompt_tokens));
}

Duration FrontendCosts::E2e(int64_t prompt_tokens, int64_t output_tokens) const {
  const int64_t after_first = std::max<int64_t>(0, output_tokens - 1);
  return Ttft(prompt_tokens) +
         Ns(static_cast<double>(per_output_token_ns) * static_cast<double>(after_first));
}

std::string FrontendCosts::Describe() const {
  if (!enabled()) return source;
  char figures[160];
  std::snprintf(figures, sizeof figures,
                "%.0f us per request + %.3f us per prompt token + %.3f us per output token",
                static_cast<double>(per_request_ns) * 1e-3,
                static_cast<double>(per_prompt_token_ns) * 1e-3,
                static_cast<double>(per_output_token_ns) * 1e-3);
  return std::string(figures) + " (" + name + ": " + source + ")";
}

FrontendCosts DefaultFrontend(const std::string& engine) {
  FrontendCosts costs;
  costs.per_request_ns = kVllmPerRequestNs;
  costs.per_prompt_token_ns = kVllmPerPromptTokenNs;
  costs.per_output_token_ns = kVllmPerOutputTokenNs;
  if (engine.rfind("vllm", 0) == 0) {  // vllm, vllm_v1
    costs.name = "vllm";
    costs.source = kVllmSource;
  } else if (engine == "sglang") {
    costs.name = "sglang";
    costs.source = std::string("vLLM's figures carried over (no SGLang measurements yet): ") + kVllmSource;
  } else {
    throw UsageError("--frontend default: no default frontend for engine '" + engine +
                     "' (give PER_REQUEST_US,PER_PROMPT_TOKEN_US[,PER_OUTPUT_TOKEN_US])");
  }
  return costs;
}

FrontendCosts ParseFrontend(const std::string& text, const std::string& engine) {
  if (text == "none") return FrontendCosts{};
  if (text == "default") return DefaultFrontend(engine);
  const std::vector<std::string> parts = SplitCommas(text);
  if (parts.size() < 2 || parts.size() > 3) {
    throw UsageError("--frontend: expected none, default, or "
                     "PER_REQUEST_US,PER_PROMPT_TOKEN_US[,PER_OUTPUT_TOKEN_US] (got '" + text + "')");
  }
  FrontendCosts costs;
  costs.name = "explicit";
  costs.source = "--frontend " + text;
  costs.per_request_ns = Ns(ParseMicroseconds(parts[0], "per-request", text) * 1e3).count();
  costs.per_prompt_token_ns = Ns(ParseMicroseconds(parts[1], "per-prompt-token", text) * 1e3).count();
  if (parts.size() == 3) {
    costs.per_output_token_ns = Ns(ParseMicroseconds(parts[2], "per-output-token", text) * 1e3).count();
  }
  return costs;
}

FrontendFit FitFrontend(const std::vector<int64_t>& prompt_tokens,
                        const std::vector<double>& difference_ms) {
  FrontendFit fit;
  const size_t n = std::min(prompt_tokens.size(), difference_ms.size());
  fit.pairs = static_cast<int64_t>(n);
  if (n == 0) return fit;
  const std::vector<int64_t> x(prompt_tokens.begin(), prompt_tokens.begin() + static_cast<ptrdiff_t>(n));
  std::vector<bool> keep(n, true);
  std::pair<double, double> line;
  std::vector<double> residuals(n);
  for (int round = 0; round < 10; ++round) {
    line = LeastSquares(x, difference_ms, keep);
    std::vector<double> abs_residuals(n);
    for (size_t i = 0; i < n; ++i) {
      residuals[i] = difference_ms[i] - line.first - line.second * static_cast<double>(x[i]);
      abs_residuals[i] = std::fabs(residuals[i]);
    }
    const double limit = 3 * MedianOf(abs_residuals);
    std::vector<bool> next(n);
    for (size_t i = 0; i < n; ++i) next[i] = abs_residuals[i] <= limit;
    if (next == keep) break;
    keep = next;
  }
  fit.kept = std::count(keep.begin(), keep.end(), true);
  fit.per_request_ms = line.first;
  fit.per_prompt_token_us = line.second * 1e3;
  std::vector<double> abs_residuals;
  for (double r : residuals) abs_residuals.push_back(std::fabs(r));
  fit.median_abs_residual_ms = MedianOf(abs_residuals);
  fit.mean_residual_ms = std::accumulate(residuals.begin(), residuals.end(), 0.0) / static_cast<double>(n);
  return fit;
}

}  // namespace efimsim
