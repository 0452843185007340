#pragma once
// Prices one operator launch of one layer. The step model asks a timer for
// every operator of the step graph; a timer is the only thing that differs
// between the roofline model and the profile model.

#include <cstdint>
#include <string>
#include <string_view>

#include "models/operator_work.h"

namespace efimsim {

struct OperatorTime {
  double seconds = 0;         // one launch, one layer (seconds: latency-model internal unit)
  bool extrapolated = false;  // outside measured data (a fit, a rescaled shape, or no table)
  std::string_view source;    // static text: "profile", "profile+fit", "roofline", ...
};

class OperatorTimer {
 public:
  virtual ~OperatorTimer() = default;
  // GEMM `id` over `m` token rows, on this GPU's shard of the weights.
  virtual OperatorTime Gemm(GemmId id, int64_t m) const = 0;
  // Attention of one prefill chunk: new tokens over context + their own.
  virtual OperatorTime PrefillAttention(int64_t new_tokens, int64_t context_tokens) const = 0;
  // Decode attention of `batch` sequences all at `context_tokens` (the whole kernel).
  virtual OperatorTime DecodeAttention(int64_t batch, int64_t context_tokens) const = 0;
  virtual OperatorTime Elementwise(ElementwiseId id, int64_t tokens) const = 0;
  // One all-reduce of the hidden state of `tokens` rows across the TP group.
  virtual OperatorTime AllReduce(int64_t tokens) const = 0;
};

}  // namespace efimsim
