#include "models/latency/latency_model.h"

namespace efimsim {

const char* StepPartName(StepPart part) {
  switch (part) {
    case StepPart::kGemm: return "gemm";
    case StepPart::kAttention: return "attention";
    case StepPart::kElementwise: return "elementwise";
    case StepPart::kLmHead: return "lm_head";
    case StepPart::kCommunication: return "communication";
    case StepPart::kCpuOverhead: return "cpu_overhead";
  }
  return "?";
}

StepBreakdown LatencyModel::Explain(std::span<const SequenceWork> batch) const {
  StepBreakdown out;
  out.cost = Predict(batch);
  const std::string source = Name();
  auto row = [&](StepPart part, Duration time) {
    out.operators.push_back({StepPartName(part), part, time, 1, out.cost.extrapolated, source});
  };
  row(StepPart::kGemm, out.cost.gemm);
  row(StepPart::kAttention, out.cost.attention);
  row(StepPart::kElementwise, out.cost.elementwise);
  row(StepPart::kLmHead, out.cost.lm_head);
  row(StepPart::kCommunication, out.cost.communication);
  row(StepPart::kCpuOverhead, out.cost.cpu_overhead);
  for (const SequenceWork& seq : batch) out.gemm_tokens += seq.new_tokens;
  return out;
}

StepCost LatencyModel::PredictInGroup(std::span<const SequenceWork> batch, int64_t /*group_rows*/) const {
  return Predict(batch);
}

}  // namespace efimsim
