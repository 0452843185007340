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
#include "tests/fuzz/serving_run_checks.h"
#include "traces/serving_run.h"

namespace {

using namespace efimsim;
using fuzz::CheckRun;
using fuzz::Fingerprint;
using fuzz::Part;

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
