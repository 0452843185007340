#include "numerics.h"

#include <cmath>
#include <limits>

namespace efimsim::kernels {

std::vector<bf16> to_bf16(std::span<const float> x) {
  std::vector<bf16> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) out[i] = float_to_bf16(x[i]);
  return out;
}

std::vector<float> to_float(std::span<const bf16> x) {
  std::vector<float> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) out[i] = bf16_to_float(x[i]);
  return out;
}

double rel_error_by_norm(std::span<const float> got, std::span<const float> want) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (got.size() != want.size()) return kInf;
  double diff2 = 0.0;
  double want2 = 0.0;
  double got2 = 0.0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!std::isfinite(got[i]) || !std::isfinite(want[i])) return kInf;
    const double d = static_cast<double>(got[i]) - static_cast<double>(want[i]);
    diff2 += d * d;
    want2 += static_cast<double>(want[i]) * want[i];
    got2 += static_cast<double>(got[i]) * got[i];
  }
  if (want2 == 0.0) return std::sqrt(got2);
  return std::sqrt(diff2 / want2);
}

bool all_finite(std::span<const float> x) {
  for (float v : x) {
    if (!std::isfinite(v)) return false;
  }
  return true;
}

std::uint64_t Rng::next_u64() {
  std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double Rng::uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

float Rng::uniform(float lo, float hi) {
  return lo + static_cast<float>(uniform()) * (hi - lo);
}

int Rng::uniform_int(int lo, int hi_inclusive) {
  const std::uint64_t span = static_cast<std::uint64_t>(hi_inclusive - lo) + 1;
  return lo + static_cast<int>(next_u64() % span);
}

void fill_uniform(std::span<bf16> x, Rng& rng, float lo, float hi) {
  for (auto& v : x) v = float_to_bf16(rng.uniform(lo, hi));
}

void fill_uniform(std::span<float> x, Rng& rng, float lo, float hi) {
  for (auto& v : x) v = rng.uniform(lo, hi);
}

}  // namespace efimsim::kernels
