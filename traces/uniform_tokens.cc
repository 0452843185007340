#include "traces/uniform_tokens.h"

#include <cstdint>

#include "sim/base/check.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace efimsim {
namespace {

constexpr int kLanes = 4;
constexpr int kIdsPerStep = 2 * kLanes;
constexpr uint64_t kLow32 = 0xffffffff;

// The range as Lemire's method needs it.
struct IdRange {
  uint32_t first_bits;  // `first` as unsigned bits: ids wrap like uint32
  uint64_t span;        // last - first + 1, in [1, 2^32)
  uint64_t threshold;   // 2^32 mod span: a half whose low product word is below it is rejected
};

IdRange MakeRange(TokenId first, TokenId last) {
  EFIMSIM_CHECK(first <= last, "empty synthetic token range");
  const uint64_t span = static_cast<uint64_t>(static_cast<int64_t>(last) - first) + 1;
  EFIMSIM_CHECK(span < (uint64_t{1} << 32), "synthetic token range must hold fewer than 2^32 ids");
  return IdRange{static_cast<uint32_t>(first), span, (uint64_t{1} << 32) % span};
}

// Lane seeds: four words per lane, drawn from the caller's stream in lane
// order. An all-zero state (probability 2^-256) would stick at zero.
void SeedLanes(RandomStream& stream, uint64_t (&state)[kLanes][4]) {
  for (auto& lane : state) {
    for (uint64_t& word : lane) word = stream.NextU64();
    if ((lane[0] | lane[1] | lane[2] | lane[3]) == 0) lane[0] = 1;
  }
}

// One step of the four lanes: eight candidate ids in order and a bit per
// rejected candidate (bit i: candidate i).
unsigned StepScalar(uint64_t (&state)[kLanes][4], const IdRange& range, TokenId (&ids)[kIdsPerStep]) {
  unsigned rejected = 0;
  for (int lane = 0; lane < kLanes; ++lane) {
    const uint64_t draw = Xoshiro256StarStarNext(state[lane]);
    const uint64_t halves[2] = {draw >> 32, draw & kLow32};
    for (int h = 0; h < 2; ++h) {
      const uint64_t product = halves[h] * range.span;
      const int index = 2 * lane + h;
      ids[index] = static_cast<TokenId>(range.first_bits + static_cast<uint32_t>(product >> 32));
      if ((product & kLow32) < range.threshold) rejected |= 1u << index;
    }
  }
  return rejected;
}

// Appends the accepted candidates of one step to [out, end); returns the new
// out.
TokenId* EmitAccepted(const TokenId (&ids)[kIdsPerStep], unsigned rejected, TokenId* out,
                      TokenId* end) {
  for (int i = 0; i < kIdsPerStep && out != end; ++i) {
    if ((rejected >> i & 1u) == 0) *out++ = ids[i];
  }
  return out;
}

#if defined(__x86_64__)

// AVX2: word w of the four lanes in one register, lane i in 64-bit element
// i, so one step's eight ids come out of one register in lane order.
#define EFIMSIM_AVX2 __attribute__((target("avx2")))

struct LaneWords {
  __m256i s0, s1, s2, s3;
};

template <int K>
EFIMSIM_AVX2 inline __m256i Rotl64(__m256i x) {
  return _mm256_or_si256(_mm256_slli_epi64(x, K), _mm256_srli_epi64(x, 64 - K));
}

// xoshiro256** on the four lanes: x * 5 and x * 9 as shifts and adds.
EFIMSIM_AVX2 inline __m256i NextLanes(LaneWords& p) {
  const __m256i times5 = _mm256_add_epi64(_mm256_slli_epi64(p.s1, 2), p.s1);
  const __m256i rotated = Rotl64<7>(times5);
  const __m256i result = _mm256_add_epi64(_mm256_slli_epi64(rotated, 3), rotated);
  const __m256i t = _mm256_slli_epi64(p.s1, 17);
  p.s2 = _mm256_xor_si256(p.s2, p.s0);
  p.s3 = _mm256_xor_si256(p.s3, p.s1);
  p.s1 = _mm256_xor_si256(p.s1, p.s2);
  p.s0 = _mm256_xor_si256(p.s0, p.s3);
  p.s2 = _mm256_xor_si256(p.s2, t);
  p.s3 = Rotl64<45>(p.s3);
  return result;
}

// Word w of every lane; _mm256_set_epi64x takes the highest element first.
EFIMSIM_AVX2 inline __m256i LaneWord(const uint64_t (&state)[kLanes][4], int w) {
  return _mm256_set_epi64x(static_cast<int64_t>(state[3][w]), static_cast<int64_t>(state[2][w]),
                           static_cast<int64_t>(state[1][w]), static_cast<int64_t>(state[0][w]));
}

// Appends one step's eight candidate ids less the rejected ones to
// [out, end); returns the new out.
EFIMSIM_AVX2 inline TokenId* StoreStep(__m256i ids, unsigned rejected, TokenId* out, TokenId* end) {
  if (rejected == 0 && end - out >= kIdsPerStep) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), ids);
    return out + kIdsPerStep;
  }
  TokenId step_ids[kIdsPerStep];
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(step_ids), ids);
  return EmitAccepted(step_ids, rejected, out, end);
}

