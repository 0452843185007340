#include "models/latency/operator_work.h"

#include <string>

#include "sim/base/check.h"
#include "sim/base/errors.h"

namespace efimsim {

ShardShapes ShardModel(const ModelSpec& model, int64_t tensor_parallel) {
  const int64_t tp = tensor_parallel;
  if (tp != 1 && tp != 2 && tp != 4 && tp != 8) {
    throw UsageError("--tp: tensor-parallel size must be 1, 2, 4 or 8, got " + std::to_string(tp));
  }
  auto require_divides = [&](int64_t value, const char* what) {
    if (value % tp != 0) {
      throw UsageError("--tp " + std::to_string(tp) + ": does not divide " + what + " (" +
                       std::to_string(value) + ") of " + model.name);
    }
  };
  require_divides(model.q_heads, "q heads");
  require_divides(model.ffn_size, "ffn size");
  if (model.kv_heads >= tp) {
    require_divides(model.kv_heads, "kv heads");
  } else if (tp % model.kv_heads != 0) {
    throw UsageError("--tp " + std::to_string(tp) + ": not a multiple of the kv heads of " +
                     model.name);
  }
  ShardShapes s;
  s.tensor_parallel = tp;
  s.layers = model.layers;
  s.hidden = model.hidden_size;
  s.q_heads = model.q_heads / tp;
  s.kv_heads = model.kv_heads >= tp ? model.kv_heads / tp : 1;  // replicated below tp
  s.head_dim = model.head_dim;
  s.ffn = model.ffn_size / tp;
  s.vocab = (model.vocab_size + tp - 1) / tp;  // vLLM pads the vocabulary shard
  s.dtype_bytes = model.dtype_bytes;
  s.gated_mlp = model.mlp == MlpKind::kGated;
  return s;
}

int64_t ShardWeightBytes(const ModelSpec& model, const ShardShapes& s) {
  const int64_t q = s.hidden * s.QWidth();
  const int64_t kv = 2 * s.hidden * s.KvWidth();
  const int64_t o = s.QWidth() * s.hidden;
  const int64_t mlp = (s.gated_mlp ? 3 : 2) * s.hidden * s.ffn;
  const int64_t norms = 2 * s.hidden;
  const int64_t embedding = s.vocab * s.hidden;
  const int64_t head = model.tied_embeddings ? 0 : s.vocab * s.hidden;
  const int64_t params = s.layers * (q + kv + o + mlp + norms) + embedding + head + s.hidden;
  return params * s.dtype_bytes;
}

int64_t ShardKvBytesPerToken(const ShardShapes& s) {
  return 2 * s.layers * s.KvWidth() * s.dtype_bytes;
}

std::string_view GemmName(GemmId id) {
  switch (id) {
    case GemmId::kQkvProj: return "qkv_proj";
    case GemmId::kOProj: return "o_proj";
    case GemmId::kGateUpProj: return "gate_up_proj";
    case GemmId::kDownProj: return "down_proj";
    case GemmId::kLmHead: return "lm_head";
  }
  return "?";
}

GemmShape GemmShapeOf(const ShardShapes& s, GemmId id) {
  switch (id) {
    case GemmId::kQkvProj: return {s.QWidth() + 2 * s.KvWidth(), s.hidden};
    case GemmId::kOProj: return {s.hidden, s.QWidth()};
    case GemmId::kGateUpProj: return {s.UpWidth(), s.hidden};
    case GemmId::kDownProj: return {s.hidden, s.ffn};
    case GemmId::kLmHead: return {s.vocab, s.hidden};
  }
  EFIMSIM_CHECK(false, "unknown GemmId");
  return {};
}

std::string_view ElementwiseName(ElementwiseId id, bool gated_mlp) {
  switch (id) {
    case ElementwiseId::kRmsnorm: return "rmsnorm";
    case ElementwiseId::kRope: return "rope";
    case ElementwiseId::kKvCacheWrite: return "kv_cache_write";
    case ElementwiseId::kActivation: return gated_mlp ? "silu_and_mul" : "gelu";
    case ElementwiseId::kResidualAdd: return "residual_add";
    case ElementwiseId::kSampling: return "sampling";
  }
  return "?";
}

// bf16 in and out; the weight is read once per launch.
OperatorWork GemmWork(const ShardShapes& s, GemmId id, double m) {
  const GemmShape shape = GemmShapeOf(s, id);
  const double n = static_cast<double>(shape.n);
  const double k = static_cast<double>(shape.k);
  const double dtype = static_cast<double>(s.dtype_bytes);
  return {2.0 * m * n * k, (k * n + m * k + m * n) * dtype};
}

// Elements read plus written per token (FLOPs are negligible: memory-bound).
OperatorWork ElementwiseWork(const ShardShapes& s, ElementwiseId id, double tokens) {
  const double h = static_cast<double>(s.hidden);
  const double q = static_cast<double>(s.QWidth());
  const double kv = static_cast<double>(s.KvWidth());
  const double dtype = static_cast<double>(s.dtype_bytes);
  double elements = 0;
  switch (id) {
    case ElementwiseId::kRmsnorm: elements = 2.0 * h; break;            // read x, write y
    case ElementwiseId::kRope: elements = 2.0 * (q + kv); break;        // q and k in place
    case ElementwiseId::kKvCacheWrite: elements = 4.0 * kv; break;      // read k, v; write pages
    case ElementwiseId::kActivation:                                     // read up, write ffn
      elements = static_cast<double>(s.UpWidth() + s.ffn);
      break;
    case ElementwiseId::kResidualAdd: elements = 3.0 * h; break;        // read a, b; write
    case ElementwiseId::kSampling:                                       // fp32 logits, read twice
      return {0.0, tokens * 2.0 * 4.0 * static_cast<double>(s.vocab)};
  }
  return {0.0, tokens * elements * dtype};
}

double AllReduceBytes(const ShardShapes& s, double tokens) {
  return tokens * static_cast<double>(s.hidden * s.dtype_bytes);
}

}  // namespace efimsim
