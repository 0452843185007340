#include "models/formats/model_spec.h"

namespace efimsim {

int64_t ModelSpec::AttentionParamsPerLayer() const {
  const int64_t q = hidden_size * q_heads * head_dim;
  const int64_t kv = 2 * hidden_size * kv_heads * head_dim;
  const int64_t o = q_heads * head_dim * hidden_size;
  return q + kv + o;
}

int64_t ModelSpec::MlpParamsPerLayer() const {
  const int64_t matrices = mlp == MlpKind::kGated ? 3 : 2;
  return matrices * hidden_size * ffn_size;
}

int64_t ModelSpec::TotalParams() const {
  const int64_t norms_per_layer = 2 * hidden_size;
  const int64_t per_layer = LinearParamsPerLayer() + norms_per_layer;
  const int64_t head = tied_embeddings ? 0 : LmHeadParams();
  return layers * per_layer + EmbeddingParams() + head + hidden_size /* final norm */;
}

}  // namespace efimsim
