#include "models/latency/latency_validation.h"

#include <gtest/gtest.h>

namespace efimsim {
namespace {

// Predicts 10 ms per step plus 1 ms per sequence: errors are easy to set.
class FixedLatencyModel : public LatencyModel {
 public:
  StepCost Predict(std::span<const SequenceWork> batch) const override {
    StepCost cost;
    cost.gemm = Milliseconds(10 + static_cast<int64_t>(batch.size()));
    return cost;
  }
  std::string Name() const override { return "fixed"; }
  std::string Description() const override { return "test model"; }
};

MeasuredStep Step(int64_t index, MeasuredStepKind kind, double measured_ms) {
  MeasuredStep step;
  step.index = index;
  step.kind = kind;
  step.sequences = {{kind == MeasuredStepKind::kDecode ? 1 : 100, 0, true}};
  step.measured_ms = measured_ms;
  return step;
}

TEST(LatencyValidation, StatisticsPerKindOnASyntheticTable) {
  // Every step is predicted at 11 ms; measured times set the errors.
  const std::vector<MeasuredStep> steps = {
      Step(0, MeasuredStepKind::kDecode, 11.0),         // 0%
      Step(1, MeasuredStepKind::kDecode, 10.0),         // 10%
      Step(2, MeasuredStepKind::kDecode, 22.0),         // 50%
      Step(3, MeasuredStepKind::kDecode, 11.0 / 1.2),   // 20%
      Step(4, MeasuredStepKind::kPrefill, 5.5),         // 100%
      Step(5, MeasuredStepKind::kMixed, 110.0),         // 90%: in "all", not in "prefill+decode"
  };
  const FixedLatencyModel model;
  const ValidationReport report = ValidateLatency(steps, model, model, false, 2);
  ASSERT_EQ(report.summaries.size(), 5u);  // prefill, decode, mixed, prefill+decode, all
  const ErrorSummary& decode = report.summaries[1];
  EXPECT_EQ(decode.kind, "decode");
  EXPECT_EQ(decode.rows, 4);
  EXPECT_NEAR(decode.median, 0.15, 1e-12);  // mean of 10% and 20%
  EXPECT_NEAR(decode.p90, 0.2 + 0.7 * 0.3, 1e-12);
  EXPECT_NEAR(decode.max, 0.5, 1e-12);
  ASSERT_EQ(decode.worst.size(), 2u);
  EXPECT_EQ(decode.worst[0].index, 2);
  EXPECT_EQ(decode.worst[1].index, 3);
  EXPECT_EQ(report.summaries[0].kind, "prefill");
  EXPECT_NEAR(report.summaries[0].max, 1.0, 1e-12);
  EXPECT_EQ(report.summaries[2].kind, "mixed");
  EXPECT_EQ(report.summaries[3].kind, "prefill+decode");
  EXPECT_EQ(report.summaries[3].rows, 5);
  EXPECT_NEAR(report.summaries[3].max, 1.0, 1e-12);
  EXPECT_EQ(report.summaries[4].kind, "all");
  EXPECT_EQ(report.summaries[4].rows, 6);
}

TEST(LatencyValidation, GpuTimingLeavesTheHostOverheadOut) {
  class WithHost : public FixedLatencyModel {
   public:
    StepCost Predict(std::span<const SequenceWork>) const override {
      StepCost c;
      c.gemm = Milliseconds(8);
      c.cpu_overhead = Milliseconds(2);
      return c;
    }
  };
  const std::vector<MeasuredStep> steps = {Step(0, MeasuredStepKind::kDecode, 8.0)};
  const WithHost model;
  EXPECT_NEAR(ValidateLatency(steps, model, model, false, 1, StepTiming::kGpu).rows[0].predicted_ms,
              8.0, 1e-12);
  EXPECT_NEAR(ValidateLatency(steps, model, model, false, 1, StepTiming::kStep).rows[0].predicted_ms,
              10.0, 1e-12);
}

TEST(LatencyValidation, RowModeChoosesTheOverheadModel) {
  class Constant : public FixedLatencyModel {
   public:
    explicit Constant(int64_t ms) : ms_(ms) {}
    StepCost Predict(std::span<const SequenceWork>) const override {
      StepCost c;
      c.cpu_overhead = Milliseconds(ms_);
      return c;
    }
   private:
    int64_t ms_;
  };
  std::vector<MeasuredStep> steps = {Step(0, MeasuredStepKind::kDecode, 10.0), Step(1, MeasuredStepKind::kDecode, 10.0)};
  steps[1].cuda_graphs = true;
  const ValidationReport report = ValidateLatency(steps, Constant(10), Constant(5), false, 3);
  EXPECT_NEAR(report.rows[0].predicted_ms, 10.0, 1e-12);
  EXPECT_NEAR(report.rows[1].predicted_ms, 5.0, 1e-12);
}

TEST(LatencyValidation, QuantileInterpolatesBetweenOrderStatistics) {
  EXPECT_DOUBLE_EQ(Quantile({3, 1, 2, 4}, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(Quantile({5}, 0.9), 5);
  EXPECT_DOUBLE_EQ(Quantile({0, 10}, 0.9), 9);
}

}  // namespace
}  // namespace efimsim
