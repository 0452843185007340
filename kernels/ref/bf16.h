#pragma once
// bfloat16 on the host: storage type and conversions, bit-compatible with
// CUDA's __nv_bfloat16 (1 sign, 8 exponent, 7 mantissa bits). Conversion from
// float rounds to nearest, ties to even, and keeps NaN a (quiet) NaN, which is
// what __float2bfloat16_rn does on the device.

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace efimsim::kernels {

struct bf16 {
  std::uint16_t bits = 0;
};
static_assert(sizeof(bf16) == 2);

inline float bf16_to_float(bf16 h) {
  const std::uint32_t u = static_cast<std::uint32_t>(h.bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

inline bf16 float_to_bf16(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) {  // NaN: keep sign, force quiet bit
    return bf16{static_cast<std::uint16_t>((u >> 16) | 0x0040u)};
  }
  u += 0x7fffu + ((u >> 16) & 1u);  // round to nearest even (overflow -> inf)
  return bf16{static_cast<std::uint16_t>(u >> 16)};
}

// The float that a value becomes after a round trip through bf16.
inline float round_to_bf16(float f) { return bf16_to_float(float_to_bf16(f)); }

std::vector<bf16> to_bf16(std::span<const float> x);
std::vector<float> to_float(std::span<const bf16> x);

}  // namespace efimsim::kernels
