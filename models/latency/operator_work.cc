#include "models/latency/operator_work.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "sim/base/check.h"
#include "sim/base/errors.h"

namespace efimsim {

namespace {

// The MoE figures of `s` for `model` at TP `tp`: experts over the MoE group
// of model.data_parallel x tp GPUs, whole when model.expert_parallel.
void ShardExperts(const ModelSpec& model, int64_t tp, ShardShapes& s) {
  const bool expert_parallel = model.expert_parallel;
  if (!model.moe.IsMoe()) {
    if (expert_parallel) {
      throw UsageError("--enable-expert-parallel: model " + model.name + " has no experts");
    }
    return;
  }
  const int64_t group = tp * model.data_parallel;
  if (GroupSpansNodes(group) && group % kGpusPerNode != 0) {
    throw UsageError("--data-parallel-size " + std::to_string(model.data_parallel) + " x --tp " +
                     std::to_string(tp) + ": an MoE group of more than " + std::to_string(kGpusPerNode) +
                     " GPUs spans nodes and must fill whole nodes of " + std::to_string(kGpusPerNode) + " GPUs");
  }
  auto require_divides = [&](int64_t value, int64_t by, const char* what) {
    if (value % by != 0) {
      const std::string option = model.data_parallel > 1
                                     ? "--data-parallel-size " + std::to_string(model.data_parallel) + " x --tp " + std::to_string(tp)
                                     : "--tp " + std::to_string(tp);
      throw UsageError(option + ": does not divide " + what + " (" + std::to_string(value) + ") of " + model.name);
    }
  };
  s.data_parallel = model.data_parallel;
  s.moe_layers = model.MoeLayers();
  s.experts = model.moe.experts;
  s.experts_per_token = model.moe.experts_per_token;
  // The shared expert is an ordinary MLP of each rank's TP group.
  require_divides(model.moe.shared_expert_ffn_size, tp, "the shared expert's FFN size");
  s.shared_expert_ffn = model.moe.shared_expert_ffn_size / tp;
  if (expert_parallel) {
    require_divides(model.moe.experts, group, "the experts (--enable-expert-parallel)");
    s.expert_parallel = group;
    s.experts_per_gpu = model.moe.experts / group;
    s.expert_ffn = model.moe.expert_ffn_size;
  } else {
    require_divides(model.moe.expert_ffn_size, group, "the expert FFN size");
    s.experts_per_gpu = model.moe.experts;
    s.expert_ffn = model.moe.expert_ffn_size / group;
  }
}

}  // namespace

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
  if (model.mla.IsMla() && model.kv_heads != model.q_heads) {
    throw UsageError("model " + model.name + ": MLA needs kv_heads equal to q_heads");
  }
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
  s.weight_bytes = model.LinearWeightBytes();
  s.kv_bytes = model.KvElementBytes();
  s.quantization = model.quantization;
  s.moe_routing = model.moe_routing;
  s.gated_mlp = model.mlp == MlpKind::kGated;
  s.mla_latent = model.mla.kv_lora_rank;
  s.mla_rope = model.mla.qk_rope_head_dim;
  s.mla_nope = model.mla.qk_nope_head_dim;
  s.mla_v = model.mla.v_head_dim;
  ShardExperts(model, tp, s);
  return s;
}

int64_t ShardWeightBytes(const ModelSpec& model, const ShardShapes& s) {
  const int64_t q = s.hidden * s.QWidth();
  // MLA: kv_a_proj_with_mqa (replicated) and kv_b_proj (split by heads).
  const int64_t kv = s.IsMla() ? s.hidden * (s.mla_latent + s.mla_rope) +
                                     s.mla_latent * s.q_heads * (s.mla_nope + s.mla_v)
                               : 2 * s.hidden * s.KvWidth();
  const int64_t o = (s.IsMla() ? s.q_heads * s.mla_v : s.QWidth()) * s.hidden;
  const int64_t mlp = (s.gated_mlp ? 3 : 2) * s.hidden * s.ffn;
  const int64_t experts = s.experts_per_gpu * 3 * s.hidden * s.expert_ffn + 3 * s.hidden * s.shared_expert_ffn;
  const int64_t linear = s.layers * (q + kv + o) + s.DenseLayers() * mlp + s.moe_layers * experts;
  const int64_t norms = 2 * s.hidden + s.mla_latent;
  const int64_t router = s.experts * s.hidden;
  const int64_t embedding = s.vocab * s.hidden;
  const int64_t head = model.tied_embeddings ? 0 : s.vocab * s.hidden;
  const int64_t other = s.layers * norms + s.moe_layers * router + embedding + head + s.hidden;
  if (s.weight_bytes == s.dtype_bytes) return (linear + other) * s.dtype_bytes;
  return linear * s.weight_bytes + other * s.dtype_bytes;
}

int64_t ShardKvBytesPerToken(const ShardShapes& s) {
  return s.layers * s.KvCacheWidth() * s.kv_bytes;
}

std::string_view GemmName(GemmId id) {
  switch (id) {
    case GemmId::kQkvProj: return "qkv_proj";
    case GemmId::kOProj: return "o_proj";
    case GemmId::kGateUpProj: return "gate_up_proj";
    case GemmId::kDownProj: return "down_proj";
    case GemmId::kLmHead: return "lm_head";
    case GemmId::kMoeRouter: return "moe_router";
    case GemmId::kSharedExpertGateUp: return "shared_expert_gate_up_proj";
    case GemmId::kSharedExpertDown: return "shared_expert_down_proj";
    case GemmId::kKvBProj: return "kv_b_proj";
  }
  return "?";
}

