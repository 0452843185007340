// Fuzz target: the JSON readers of models/ (models/README.md, PROFILE.md):
// model specs, GPU specs, kernel profiles and measured-steps files.
//
// Input: byte 0 % 5 chooses the reader, the rest is the JSON text:
//   0 ParseModelSpec, 1 ParseGpuSpec, 2 ParseKernelProfile,
//   3 ParseMeasuredSteps, 4 ReadHfConfig (a Hugging Face config.json).
// A config.json that reads must give a spec JSON that ParseModelSpec reads
// back to the same figures (what `efimsim models import` writes).
// InputError is the documented outcome for bad content. A kernel profile
// that parses and names a built-in model and GPU is also handed to
// ProfileLatencyModel (which may reject it with InputError, e.g. shapes
// that differ from the model's), and a few steps inside and beyond its
// tables are priced: Explain must agree with Predict and every time must be
// >= 0 (UBSan checks the double -> integer conversions on the way).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "models/formats/hf_config.h"
#include "models/formats/kernel_profile.h"
#include "models/latency/latency_validation.h"
#include "models/latency/profile_latency_model.h"
#include "models/formats/spec_catalog.h"
#include "sim/base/check.h"
#include "sim/base/errors.h"
#include "tests/fuzz/fuzz_common.h"

namespace {

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Finding 7 (while open): ParseKernelProfile accepts any finite time_us > 0,
// and pricing a step with absurd times (1e19 us) or an extrapolation that
// explodes fails FromSeconds's internal check instead of an InputError.
bool IsOpenBugProfileTimeRange(const efimsim::InternalError& error) {
#ifdef EFIMSIM_FUZZ_OPEN_BUG_PROFILE_TIME_RANGE
  return efimsim::fuzz::OpenBugsTolerated() &&
         std::string_view(error.what()).find("FromSeconds") != std::string_view::npos;
#else
  (void)error;
  return false;
#endif
}

void PriceSteps(const efimsim::KernelProfile& profile) {
  // Only built-in names: a name that looks like a path would be read as a file.
  if (!Contains(efimsim::BuiltinModelNames(), profile.model) ||
      !Contains(efimsim::BuiltinGpuNames(), profile.gpu)) {
    return;
  }
  const efimsim::ModelSpec model = efimsim::LoadModelSpec(profile.model);
  const efimsim::GpuSpec gpu = efimsim::LoadGpuSpec(profile.gpu);
  for (const bool cuda_graphs : {false, true}) {
    efimsim::CpuOverheadConfig overhead;
    overhead.cuda_graphs = cuda_graphs;
    std::optional<efimsim::ProfileLatencyModel> latency;
    try {
      latency.emplace(model, gpu, overhead, profile);
    } catch (const efimsim::InputError&) {
      return;
    }
    const std::vector<std::vector<efimsim::SequenceWork>> batches = {
        {{1, 100, true}},
        {{1, 4096, true}, {1, 17, true}, {1, 0, true}},
        {{512, 0, false}},
        {{300, 2000, true}, {1, 900, true}},
        {{20000, 100000, true}},
    };
    for (const auto& batch : batches) {
      efimsim::StepCost cost;
      efimsim::StepBreakdown breakdown;
      try {
        cost = latency->Predict(batch);
        breakdown = latency->Explain(batch);
      } catch (const efimsim::InternalError& e) {
        if (IsOpenBugProfileTimeRange(e)) return;
        throw;
      }
      FUZZ_CHECK(breakdown.cost.Total() == cost.Total(), "Explain and Predict disagree");
      FUZZ_CHECK(cost.gemm.count() >= 0 && cost.attention.count() >= 0 &&
                     cost.elementwise.count() >= 0 && cost.lm_head.count() >= 0 &&
                     cost.communication.count() >= 0 && cost.cpu_overhead.count() >= 0,
                 "negative step time for profile " + profile.gpu + "/" + profile.model);
    }
  }
}

void ReadConfigAndWriteSpec(const std::string& text) {
  const efimsim::ModelSpecFile file = efimsim::ReadHfConfig(text, "fuzz.json");
  const std::string json = efimsim::ModelSpecFileJson(file);
  efimsim::ModelSpec back;
  try {
    back = efimsim::ParseModelSpec(json, "written.json");
  } catch (const efimsim::InputError& e) {
    FUZZ_CHECK(false, std::string("the written spec does not read back: ") + e.what());
  }
  const efimsim::ModelSpec& spec = file.spec;
  FUZZ_CHECK(back.TotalParams() == spec.TotalParams() && back.ActiveParams() == spec.ActiveParams() &&
                 back.KvBytesPerToken() == spec.KvBytesPerToken() && back.layers == spec.layers &&
                 back.MoeLayers() == spec.MoeLayers(),
             "the written spec reads back with other figures");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    switch (data[0] % 5) {
      case 0:
        (void)efimsim::ParseModelSpec(text, "fuzz.json");
        break;
      case 1:
        (void)efimsim::ParseGpuSpec(text, "fuzz.json");
        break;
      case 2:
        PriceSteps(efimsim::ParseKernelProfile(text, "fuzz.json"));
        break;
      case 3:
        (void)efimsim::ParseMeasuredSteps(text, "fuzz.json");
        break;
      default:
        ReadConfigAndWriteSpec(text);
        break;
    }
  } catch (const efimsim::InputError& e) {
    FUZZ_CHECK(e.file() == "fuzz.json", "InputError names file '" + e.file() + "'");
  } catch (const std::exception& e) {
    if (!efimsim::fuzz::IsOpenBug(e)) throw;
  }
  return 0;
}
