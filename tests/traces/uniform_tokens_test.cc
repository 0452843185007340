#include "traces/uniform_tokens.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

namespace efimsim {
namespace {

std::vector<TokenId> Fill(bool scalar, TokenId first, TokenId last, size_t count, uint64_t run) {
  RandomStream stream = RandomStream::Derive(7, run, "uniform-tokens-test");
  std::vector<TokenId> tokens(count);
  if (scalar) {
    FillUniformTokensScalar(stream, first, last, std::span<TokenId>(tokens));
  } else {
    FillUniformTokens(stream, first, last, std::span<TokenId>(tokens));
  }
  return tokens;
}

std::vector<TokenId> FillWith(UniformTokensKernel kernel, TokenId first, TokenId last, size_t count,
                              uint64_t run) {
  RandomStream stream = RandomStream::Derive(7, run, "uniform-tokens-test");
  std::vector<TokenId> tokens(count);
  FillUniformTokensWith(kernel, stream, first, last, std::span<TokenId>(tokens));
  return tokens;
}

void ExpectTheScalarIds(UniformTokensKernel kernel) {
  // Lengths around the eight ids of a step; the wide ranges reject ~30% of halves, so the fast paths' mixed
  // (rejecting) steps are exercised.
  const TokenId kMax = std::numeric_limits<TokenId>::max();
  const TokenId kMin = std::numeric_limits<TokenId>::min();
  const std::pair<TokenId, TokenId> ranges[] = {
      {256, 31999}, {5, 5}, {0, 2}, {-100, 100}, {0, kMax}, {kMin + 1, kMax - 1}, {-1'500'000'000, 1'500'000'000}};
  for (const auto& [first, last] : ranges) {
    for (size_t count : {0, 1, 7, 8, 9, 15, 16, 17, 3071, 4096}) {
      EXPECT_EQ(Fill(true, first, last, count, count), FillWith(kernel, first, last, count, count))
          << "range [" << first << ", " << last << "], " << count << " ids";
    }
  }
}

TEST(UniformTokens, TheAvx2PathGivesTheScalarIdsBitForBit) {
  if (!UniformTokensKernelAvailable(UniformTokensKernel::kAvx2)) GTEST_SKIP() << "no AVX2 on this CPU";
  ExpectTheScalarIds(UniformTokensKernel::kAvx2);
}

TEST(UniformTokens, TheAvx512PathGivesTheScalarIdsBitForBit) {
  if (!UniformTokensKernelAvailable(UniformTokensKernel::kAvx512)) {
    GTEST_SKIP() << "no AVX-512 (F, VL) on this CPU";
  }
  ExpectTheScalarIds(UniformTokensKernel::kAvx512);
}

TEST(UniformTokens, TheDefaultIsTheFastestAvailableKernel) {
  const UniformTokensKernel fastest = FastestUniformTokensKernel();
  EXPECT_TRUE(UniformTokensKernelAvailable(fastest));
  if (UniformTokensKernelAvailable(UniformTokensKernel::kAvx512)) {
    EXPECT_EQ(fastest, UniformTokensKernel::kAvx512);
  } else if (UniformTokensKernelAvailable(UniformTokensKernel::kAvx2)) {
    EXPECT_EQ(fastest, UniformTokensKernel::kAvx2);
  }
  EXPECT_EQ(Fill(false, 256, 31999, 1000, 9), FillWith(fastest, 256, 31999, 1000, 9));
}

// The paper workload makes only the head of a document that a round sends,
// and later more of it from the same seeds: that needs this law.
TEST(UniformTokens, AShortFillIsTheStartOfALongerOne) {
  for (bool scalar : {false, true}) {
    // A wide range, so that rejected halves fall inside the short fill.
    const std::vector<TokenId> full = Fill(scalar, -1'500'000'000, 1'500'000'000, 1000, 3);
    for (size_t count : {1, 8, 13, 500}) {
      const std::vector<TokenId> start = Fill(scalar, -1'500'000'000, 1'500'000'000, count, 3);
      EXPECT_TRUE(std::equal(start.begin(), start.end(), full.begin()))
          << count << " ids, scalar " << scalar;
    }
  }
}

TEST(UniformTokens, AFillTakesTheSameDrawsWhateverItsLength) {
  for (size_t count : {0, 5, 3000}) {
    RandomStream stream = RandomStream::Derive(7, 1, "uniform-tokens-test");
    RandomStream skipped = stream;
    std::vector<TokenId> tokens(count);
    FillUniformTokens(stream, 256, 31999, std::span<TokenId>(tokens));
    for (int i = 0; i < kUniformTokensSeedDraws; ++i) skipped.NextU64();
    EXPECT_EQ(stream.NextU64(), skipped.NextU64()) << count << " ids";
  }
}

TEST(UniformTokens, IdsStayInTheRangeAndCoverIt) {
  const std::vector<TokenId> ids = Fill(false, 10, 17, 80'000, 1);
  std::vector<int64_t> counts(8, 0);
  for (TokenId id : ids) {
    ASSERT_GE(id, 10);
    ASSERT_LE(id, 17);
    ++counts[static_cast<size_t>(id - 10)];
  }
  // 10,000 expected per id; a binomial sd of ~94, so 500 is > 5 sd.
  for (int64_t count : counts) EXPECT_NEAR(static_cast<double>(count), 10'000, 500);
}

TEST(UniformTokens, AWideRangeIsUniformDespiteRejection) {
  // span ~3e9: 2^32 mod span rejects ~30% of halves. Without rejection the
  // lowest third of the range would be drawn twice as often.
  const TokenId first = -1'500'000'000, last = 1'500'000'000;
  const std::vector<TokenId> ids = Fill(false, first, last, 60'000, 2);
  int64_t low_third = 0;
  for (TokenId id : ids) low_third += id < -500'000'000 ? 1 : 0;
  EXPECT_NEAR(static_cast<double>(low_third) / 60'000, 1.0 / 3, 0.01);
}

TEST(UniformTokens, TheSameStreamGivesTheSameIdsAndAnotherStreamOthers) {
  EXPECT_EQ(Fill(false, 256, 31999, 3000, 4), Fill(false, 256, 31999, 3000, 4));
  EXPECT_NE(Fill(false, 256, 31999, 3000, 4), Fill(false, 256, 31999, 3000, 5));
}

}  // namespace
}  // namespace efimsim
