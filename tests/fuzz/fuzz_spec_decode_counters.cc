// Fuzz target: the reader of a vLLM server's /metrics dump behind
// --speculative-config's acceptance_counters
// (sim/engine/vllm/spec_decode_counters.h: outside input).
//
// Input: the whole dump. InputError is the documented outcome for a file
// that is no vLLM /metrics dump. Invariants beyond "no crash": rates that
// read are at least one, each finite and in [0, 1]; reading the same file
// again gives the same rates.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/base/errors.h"
#include "sim/engine/vllm/spec_decode_counters.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace efimsim;
  const std::string path =
      fuzz::WriteScratchFile("metrics.txt", std::string_view(reinterpret_cast<const char*>(data), size));
  try {
    const std::vector<double> rates = ReadSpecDecodeAcceptanceRates(path);
    FUZZ_CHECK(!rates.empty(), "a dump that reads gave no rates");
    for (const double rate : rates) {
      FUZZ_CHECK(std::isfinite(rate) && rate >= 0.0 && rate <= 1.0, "a rate outside [0, 1]");
    }
    FUZZ_CHECK(ReadSpecDecodeAcceptanceRates(path) == rates, "reading the same dump twice gave two answers");
  } catch (const InputError&) {
  }
  return 0;
}
