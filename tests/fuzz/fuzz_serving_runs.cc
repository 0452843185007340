// Fuzz target: the readers of real serving runs behind `efimsim
// validate-serving` (outside input, traces/serving_run.h): LLMServingSim's
// bench layout (meta.json, requests.jsonl, the workload JSONL) and a
// `vllm bench serve` result JSON.
//
// Input: the first byte picks the layout (even: the three files of a bench
// run, split from the rest at the first two NUL bytes; odd: one vLLM bench
// JSON, the rest whole). InputError and UsageError are the documented
// outcomes for bad input. Invariants beyond "no crash": a run that reads has
// one checksum per file read and every request a positive prompt and output
// length, and reading the same files again gives the same run.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/base/errors.h"
#include "tests/fuzz/fuzz_common.h"
#include "traces/serving_run.h"

namespace {

using namespace efimsim;

// The `index`-th NUL-separated part of `text` ("" when there are fewer).
std::string_view Part(std::string_view text, size_t index) {
  for (size_t i = 0; i < index; ++i) {
    const size_t nul = text.find('\0');
    if (nul == std::string_view::npos) return {};
    text.remove_prefix(nul + 1);
  }
  return text.substr(0, text.find('\0'));
}

void CheckRun(const ServingRun& run) {
  FUZZ_CHECK(run.files.size() == run.sha256.size(), "a checksum per file read");
  for (const ServingRunRequest& r : run.requests) {
    FUZZ_CHECK(r.prompt_tokens > 0 && r.output_tokens > 0,
               "a request with no prompt or output tokens was accepted");
  }
}

// The run's requests as comparable text.
std::string Fingerprint(const ServingRun& run) {
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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::vector<std::string> paths;
  if (data[0] % 2 == 0) {
    paths.push_back(fuzz::WriteScratchFile("meta.json", Part(rest, 0)));
    paths.push_back(fuzz::WriteScratchFile("requests.jsonl", Part(rest, 1)));
    paths.push_back(fuzz::WriteScratchFile("workload.jsonl", Part(rest, 2)));
  } else {
    paths.push_back(fuzz::WriteScratchFile("vllm_bench_result.json", rest));
  }
  try {
    const ServingRun run = ReadServingRun(paths, "");
    CheckRun(run);
    FUZZ_CHECK(Fingerprint(ReadServingRun(paths, "")) == Fingerprint(run),
               "reading the same files twice gave two runs");
  } catch (const InputError&) {
  } catch (const UsageError&) {
  }
  return 0;
}
