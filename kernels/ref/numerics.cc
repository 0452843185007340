#include "numerics.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "parallel.h"

namespace efimsim::kernels {

std::vector<bf16> to_bf16(std::span<const float> x) {
  std::vector<bf16> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) out[i] = float_to_bf16(x[i]);
  return out;
}

namespace {

// Elements per parallel work item: large enough that a span of a few
// thousand elements stays on the calling thread.
constexpr std::size_t kChunk = std::size_t{1} << 20;

// body(begin, end) for each chunk of [0, n), on every core.
template <class F>
void for_each_chunk(std::size_t n, F&& body) {
  parallel_for(static_cast<std::int64_t>((n + kChunk - 1) / kChunk), [&](std::int64_t c) {
    const std::size_t begin = static_cast<std::size_t>(c) * kChunk;
    body(begin, std::min(n, begin + kChunk));
  });
}

// Value of Rng::uniform(lo, hi) for the draw with splitmix64 counter z.
float uniform_at(std::uint64_t z, float lo, float hi) {
  const double u = static_cast<double>(Rng::mix(z) >> 11) * 0x1.0p-53;
  return lo + static_cast<float>(u) * (hi - lo);
}

template <class T, class Convert>
void fill_parallel(std::span<T> x, Rng& rng, float lo, float hi, Convert convert) {
  const std::uint64_t base = rng.state();
  for_each_chunk(x.size(), [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) x[i] = convert(uniform_at(base + (i + 1) * Rng::kGamma, lo, hi));
  });
  rng.skip(x.size());
}

}  // namespace

std::vector<float> to_float(std::span<const bf16> x) {
  std::vector<float> out(x.size());
  for_each_chunk(x.size(), [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) out[i] = bf16_to_float(x[i]);
  });
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

std::uint64_t Rng::next_u64() { return mix(state_ += kGamma); }

std::uint64_t Rng::mix(std::uint64_t z) {
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
  fill_parallel(x, rng, lo, hi, [](float v) { return float_to_bf16(v); });
}

void fill_uniform(std::span<float> x, Rng& rng, float lo, float hi) {
  fill_parallel(x, rng, lo, hi, [](float v) { return v; });
}

}  // namespace efimsim::kernels
