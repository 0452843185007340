#pragma once
// Checks shared by the fuzz targets of the serving-run readers
// (fuzz_serving_runs.cc, fuzz_otel_spans.cc, fuzz_guidellm_results.cc;
// traces/serving_run.h).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "tests/fuzz/fuzz_common.h"
#include "traces/serving_run.h"

namespace efimsim::fuzz {

// The `index`-th NUL-separated part of `text` ("" when there are fewer).
inline std::string_view Part(std::string_view text, size_t index) {
  for (size_t i = 0; i < index; ++i) {
    const size_t nul = text.find('\0');
    if (nul == std::string_view::npos) return {};
    text.remove_prefix(nul + 1);
  }
  return text.substr(0, text.find('\0'));
}

inline void CheckRun(const ServingRun& run) {
  FUZZ_CHECK(run.files.size() == run.sha256.size(), "a checksum per file read");
  for (const ServingRunRequest& r : run.requests) {
    FUZZ_CHECK(r.prompt_tokens > 0 && r.output_tokens > 0,
               "a request with no prompt or output tokens was accepted");
    // Token ids, when a run has (or rebuilds) them, are the prompt's.
    FUZZ_CHECK(r.token_ids.empty() || static_cast<int64_t>(r.token_ids.size()) == r.prompt_tokens,
               "token ids of another length than the prompt");
  }
}

// The run's requests as comparable text.
inline std::string Fingerprint(const ServingRun& run) {
  // Appended piece by piece: "|" + std::to_string(...) trips g++ 12's
  // -Wrestrict false positive.
  std::string out = run.format;
  out += '|';
  out += run.description;
  for (const ServingRunRequest& r : run.requests) {
    for (const int64_t value :
         {r.prompt_tokens, r.output_tokens, r.workload_arrival_ns, r.engine_arrival_ns}) {
      out += ',';
      out += std::to_string(value);
    }
    out += '|';
  }
  return out;
}

}  // namespace efimsim::fuzz
