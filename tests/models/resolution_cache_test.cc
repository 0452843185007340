// Resolved shape profiles are kept per process (latency_model_registry.cc),
// keyed by everything a resolution reads. A sweep or capacity search that
// serves one model two ways (bf16 and FP8 weights, a bf16 and an FP8 KV
// cache) in one process must price each as a process of its own would:
// before the key held the served format, the second got the first's tables.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "models/formats/model_spec.h"
#include "models/formats/spec_catalog.h"
#include "models/latency/latency_model_registry.h"

namespace efimsim {
namespace {

StepCost Price(const ModelSpec& model, const std::vector<SequenceWork>& batch) {
  LatencyConfig config;  // auto: AIConfigurator's H100 vLLM tables
  return MakeLatencyModel(config, model, LoadGpuSpec("h100-sxm"))->Predict(batch);
}

TEST(ResolvedProfiles, OneModelServedTwoWaysInOneProcessIsPricedForEach) {
  const ModelSpec bf16 = LoadModelSpec("llama-3.1-8b");
  const ModelSpec fp8 = ServedAs(bf16, {WeightQuantization::kFp8, KvCacheDtype::kAuto, false});
  const ModelSpec fp8_kv = ServedAs(bf16, {WeightQuantization::kNone, KvCacheDtype::kFp8, false});
  ASSERT_EQ(bf16.name, fp8.name);
  const std::vector<SequenceWork> prefill = {{4096, 0, true, 1}};
  const std::vector<SequenceWork> decode(64, SequenceWork{1, 8000, true, 1});
  // bf16 first, as a grid over --quantization none,fp8 runs it.
  const StepCost bf16_prefill = Price(bf16, prefill);
  const StepCost bf16_decode = Price(bf16, decode);
  // FP8 GEMMs at M = 4,096 run faster than bf16 ones in the H100 tables;
  // attention over an FP8 KV cache reads half the bytes.
  EXPECT_LT(Price(fp8, prefill).gemm, bf16_prefill.gemm);
  EXPECT_LT(Price(fp8_kv, decode).attention, bf16_decode.attention);
  // And the bf16 model is still priced from its own tables afterwards.
  EXPECT_EQ(Price(bf16, prefill).gemm, bf16_prefill.gemm);
}

}  // namespace
}  // namespace efimsim
