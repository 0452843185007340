// CpuOverheadConfig::overlap_host: a step's host time adds only where it
// exceeds the step's GPU time (vLLM V1 with async scheduling); off, it adds
// in full, as before.
#include <vector>

#include <gtest/gtest.h>

#include "models/latency/roofline_latency_model.h"
#include "models/formats/spec_catalog.h"

namespace efimsim {
namespace {

StepCost Cost(bool overlap, double step_us, double per_sequence_us, const std::vector<SequenceWork>& batch) {
  CpuOverheadConfig cpu;
  cpu.step_us = step_us;
  cpu.per_sequence_us = per_sequence_us;
  cpu.overlap_host = overlap;
  const RooflineLatencyModel model(LoadModelSpec("llama-3.1-8b"), LoadGpuSpec("h100-sxm"), cpu);
  return model.Predict(batch);
}

Duration Gpu(const StepCost& c) { return c.gemm + c.attention + c.elementwise + c.lm_head + c.communication; }

TEST(HostOverlap, HostTimeShorterThanTheGpuStepIsHidden) {
  const std::vector<SequenceWork> batch(32, SequenceWork{1, 2000, true});
  const StepCost off = Cost(false, 1500, 15, batch);
  const StepCost on = Cost(true, 1500, 15, batch);
  EXPECT_EQ(Gpu(on), Gpu(off));
  EXPECT_GT(Gpu(on), FromSeconds(1e-6 * (1500 + 32 * 15 + 60 * 32)));  // GPU longer than all host work
  EXPECT_GE(off.cpu_overhead, FromSeconds(1e-6 * (1500 + 32 * 15)) - Duration(2));
  EXPECT_EQ(on.cpu_overhead, Duration(0));
}

TEST(HostOverlap, OnlyTheExcessAdds) {
  const std::vector<SequenceWork> batch(4, SequenceWork{1, 100, true});
  const StepCost on = Cost(true, 100000, 0, batch);  // 100 ms of host work
  const double gpu_s = ToSeconds(Gpu(on));
  const double launch_s = 60e-6 * 32;  // eager launches of 32 layers
  EXPECT_NEAR(ToSeconds(on.cpu_overhead), 0.1 + launch_s - gpu_s, 1e-8);
  EXPECT_NEAR(ToSeconds(on.Total()), 0.1 + launch_s, 1e-8);  // the step is as long as the host's
}

TEST(HostOverlap, BreakdownSumsToThePrediction) {
  CpuOverheadConfig cpu;
  cpu.step_us = 50000;
  cpu.overlap_host = true;
  const RooflineLatencyModel model(LoadModelSpec("llama-3.1-8b"), LoadGpuSpec("h100-sxm"), cpu);
  const std::vector<SequenceWork> batch = {{512, 0, true}, {1, 300, true}};
  EXPECT_EQ(model.Explain(batch).cost.Total(), model.Predict(batch).Total());
}

}  // namespace
}  // namespace efimsim
