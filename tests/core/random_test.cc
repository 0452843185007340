#include "sim/core/random.h"

#include <gtest/gtest.h>

#include <vector>

namespace efimsim {
namespace {

std::vector<uint64_t> Draw(RandomStream stream, int count) {
  std::vector<uint64_t> out;
  for (int i = 0; i < count; ++i) out.push_back(stream.NextU64());
  return out;
}

TEST(RandomStream, SameSeedRunAndNameGiveTheSameDraws) {
  EXPECT_EQ(Draw(RandomStream::Derive(1, 0, "a"), 10), Draw(RandomStream::Derive(1, 0, "a"), 10));
}

TEST(RandomStream, SeedRunAndNameEachChangeTheStream) {
  const auto base = Draw(RandomStream::Derive(1, 0, "a"), 4);
  EXPECT_NE(base, Draw(RandomStream::Derive(2, 0, "a"), 4));
  EXPECT_NE(base, Draw(RandomStream::Derive(1, 1, "a"), 4));
  EXPECT_NE(base, Draw(RandomStream::Derive(1, 0, "b"), 4));
}

TEST(RandomStream, KnownFirstDrawPinsCrossPlatformDeterminism) {
  // If this changes, every seeded output of efimsim changes: bump schema versions.
  RandomStream stream = RandomStream::Derive(1, 0, "pin");
  const uint64_t first = stream.NextU64();
  RandomStream again = RandomStream::Derive(1, 0, "pin");
  EXPECT_EQ(first, again.NextU64());
  EXPECT_EQ(Mix64(0), 0xe220a8397b1dcdafULL);
}

TEST(RandomStream, UniformIntStaysInRangeAndCoversIt) {
  RandomStream stream = RandomStream::Derive(3, 0, "uniform");
  std::vector<int> counts(7, 0);
  for (int i = 0; i < 7000; ++i) {
    const int64_t v = stream.UniformInt(10, 16);
    ASSERT_GE(v, 10);
    ASSERT_LE(v, 16);
    ++counts[v - 10];
  }
  for (const int c : counts) EXPECT_GT(c, 800);
}

TEST(RandomStream, UniformDoubleIsInUnitInterval) {
  RandomStream stream = RandomStream::Derive(3, 0, "double");
  for (int i = 0; i < 1000; ++i) {
    const double v = stream.UniformDouble();
    ASSERT_GE(v, 0.0);
    ASSERT_LT(v, 1.0);
  }
}

}  // namespace
}  // namespace efimsim
