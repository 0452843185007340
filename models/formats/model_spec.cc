#include "models/formats/model_spec.h"

#include <string>

#include "sim/base/errors.h"

namespace efimsim {

const char* WeightQuantizationName(WeightQuantization q) {
  switch (q) {
    case WeightQuantization::kNone: return "none";
    case WeightQuantization::kFp8: return "fp8";
    case WeightQuantization::kFp8Block: return "fp8_block";
  }
  return "?";
}

const char* KvCacheDtypeName(KvCacheDtype d) {
  switch (d) {
    case KvCacheDtype::kAuto: return "auto";
    case KvCacheDtype::kFp8: return "fp8";
  }
  return "?";
}

const char* MoeRoutingName(MoeRouting r) {
  switch (r) {
    case MoeRouting::kUniform: return "uniform";
    case MoeRouting::kBalanced: return "balanced";
    case MoeRouting::kPowerLaw: return "power-law";
  }
  return "?";
}

int64_t ModelSpec::AttentionParamsPerLayer() const {
  if (mla.IsMla()) {
    const int64_t q = hidden_size * q_heads * mla.QkHeadDim();
    const int64_t kv_a = hidden_size * mla.LatentWidth();
    const int64_t kv_b = mla.kv_lora_rank * q_heads * (mla.qk_nope_head_dim + mla.v_head_dim);
    const int64_t o = q_heads * mla.v_head_dim * hidden_size;
    return q + kv_a + kv_b + o;
  }
  const int64_t q = hidden_size * q_heads * head_dim;
  const int64_t kv = 2 * hidden_size * kv_heads * head_dim;
  const int64_t o = q_heads * head_dim * hidden_size;
  return q + kv + o;
}

int64_t ModelSpec::MlpParamsPerLayer() const {
  const int64_t matrices = mlp == MlpKind::kGated ? 3 : 2;
  return matrices * hidden_size * ffn_size;
}

int64_t ModelSpec::MoeLayers() const {
  int64_t count = 0;
  for (int64_t layer = 0; layer < layers; ++layer) count += moe.IsMoeLayer(layer) ? 1 : 0;
  return count;
}

int64_t ModelSpec::LinearParams() const {
  const int64_t moe_mlp = moe.experts * MoeExpertParams() + MoeSharedParamsPerLayer();
  return layers * AttentionParamsPerLayer() + DenseLayers() * MlpParamsPerLayer() +
         MoeLayers() * moe_mlp;
}

int64_t ModelSpec::TotalParams() const {
  const int64_t norms = layers * (2 * hidden_size + mla.kv_lora_rank /* MLA's latent norm */) +
                       hidden_size /* final norm */;
  const int64_t head = tied_embeddings ? 0 : LmHeadParams();
  return LinearParams() + MoeLayers() * MoeRouterParamsPerLayer() + norms + EmbeddingParams() + head;
}

int64_t ModelSpec::ActiveParams() const {
  const int64_t idle_experts = moe.experts - moe.experts_per_token;
  return TotalParams() - MoeLayers() * idle_experts * MoeExpertParams();
}

std::string ModelSpec::PrecisionText() const {
  const std::string checkpoint = dtype_bytes == 4 ? "fp32" : "bf16";
  std::string text = quantization == WeightQuantization::kNone
                         ? checkpoint + " weights"
                         : std::string(WeightQuantizationName(quantization)) + " weights";
  text += kv_cache_dtype == KvCacheDtype::kFp8 ? ", fp8 KV cache" : ", " + checkpoint + " KV cache";
  return text;
}

ModelSpec ServedAs(ModelSpec model, const ServingFormat& format) {
  if (model.dtype_bytes != 2 && (format.quantization != WeightQuantization::kNone ||
                                 format.kv_cache_dtype != KvCacheDtype::kAuto)) {
    throw UsageError("--quantization/--kv-cache-dtype fp8: model " + model.name +
                     " is float32; FP8 serving is modelled from 16-bit checkpoints only");
  }
  if (format.expert_parallel && !model.moe.IsMoe()) {
    throw UsageError("--enable-expert-parallel: model " + model.name + " has no experts");
  }
  if (format.data_parallel < 1) {
    throw UsageError("--data-parallel-size: must be at least 1, got " + std::to_string(format.data_parallel));
  }
  model.quantization = format.quantization;
  model.kv_cache_dtype = format.kv_cache_dtype;
  model.expert_parallel = format.expert_parallel;
  model.moe_routing = format.moe_routing;
  model.data_parallel = format.data_parallel;
  return model;
}

}  // namespace efimsim
