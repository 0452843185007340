// Fuzz target: the reader of vLLM's OpenTelemetry request spans behind
// `efimsim validate-serving` (outside input, traces/serving_run.h, format
// otel), with the server's vllm.log reader.
//
// Input: byte 0 even: the rest is the spans file (OTLP/JSON, one export per
// line); odd: the rest split at the first NUL into the spans file and a
// vllm.log. InputError and UsageError are the documented outcomes for bad
// input. Invariants beyond "no crash": as serving_runs (a checksum per file,
// positive lengths, reading again gives the same run), and every request's
// engine arrival >= 0 and E2E >= TTFT.

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
  const bool with_log = data[0] % 2 == 1;
  const std::string spans = fuzz::WriteScratchFile("traces.json", with_log ? fuzz::Part(rest, 0) : rest);
  const std::string log = with_log ? fuzz::WriteScratchFile("vllm.log", fuzz::Part(rest, 1)) : "";
  try {
    const ServingRun run = ReadSpansRun(spans, "", log);
    fuzz::CheckRun(run);
    for (const ServingRunRequest& r : run.requests) {
      FUZZ_CHECK(r.engine_arrival_ns >= 0 && r.e2e_ms >= r.ttft_ms, "a span's arrival or times out of order");
    }
    FUZZ_CHECK(fuzz::Fingerprint(ReadSpansRun(spans, "", log)) == fuzz::Fingerprint(run),
               "reading the same files twice gave two runs");
  } catch (const InputError&) {
  } catch (const UsageError&) {
  }
  return 0;
}
