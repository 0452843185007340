// Fuzz target: the reader of GuideLLM's results JSON behind `efimsim
// validate-serving` (outside input, traces/serving_run.h, formats guidellm
// and guidellm+otel: paired with vLLM's spans by response id).
//
// Input: byte 0 even: the rest is the results JSON alone; odd: the rest
// split at the first NUL into the results JSON and a spans file to pair it
// with. InputError and UsageError are the documented outcomes for bad input.
// Invariants beyond "no crash": as serving_runs (a checksum per file,
// positive lengths, reading again gives the same run), and a paired
// request's client TTFT and E2E are both set or both unset.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "sim/base/errors.h"
#include "tests/fuzz/fuzz_common.h"
#include "tests/fuzz/serving_run_checks.h"
#include "traces/serving_run.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace efimsim;
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  const bool paired = data[0] % 2 == 1;
  const std::string results =
      fuzz::WriteScratchFile("guidellm-results.json", paired ? fuzz::Part(rest, 0) : rest);
  const std::string spans = paired ? fuzz::WriteScratchFile("traces.json", fuzz::Part(rest, 1)) : "";
  try {
    const ServingRun run = ReadSpansRun(spans, results, "");
    fuzz::CheckRun(run);
    for (const ServingRunRequest& r : run.requests) {
      FUZZ_CHECK((r.client_ttft_ms >= 0) == (r.client_e2e_ms >= 0), "half a pair of client timings");
    }
    FUZZ_CHECK(fuzz::Fingerprint(ReadSpansRun(spans, results, "")) == fuzz::Fingerprint(run),
               "reading the same files twice gave two runs");
  } catch (const InputError&) {
  } catch (const UsageError&) {
  }
  return 0;
}
