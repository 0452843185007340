#pragma once
// Comparison and random-input helpers shared by the CPU tests and the GPU
// checks of efimsim-calibrate.

#include <cstdint>
#include <span>

#include "bf16.h"

namespace efimsim::kernels {

// ||got - want||_2 / ||want||_2, computed in double. Returns +infinity when
// the sizes differ or any element of `got` or `want` is NaN or infinite, so a
// NaN can never pass a `<= tolerance` test. When ||want|| is 0 the absolute
// norm ||got|| is returned.
double rel_error_by_norm(std::span<const float> got, std::span<const float> want);

// True when every element is finite.
bool all_finite(std::span<const float> x);

// Tolerance for a bf16 result compared with an fp32 reference: bf16 keeps
// 8 significant bits (relative rounding 2^-9), so a correct kernel lands
// between 1e-3 and 1e-2.
inline constexpr double kBf16Tolerance = 1e-2;

// Deterministic generator (splitmix64); the same seed gives the same values
// on every platform, unlike std:: distributions.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next_u64();
  double uniform();                              // [0, 1)
  float uniform(float lo, float hi);             // [lo, hi)
  int uniform_int(int lo, int hi_inclusive);     // [lo, hi]

  // splitmix64 is counter based: draw j (0-based) from state s is
  // mix(s + (j + 1) * kGamma). fill_uniform uses this to fill large spans in
  // parallel with exactly the values of a sequential fill.
  static constexpr std::uint64_t kGamma = 0x9e3779b97f4a7c15ull;
  static std::uint64_t mix(std::uint64_t z);
  std::uint64_t state() const { return state_; }
  void skip(std::uint64_t draws) { state_ += draws * kGamma; }

 private:
  std::uint64_t state_;
};

// x[i] = rng.uniform(lo, hi) for i in order, and rng advances by x.size()
// draws. Large spans are filled on every core; the values do not depend on
// the thread count (the host side of the GPU checks fills weights of up to a
// billion elements).
void fill_uniform(std::span<bf16> x, Rng& rng, float lo, float hi);
void fill_uniform(std::span<float> x, Rng& rng, float lo, float hi);

}  // namespace efimsim::kernels
