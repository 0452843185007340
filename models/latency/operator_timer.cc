#include "models/latency/operator_timer.h"

#include <string>

#include "sim/base/errors.h"

namespace efimsim {

void RequireInterconnect(const ShardShapes& shapes, const GpuSpec& gpu) {
  if (shapes.MoeGroupSpansNodes() && gpu.network_gbps <= 0) {
    throw UsageError("--data-parallel-size " + std::to_string(shapes.data_parallel) + " x --tp " +
                     std::to_string(shapes.tensor_parallel) + ": the MoE group spans nodes of " +
                     std::to_string(kGpusPerNode) + " GPUs, and GPU spec " + gpu.name +
                     " has no network_gbps figure for its dispatch and combine");
  }
  if (gpu.interconnect_gbps > 0) return;
  if (shapes.tensor_parallel > 1) {
    throw UsageError("--tp " + std::to_string(shapes.tensor_parallel) + ": GPU spec " + gpu.name +
                     " has no interconnect_gbps figure for the all-reduce cost");
  }
  if (shapes.moe_layers > 0 && shapes.data_parallel > 1) {
    throw UsageError("--data-parallel-size " + std::to_string(shapes.data_parallel) + ": GPU spec " + gpu.name +
                     " has no interconnect_gbps figure for the MoE dispatch and combine");
  }
}

OperatorTime OperatorTimer::DecodeAttentionShares(std::span<const SequenceWork> step,
                                                  int64_t decodes) const {
  const double weight = 1.0 / static_cast<double>(decodes);
  OperatorTime total;
  for (const SequenceWork& seq : step) {
    if (AttendsAsDecode(seq)) AccumulateLaunch(total, DecodeAttention(decodes, seq.context_tokens), weight);
  }
  return total;
}

}  // namespace efimsim
