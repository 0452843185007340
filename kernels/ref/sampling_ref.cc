#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "reference.h"

namespace efimsim::kernels {

void sampling_ref(int rows, int vocab, int top_k, float temperature, std::span<const float> logits,
                  std::span<const float> uniforms, std::span<std::int32_t> tokens, std::span<std::int32_t> top_ids) {
  if (rows < 0 || vocab <= 0 || top_k < 1 || top_k > vocab ||
      logits.size() != static_cast<std::size_t>(rows) * vocab || tokens.size() != static_cast<std::size_t>(rows) ||
      top_ids.size() != static_cast<std::size_t>(rows) * top_k ||
      (top_k > 1 && (uniforms.size() != static_cast<std::size_t>(rows) || !(temperature > 0.0f)))) {
    throw std::invalid_argument("sampling_ref: sizes or arguments");
  }
  std::vector<std::int32_t> ids;
  for (int r = 0; r < rows; ++r) {
    const float* x = logits.data() + static_cast<std::size_t>(r) * vocab;
    ids.clear();
    for (int i = 0; i < vocab; ++i) {
      if (!std::isnan(x[i])) ids.push_back(i);
    }
    const auto better = [&](std::int32_t a, std::int32_t b) { return x[a] > x[b] || (x[a] == x[b] && a < b); };
    const std::size_t k = std::min<std::size_t>(static_cast<std::size_t>(top_k), ids.size());
    std::partial_sort(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(k), ids.end(), better);
    std::int32_t* out_ids = top_ids.data() + static_cast<std::size_t>(r) * top_k;
    for (int j = 0; j < top_k; ++j) out_ids[j] = static_cast<std::size_t>(j) < k ? ids[static_cast<std::size_t>(j)] : -1;
    std::int32_t token = out_ids[0];
    if (top_k > 1 && k > 0) {
      const float inv_t = 1.0f / temperature;
      const float v0 = x[out_ids[0]];
      float total = 0.0f;
      for (std::size_t j = 0; j < k; ++j) total += std::exp((x[out_ids[j]] - v0) * inv_t);
      const float target = uniforms[static_cast<std::size_t>(r)] * total;
      float cum = 0.0f;
      token = out_ids[k - 1];
      for (std::size_t j = 0; j < k; ++j) {
        cum += std::exp((x[out_ids[j]] - v0) * inv_t);
        if (cum > target) {
          token = out_ids[j];
          break;
        }
      }
    }
    tokens[static_cast<std::size_t>(r)] = token;
  }
}

}  // namespace efimsim::kernels
