// Fuzz target: the readers behind `efimsim profile import` (outside input:
// the PyTorch reference's ops JSON, Vidur's mlp.csv and all_reduce.csv) and
// the imports that turn them into kernel profiles.
//
// Input: the first byte picks the reader (0: reference ops JSON, 1: Vidur
// mlp.csv, 2: Vidur all_reduce.csv, with a fixed small mlp.csv beside it);
// the rest is the file's text. InputError and UsageError are the documented
// outcomes for bad input. Invariants beyond "no crash": an imported profile
// writes out as JSON that the profile parser accepts and that writes out the
// same again, and a latency model built on it prices a step at a finite,
// positive time.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/formats/kernel_profile.h"
#include "models/import/profile_import.h"
#include "models/latency/profile_latency_model.h"
#include "models/formats/spec_catalog.h"
#include "sim/base/errors.h"
#include "tests/fuzz/fuzz_common.h"

namespace {

using namespace efimsim;

// One TP=1 row of qwen2.5-coder-1.5b's shapes, for the all-reduce import.
constexpr const char* kMlpCsv =
    ",time_stats.attn_pre_proj.median,time_stats.attn_post_proj.median,time_stats.mlp_up_proj.median,"
    "time_stats.mlp_down_proj.median,time_stats.input_layernorm.median,"
    "time_stats.post_attention_layernorm.median,time_stats.attn_rope.median,time_stats.mlp_act.median,"
    "time_stats.add.median,n_head,n_kv_head,n_embd,n_expanded_embd,vocab_size,use_gated_mlp,num_tokens,"
    "num_tensor_parallel_workers\n"
    "0,0.01,0.01,0.02,0.01,0.004,0.004,0.004,0.006,0.001,12,2,1536,8960,151936,True,1,1\n";

void CheckProfile(const KernelProfile& profile, const ModelSpec& model, const GpuSpec& gpu) {
  const std::string written = KernelProfileJson(profile);
  KernelProfile reread;
  try {
    reread = ParseKernelProfile(written, "written.json");
  } catch (const InputError& e) {
    FUZZ_CHECK(false, std::string("an imported profile does not read back: ") + e.what());
  }
  FUZZ_CHECK(KernelProfileJson(reread) == written, "write(parse(write(profile))) != write(profile)");
  const ProfileLatencyModel latency(model, gpu, CpuOverheadConfig{}, reread);
  const std::vector<SequenceWork> step = {{300, 1000, true}, {1, 70000, true}, {1, 5, true}};
  const double ms = ToMilliseconds(latency.Predict(step).Total());
  FUZZ_CHECK(std::isfinite(ms) && ms > 0, "a step priced at a non-positive or non-finite time");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const int reader = data[0] % 3;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  static const ModelSpec model = LoadModelSpec("qwen2.5-coder-1.5b");
  static const GpuSpec gpu = LoadGpuSpec("h100-sxm");
  ImportSettings settings;
  settings.command = "fuzz";
  settings.measured_on = "fuzz";
  settings.interpolation = "auto";
  ImportReport report;
  try {
    if (reader == 0) {
      const std::vector<ReferenceOps> runs = {ParseReferenceOps(text, "ops.json")};
      ElementwiseRates rates;
      rates.tbps = 1.5;
      rates.floor_us = 2.0;
      rates.origin = "rates.csv";
      rates.sha256 = std::string(64, '0');
      CheckProfile(ImportReferenceProfile(runs, model, gpu, rates, std::nullopt, settings, report), model, gpu);
    } else if (reader == 1) {
      const VidurMlpTable mlp = ParseVidurMlpCsv(text, "mlp.csv");
      CheckProfile(ImportVidurProfile(mlp, model, gpu, std::nullopt, std::nullopt, settings, report), model,
                   gpu);
      try {
        const ElementwiseRates rates = ElementwiseRatesFromVidur(mlp);
        FUZZ_CHECK(std::isfinite(rates.tbps) && rates.tbps > 0 && rates.floor_us > 0,
                   "elementwise rates not finite and positive");
      } catch (const InputError&) {
      }
    } else {
      const VidurAllReduceTable all_reduce = ParseVidurAllReduceCsv(text, "all_reduce.csv");
      CheckProfile(ImportVidurProfile(ParseVidurMlpCsv(kMlpCsv, "mlp.csv"), model, gpu, std::nullopt,
                                      all_reduce, settings, report),
                   model, gpu);
    }
  } catch (const InputError&) {
  } catch (const UsageError&) {
  }
  return 0;
}
