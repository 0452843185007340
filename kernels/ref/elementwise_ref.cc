#include <cmath>
#include <stdexcept>

#include "reference.h"

namespace efimsim::kernels {
namespace {
void require(bool ok, const char* what) {
  if (!ok) throw std::invalid_argument(what);
}
}  // namespace

void rmsnorm_ref(int tokens, int hidden, float eps, std::span<const bf16> x,
                 std::span<const bf16> weight, std::span<float> out) {
  const std::size_t n = static_cast<std::size_t>(tokens) * hidden;
  require(x.size() == n && out.size() == n && weight.size() == static_cast<std::size_t>(hidden),
          "rmsnorm_ref: sizes");
  for (int t = 0; t < tokens; ++t) {
    const bf16* xr = x.data() + static_cast<std::size_t>(t) * hidden;
    double sum2 = 0.0;
    for (int i = 0; i < hidden; ++i) {
      const double v = bf16_to_float(xr[i]);
      sum2 += v * v;
    }
    const double inv = 1.0 / std::sqrt(sum2 / hidden + eps);
    for (int i = 0; i < hidden; ++i) {
      out[static_cast<std::size_t>(t) * hidden + i] =
          static_cast<float>(bf16_to_float(xr[i]) * inv * bf16_to_float(weight[i]));
    }
  }
}

void rope_ref(int tokens, int heads, int head_dim, float theta, std::span<const std::int32_t> positions,
              std::span<const bf16> x, std::span<float> out) {
  const std::size_t n = static_cast<std::size_t>(tokens) * heads * head_dim;
  require(head_dim % 2 == 0 && x.size() == n && out.size() == n &&
              positions.size() == static_cast<std::size_t>(tokens),
          "rope_ref: sizes");
  const int half = head_dim / 2;
  for (int t = 0; t < tokens; ++t) {
    for (int h = 0; h < heads; ++h) {
      const std::size_t base = (static_cast<std::size_t>(t) * heads + h) * head_dim;
      for (int i = 0; i < half; ++i) {
        const float inv_freq = std::pow(theta, static_cast<float>(-2 * i) / static_cast<float>(head_dim));
        const float angle = static_cast<float>(positions[t]) * inv_freq;
        const double c = std::cos(static_cast<double>(angle));
        const double s = std::sin(static_cast<double>(angle));
        const double x1 = bf16_to_float(x[base + i]);
        const double x2 = bf16_to_float(x[base + i + half]);
        out[base + i] = static_cast<float>(x1 * c - x2 * s);
        out[base + i + half] = static_cast<float>(x2 * c + x1 * s);
      }
    }
  }
}

void silu_and_mul_ref(int tokens, int ffn, std::span<const bf16> x, std::span<float> out) {
  require(x.size() == static_cast<std::size_t>(tokens) * 2 * ffn &&
              out.size() == static_cast<std::size_t>(tokens) * ffn,
          "silu_and_mul_ref: sizes");
  for (int t = 0; t < tokens; ++t) {
    for (int i = 0; i < ffn; ++i) {
      const double g = bf16_to_float(x[static_cast<std::size_t>(t) * 2 * ffn + i]);
      const double u = bf16_to_float(x[static_cast<std::size_t>(t) * 2 * ffn + ffn + i]);
      out[static_cast<std::size_t>(t) * ffn + i] = static_cast<float>(g / (1.0 + std::exp(-g)) * u);
    }
  }
}

void gelu_tanh_ref(std::span<const bf16> x, std::span<float> out) {
  require(x.size() == out.size(), "gelu_tanh_ref: sizes");
  const double c = std::sqrt(2.0 / 3.14159265358979323846);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double v = bf16_to_float(x[i]);
    out[i] = static_cast<float>(0.5 * v * (1.0 + std::tanh(c * (v + 0.044715 * v * v * v))));
  }
}

void residual_add_ref(std::span<const bf16> a, std::span<const bf16> b, std::span<float> out) {
  require(a.size() == b.size() && a.size() == out.size(), "residual_add_ref: sizes");
  for (std::size_t i = 0; i < a.size(); ++i) out[i] = bf16_to_float(a[i]) + bf16_to_float(b[i]);
}

void kv_cache_write_ref(int tokens, int kv_heads, int head_dim, int block_tokens,
                        std::span<const bf16> k, std::span<const bf16> v,
                        std::span<const std::int64_t> slot_mapping, std::span<bf16> k_cache,
                        std::span<bf16> v_cache) {
  const std::size_t row = static_cast<std::size_t>(kv_heads) * head_dim;
  require(block_tokens > 0 && k.size() == row * tokens && v.size() == row * tokens &&
              slot_mapping.size() == static_cast<std::size_t>(tokens) &&
              k_cache.size() == v_cache.size() && k_cache.size() % (row * block_tokens) == 0,
          "kv_cache_write_ref: sizes");
  const std::int64_t slots = static_cast<std::int64_t>(k_cache.size() / row);
  for (int t = 0; t < tokens; ++t) {
    const std::int64_t slot = slot_mapping[t];
    if (slot < 0) continue;
    require(slot < slots, "kv_cache_write_ref: slot out of range");
    for (std::size_t e = 0; e < row; ++e) {
      k_cache[static_cast<std::size_t>(slot) * row + e] = k[static_cast<std::size_t>(t) * row + e];
      v_cache[static_cast<std::size_t>(slot) * row + e] = v[static_cast<std::size_t>(t) * row + e];
    }
  }
}

}  // namespace efimsim::kernels
