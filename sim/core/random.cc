#include "sim/core/random.h"

#include <bit>
#include <cmath>

#include "sim/base/check.h"
#include "sim/base/uint128.h"

namespace efimsim {

uint64_t HashName(std::string_view name) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (const char c : name) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ULL;
  }
  return Mix64(hash);
}

RandomStream RandomStream::Derive(uint64_t seed, uint64_t run, std::string_view name) {
  return RandomStream(Mix64(Mix64(seed) ^ std::rotl(Mix64(run), 17)) ^ HashName(name));
}

RandomStream::RandomStream(uint64_t seed_material) {
  uint64_t x = seed_material;
  for (uint64_t& word : state_) {
    x = Mix64(x);
    word = x;
  }
  if ((state_[0] | state_[1] | state_[2] | state_[3]) == 0) state_[0] = 1;
}

int64_t RandomStream::UniformInt(int64_t lo, int64_t hi) {
  EFIMSIM_CHECK(lo <= hi, "UniformInt: empty range");
  const uint64_t range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  if (range == UINT64_MAX) return static_cast<int64_t>(NextU64());
  const uint64_t span = range + 1;
  // Lemire's nearly-divisionless method, with rejection for exactness.
  Uint128 product = static_cast<Uint128>(NextU64()) * span;
  uint64_t low = static_cast<uint64_t>(product);
  if (low < span) {
    const uint64_t threshold = (0 - span) % span;
    while (low < threshold) {
      product = static_cast<Uint128>(NextU64()) * span;
      low = static_cast<uint64_t>(product);
    }
  }
  return static_cast<int64_t>(static_cast<uint64_t>(lo) + static_cast<uint64_t>(product >> 64));
}

double RandomStream::UniformDouble() {
  return static_cast<double>(NextU64() >> 11) * 0x1.0p-53;
}

double RandomStream::Exponential(double mean) {
  EFIMSIM_CHECK(mean > 0.0, "Exponential: mean must be positive");
  return -mean * std::log1p(-UniformDouble());
}

}  // namespace efimsim