EFIMSIM_AVX2 void FillAvx2(RandomStream& stream, const IdRange& range, std::span<TokenId> tokens) {
  uint64_t state[kLanes][4];
  SeedLanes(stream, state);
  LaneWords lanes{LaneWord(state, 0), LaneWord(state, 1), LaneWord(state, 2), LaneWord(state, 3)};
  const __m256i span = _mm256_set1_epi64x(static_cast<int64_t>(range.span));
  // Unsigned compare as signed: both sides with the sign bit flipped.
  const __m256i sign = _mm256_set1_epi32(static_cast<int>(0x80000000u));
  const __m256i threshold =
      _mm256_set1_epi32(static_cast<int>(static_cast<uint32_t>(range.threshold) ^ 0x80000000u));
  const __m256i first = _mm256_set1_epi32(static_cast<int>(range.first_bits));
  const __m256i low_words = _mm256_set1_epi64x(0xffffffff);
  TokenId* out = tokens.data();
  TokenId* const end = out + tokens.size();
  while (out != end) {
    const __m256i draw = NextLanes(lanes);
    // Per lane: the high half's product and the low half's (32 x 32 -> 64).
    const __m256i high_product = _mm256_mul_epu32(_mm256_srli_epi64(draw, 32), span);
    const __m256i low_product = _mm256_mul_epu32(draw, span);
    // Ids [lane.high, lane.low] in each lane's two words: the products' high words.
    const __m256i picked = _mm256_or_si256(_mm256_srli_epi64(high_product, 32),
                                           _mm256_andnot_si256(low_words, low_product));
    const __m256i ids = _mm256_add_epi32(picked, first);
    // The products' low words, in the same places, against the threshold.
    const __m256i remainders = _mm256_or_si256(_mm256_and_si256(high_product, low_words),
                                               _mm256_slli_epi64(low_product, 32));
    const __m256i below = _mm256_cmpgt_epi32(threshold, _mm256_xor_si256(remainders, sign));
    const auto rejected = static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(below)));
    out = StoreStep(ids, rejected, out, end);
  }
}

// AVX-512 (F and VL) on 256-bit registers: the AVX2 steps with each
// rotation one instruction, the ids and remainders picked by word blends
// and the rejection test an unsigned mask compare (fewer instructions a
// step). 512-bit registers were measured slower for the whole process (the
// core runs the rest of the simulator slower after them), so none are used.
#define EFIMSIM_AVX512 __attribute__((target("avx2,avx512f,avx512vl")))

