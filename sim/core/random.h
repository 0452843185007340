#pragma once
// Named random streams. Every consumer of randomness owns a RandomStream
// derived from (seed, run, stream name), so adding a component or drawing
// more from one stream never shifts another's draws.
//
// The generator (xoshiro256**) and the distributions are implemented here,
// not taken from <random>, whose distributions differ between standard
// libraries: the same seed gives the same bytes on every platform.

#include <bit>
#include <cstdint>
#include <string_view>

namespace efimsim {

// One step of xoshiro256** on `state` (not all zero): returns 64 random
// bits. Also run directly by generators that keep several states in lanes
// (traces/uniform_tokens.h).
inline uint64_t Xoshiro256StarStarNext(uint64_t (&state)[4]) {
  const uint64_t result = std::rotl(state[1] * 5, 7) * 9;
  const uint64_t t = state[1] << 17;
  state[2] ^= state[0];
  state[3] ^= state[1];
  state[1] ^= state[2];
  state[0] ^= state[3];
  state[2] ^= t;
  state[3] = std::rotl(state[3], 45);
  return result;
}

class RandomStream {
 public:
  // A stream for `name` in run `run` of experiment seed `seed`.
  static RandomStream Derive(uint64_t seed, uint64_t run, std::string_view name);

  // The next 64 random bits (xoshiro256**). Inline: synthetic documents
  // draw millions of these.
  uint64_t NextU64() { return Xoshiro256StarStarNext(state_); }
  // Uniform integer in [lo, hi] (inclusive), unbiased. Requires lo <= hi.
  int64_t UniformInt(int64_t lo, int64_t hi);
  // Uniform double in [0, 1) with 53 random bits.
  double UniformDouble();
  // Exponential with the given mean (> 0).
  double Exponential(double mean);

 private:
  explicit RandomStream(uint64_t seed_material);
  uint64_t state_[4];
};

// A 64-bit mix (splitmix64 finalizer); a bijection, used for seeding and
// for hashing small integer tuples. Inline: replicas draw one per generated
// token.
inline uint64_t Mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
// FNV-1a over bytes, then mixed; stable across platforms.
uint64_t HashName(std::string_view name);
// A stream's `run` key for Derive from two integers, e.g. a request's
// identity that is the same under every policy: (user, round) in the closed
// loop, (session hash, text edits applied) for editing sessions.
inline uint64_t PairKey(uint64_t a, uint64_t b) { return Mix64(Mix64(a) + b); }

}  // namespace efimsim
