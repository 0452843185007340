#pragma once
// A latency model for tests: every step takes the same time, so timing
// arithmetic in assertions stays obvious.

#include <string>

#include "models/latency/latency_model.h"

namespace efimsim::testing_support {

class FixedLatencyModel : public LatencyModel {
 public:
  explicit FixedLatencyModel(Duration step) : step_(step) {}
  StepCost Predict(std::span<const SequenceWork>) const override {
    StepCost cost;
    cost.gemm = step_;
    return cost;
  }
  std::string Name() const override { return "fixed"; }
  std::string Description() const override { return "fixed time per step (test)"; }

 private:
  Duration step_;
};

}  // namespace efimsim::testing_support