bool HasGemm(const ShardShapes& s, GemmId id) {
  switch (id) {
    case GemmId::kGateUpProj:
    case GemmId::kDownProj: return s.DenseLayers() > 0;
    case GemmId::kMoeRouter: return s.moe_layers > 0;
    case GemmId::kSharedExpertGateUp:
    case GemmId::kSharedExpertDown: return s.moe_layers > 0 && s.shared_expert_ffn > 0;
    case GemmId::kKvBProj: return s.IsMla();
    default: return true;
  }
}

GemmShape GemmShapeOf(const ShardShapes& s, GemmId id) {
  switch (id) {
    case GemmId::kQkvProj:
      if (s.IsMla()) return {s.QWidth() + s.mla_latent + s.mla_rope, s.hidden};
      return {s.QWidth() + 2 * s.KvWidth(), s.hidden};
    case GemmId::kOProj: return {s.hidden, s.IsMla() ? s.q_heads * s.mla_v : s.QWidth()};
    case GemmId::kGateUpProj: return {s.UpWidth(), s.hidden};
    case GemmId::kDownProj: return {s.hidden, s.ffn};
    case GemmId::kLmHead: return {s.vocab, s.hidden};
    case GemmId::kMoeRouter: return {s.experts, s.hidden};
    case GemmId::kSharedExpertGateUp: return {2 * s.shared_expert_ffn, s.hidden};
    case GemmId::kSharedExpertDown: return {s.hidden, s.shared_expert_ffn};
    case GemmId::kKvBProj: return {s.q_heads * (s.mla_nope + s.mla_v), s.mla_latent};
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

// bf16 in and out; the weight is read once per launch, at weight_bytes for
// the quantizable layers (lm_head and the router stay in the checkpoint dtype).
OperatorWork GemmWork(const ShardShapes& s, GemmId id, double m) {
  const GemmShape shape = GemmShapeOf(s, id);
  const double n = static_cast<double>(shape.n);
  const double k = static_cast<double>(shape.k);
  const double dtype = static_cast<double>(s.dtype_bytes);
  if (GemmIsQuantized(s, id) && s.weight_bytes != s.dtype_bytes) {
    return {2.0 * m * n * k, k * n * static_cast<double>(s.weight_bytes) + (m * k + m * n) * dtype};
  }
  return {2.0 * m * n * k, (k * n + m * k + m * n) * dtype};
}

bool GemmIsQuantized(const ShardShapes& s, GemmId id) {
  return s.quantization != WeightQuantization::kNone && id != GemmId::kLmHead &&
         id != GemmId::kMoeRouter;
}

double ExpectedActiveExperts(const ShardShapes& s, double tokens) {
  if (s.experts <= 0 || tokens <= 0) return 0.0;
  const double per_gpu = static_cast<double>(s.experts_per_gpu);
  if (s.moe_routing == MoeRouting::kBalanced) {
    const double share = per_gpu / static_cast<double>(s.experts);
    return std::min(per_gpu, tokens * static_cast<double>(s.experts_per_token) * share);
  }
  const double pick = static_cast<double>(s.experts_per_token) / static_cast<double>(s.experts);
  const double idle = std::pow(1.0 - pick, tokens);  // one expert receives no token
  return per_gpu * (1.0 - idle);
}

OperatorWork MoeExpertsWork(const ShardShapes& s, double tokens) {
  const double h = static_cast<double>(s.hidden);
  const double f = static_cast<double>(s.expert_ffn);
  const double ep = static_cast<double>(s.expert_parallel);
  const double routed = tokens * static_cast<double>(s.experts_per_token) / ep;  // token-expert pairs here
  const double weights = ExpectedActiveExperts(s, tokens) * 3.0 * h * f * static_cast<double>(s.weight_bytes);
  // Per routed pair: read its hidden row, write and read the gate_up output
  // and the activation, write its output row.
  const double activations = routed * (2.0 * h + 5.0 * f) * static_cast<double>(s.dtype_bytes);
  return {routed * 6.0 * h * f, weights + activations};
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
    case ElementwiseId::kRope:                                           // q and k in place
      elements = s.IsMla() ? 2.0 * static_cast<double>(s.RopeWidth()) : 2.0 * (q + kv);
      break;
    case ElementwiseId::kKvCacheWrite:                                   // read k, v; write pages
      if (s.IsMla()) {  // read the latent and rope key, write them to the pages
        return {0.0, tokens * static_cast<double>(s.KvCacheWidth()) * (dtype + static_cast<double>(s.kv_bytes))};
      }
      if (s.kv_bytes != s.dtype_bytes) {
        return {0.0, tokens * 2.0 * kv * (dtype + static_cast<double>(s.kv_bytes))};
      }
      elements = 4.0 * kv;
      break;
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

double MoeDispatchCombineBytes(const ShardShapes& s, double rank_tokens) {
  const double others = static_cast<double>(s.data_parallel - 1);
  return 2.0 * others * rank_tokens * static_cast<double>(s.hidden * s.dtype_bytes);
}

}  // namespace efimsim
