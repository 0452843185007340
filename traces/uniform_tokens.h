#pragma once
// Synthetic token ids, uniform over a range, made fast: the paper workload
// makes a ~3,000-token document for every request it sends.
//
// The ids come from four independent xoshiro256** lanes seeded from the
// caller's stream (16 draws). Each lane's 64-bit output gives two ids, its
// high 32-bit half first; one step of the four lanes gives eight ids in lane
// order. Each half is mapped to [first, last] by Lemire's multiply-shift with
// rejection, so the ids are exactly uniform (a rejected half, probability
// (2^32 mod span) / 2^32, about 1e-6 for 32k ids, is skipped).
//
// Three implementations give the same ids, bit for bit: AVX2 (the four
// lanes in one register), AVX-512 (the same on 256-bit registers with
// AVX-512's rotates, blends and mask compares: ~20% faster) and a portable
// scalar one. The fastest the CPU has
// is chosen at run time; a test holds every available one equal to the
// scalar one.
#include <span>

#include "sim/core/random.h"
#include "sim/base/tokens.h"

namespace efimsim {

// Draws a fill takes from the caller's stream: its lanes' seeds.
inline constexpr int kUniformTokensSeedDraws = 16;

// Fills `tokens` with ids uniform in [first, last] (first <= last, and the
// range fewer than 2^32 ids); advances `stream` by kUniformTokensSeedDraws
// draws, whatever the length. Filling n ids gives the first n of any longer
// fill from the same stream.
void FillUniformTokens(RandomStream& stream, TokenId first, TokenId last, std::span<TokenId> tokens);

// The scalar implementation, always compiled: the reference for tests.
void FillUniformTokensScalar(RandomStream& stream, TokenId first, TokenId last,
                             std::span<TokenId> tokens);

// The implementations, for tests and benchmarks that compare them.
enum class UniformTokensKernel { kScalar, kAvx2, kAvx512 };
// Whether this CPU (and build) can run `kernel`.
bool UniformTokensKernelAvailable(UniformTokensKernel kernel);
// The one FillUniformTokens uses: the fastest available.
UniformTokensKernel FastestUniformTokensKernel();
// FillUniformTokens with the given implementation; `kernel` must be
// available (checked).
void FillUniformTokensWith(UniformTokensKernel kernel, RandomStream& stream, TokenId first,
                           TokenId last, std::span<TokenId> tokens);

}  // namespace efimsim
