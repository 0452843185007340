#include "models/latency/operator_timer.h"

namespace efimsim {

void AccumulateLaunch(OperatorTime& into, const OperatorTime& part, double weight) {
  if (into.source.empty() || (part.extrapolated && !into.extrapolated)) into.source = part.source;
  into.seconds += weight * part.seconds;
  into.extrapolated = into.extrapolated || part.extrapolated;
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