EFIMSIM_AVX512 void FillAvx512(RandomStream& stream, const IdRange& range, std::span<TokenId> tokens) {
  uint64_t state[kLanes][4];
  SeedLanes(stream, state);
  LaneWords lanes{LaneWord(state, 0), LaneWord(state, 1), LaneWord(state, 2), LaneWord(state, 3)};
  const __m256i span = _mm256_set1_epi64x(static_cast<int64_t>(range.span));
  const __m256i threshold = _mm256_set1_epi32(static_cast<int>(static_cast<uint32_t>(range.threshold)));
  const __m256i first = _mm256_set1_epi32(static_cast<int>(range.first_bits));
  // The high 32-bit word of every 64-bit element.
  constexpr __mmask8 kOddWords = 0xAA;
  TokenId* out = tokens.data();
  TokenId* const end = out + tokens.size();
  while (out != end) {
    const __m256i draw = NextLanes(lanes);  // inlined here, its rotations become vprolq
    // Per lane: the high half's product and the low half's (32 x 32 -> 64).
    const __m256i high_product = _mm256_mul_epu32(_mm256_srli_epi64(draw, 32), span);
    const __m256i low_product = _mm256_mul_epu32(draw, span);
    // Ids [lane.high, lane.low] in each lane's two words: the products'
    // high words (a blend takes odd words from its second operand).
    const __m256i picked =
        _mm256_mask_blend_epi32(kOddWords, _mm256_srli_epi64(high_product, 32), low_product);
    const __m256i ids = _mm256_add_epi32(picked, first);
    // The products' low words, in the same places, against the threshold.
    const __m256i remainders =
        _mm256_mask_blend_epi32(kOddWords, high_product, _mm256_slli_epi64(low_product, 32));
    const auto rejected = static_cast<unsigned>(_mm256_cmplt_epu32_mask(remainders, threshold));
    out = StoreStep(ids, rejected, out, end);
  }
}

#undef EFIMSIM_AVX512
#undef EFIMSIM_AVX2

#endif  // __x86_64__

}  // namespace

void FillUniformTokensScalar(RandomStream& stream, TokenId first, TokenId last,
                             std::span<TokenId> tokens) {
  const IdRange range = MakeRange(first, last);
  uint64_t state[kLanes][4];
  SeedLanes(stream, state);
  TokenId* out = tokens.data();
  TokenId* const end = out + tokens.size();
  while (out != end) {
    TokenId ids[kIdsPerStep];
    const unsigned rejected = StepScalar(state, range, ids);
    out = EmitAccepted(ids, rejected, out, end);
  }
}

bool UniformTokensKernelAvailable(UniformTokensKernel kernel) {
  switch (kernel) {
    case UniformTokensKernel::kScalar:
      return true;
#if defined(__x86_64__)
    case UniformTokensKernel::kAvx2:
      return __builtin_cpu_supports("avx2");
    case UniformTokensKernel::kAvx512:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("avx512f") &&
             __builtin_cpu_supports("avx512vl");
#else
    case UniformTokensKernel::kAvx2:
    case UniformTokensKernel::kAvx512:
      return false;
#endif
  }
  return false;
}

UniformTokensKernel FastestUniformTokensKernel() {
  static const UniformTokensKernel fastest = [] {
    if (UniformTokensKernelAvailable(UniformTokensKernel::kAvx512)) return UniformTokensKernel::kAvx512;
    if (UniformTokensKernelAvailable(UniformTokensKernel::kAvx2)) return UniformTokensKernel::kAvx2;
    return UniformTokensKernel::kScalar;
  }();
  return fastest;
}

namespace {

// FillUniformTokensWith without the check: `kernel` is available.
void Fill(UniformTokensKernel kernel, RandomStream& stream, TokenId first, TokenId last,
          std::span<TokenId> tokens) {
  switch (kernel) {
#if defined(__x86_64__)
    case UniformTokensKernel::kAvx2:
      FillAvx2(stream, MakeRange(first, last), tokens);
      return;
    case UniformTokensKernel::kAvx512:
      FillAvx512(stream, MakeRange(first, last), tokens);
      return;
#endif
    default:
      FillUniformTokensScalar(stream, first, last, tokens);
      return;
  }
}

}  // namespace

void FillUniformTokensWith(UniformTokensKernel kernel, RandomStream& stream, TokenId first,
                           TokenId last, std::span<TokenId> tokens) {
  EFIMSIM_CHECK(UniformTokensKernelAvailable(kernel), "synthetic token kernel not supported by this CPU");
  Fill(kernel, stream, first, last, tokens);
}

void FillUniformTokens(RandomStream& stream, TokenId first, TokenId last, std::span<TokenId> tokens) {
  Fill(FastestUniformTokensKernel(), stream, first, last, tokens);
}

}  // namespace efimsim
