#include "models/formats/profile_table.h"

#include <gtest/gtest.h>

#include "models/latency/roofline_fit.h"
#include "tests/models/synthetic_profile.h"

namespace efimsim {
namespace {

// A fit that says nothing (used where a test stays inside the grid).
double FlatFit(double, double) { return 1.0; }

TEST(ProfileTable, InterpolationReproducesMeasuredPointsExactly) {
  const std::vector<ProfileTable::Point> points = {
      {16, 0, 3e-6}, {16, 1024, 7e-6}, {16, 8192, 40e-6},
      {256, 0, 11e-6}, {256, 1024, 29e-6}, {256, 8192, 170e-6}};
  const ProfileTable table(points, 0.0, 1.0, FlatFit);
  for (const auto& p : points) {
    const TableLookup lookup = table.Lookup(p.x, p.y);
    EXPECT_DOUBLE_EQ(lookup.seconds, p.seconds) << p.x << "," << p.y;
    EXPECT_FALSE(lookup.extrapolated);
  }
}

TEST(ProfileTable, LogLogInterpolationIsMonotoneBetweenPoints) {
  const std::vector<ProfileTable::Point> points = {
      {1, 1, 10e-6}, {1, 8, 11e-6}, {1, 64, 30e-6}, {1, 512, 200e-6}, {1, 4096, 1500e-6}};
  const ProfileTable table(points, 0.0, 0.0, FlatFit);
  double previous = 0;
  for (double y = 1; y <= 4096; y *= 1.07) {
    const TableLookup lookup = table.Lookup(1, y);
    EXPECT_GE(lookup.seconds, previous) << y;
    EXPECT_FALSE(lookup.extrapolated);
    previous = lookup.seconds;
  }
  // Halfway in log-log between (8, 11 us) and (64, 30 us): the geometric mean.
  EXPECT_NEAR(table.Lookup(1, std::sqrt(8.0 * 64.0)).seconds, std::sqrt(11e-6 * 30e-6), 1e-12);
}

TEST(RooflineFit, RecoversTheCoefficientsOfExactRooflineData) {
  std::vector<RooflineFitSample> samples;
  for (double m : {1.0, 4.0, 16.0, 64.0, 256.0, 1024.0, 4096.0, 16384.0}) {
    const OperatorWork work{2.0 * m * 4096 * 4096, (4096.0 * 4096 + 2 * m * 4096) * 2};
    samples.push_back({work, testing::kSyntheticRoofline.Seconds(work)});
  }
  const RooflineFit fit = FitRoofline(samples, {1.0 / 790e12, 1.0 / 3e12, 0.0});
  EXPECT_NEAR(fit.seconds_per_flop, testing::kSyntheticRoofline.seconds_per_flop,
              1e-6 * testing::kSyntheticRoofline.seconds_per_flop);
  EXPECT_NEAR(fit.seconds_per_byte, testing::kSyntheticRoofline.seconds_per_byte,
              1e-6 * testing::kSyntheticRoofline.seconds_per_byte);
  EXPECT_NEAR(fit.fixed_seconds, 4e-6, 1e-11);
}

TEST(ProfileTable, ExtrapolationBeyondTheGridIsFlaggedAndFollowsTheFittedRoofline) {
  auto work = [](double m) {
    return OperatorWork{2.0 * m * 6144 * 4096, (6144.0 * 4096 + m * 4096 + m * 6144) * 2};
  };
  std::vector<ProfileTable::Point> points;
  std::vector<RooflineFitSample> samples;
  for (double m : {1.0, 8.0, 64.0, 512.0, 4096.0}) {
    const double seconds = testing::kSyntheticRoofline.Seconds(work(m));
    points.push_back({1, m, seconds});
    samples.push_back({work(m), seconds});
  }
  const RooflineFit fit = FitRoofline(samples, {1.0 / 790e12, 1.0 / 3e12, 0.0});
  const ProfileTable table(points, 0.0, 0.0,
                           [&](double, double m) { return fit.Seconds(work(m)); });
  for (double m : {8192.0, 65536.0}) {
    const TableLookup lookup = table.Lookup(1, m);
    EXPECT_TRUE(lookup.extrapolated) << m;
    const double expected = testing::kSyntheticRoofline.Seconds(work(m));
    EXPECT_NEAR(lookup.seconds, expected, 1e-6 * expected) << m;
  }
  // Anchored at the edge: continuous there, and still flagged just past it.
  EXPECT_NEAR(table.Lookup(1, 4097).seconds, table.Lookup(1, 4096).seconds,
              1e-3 * table.Lookup(1, 4096).seconds);
  EXPECT_FALSE(table.Lookup(1, 4096).extrapolated);
}

// Rows memoize their values at integer keys (profile_table.h): a lookup
// asked again, in any order, from a table that has answered many others
// gives the bits a fresh table gives, flag included, inside the grid,
// beyond it (fit-scaled), between rows and at keys that are not integers.
TEST(ProfileTable, RememberedLookupsAreTheBitsOfFreshOnes) {
  const std::vector<ProfileTable::Point> points = {
      {1, 1, 4e-6}, {1, 1023, 9e-6}, {1, 4095, 30e-6},
      {8, 1, 6e-6}, {8, 1023, 20e-6}, {8, 2047, 41e-6}};
  const auto fit = [](double x, double y) { return 1e-6 * (1 + x) + 1e-8 * y; };
  const ProfileTable used(points, 0.0, 1.0, fit);
  const std::vector<double> ys = {0, 1, 2, 700, 1023, 2047, 2048, 3000.5, 4095, 5000, 200000};
  for (int pass = 0; pass < 2; ++pass) {
    for (double x : {1.0, 3.0, 8.0, 9.0}) {
      for (auto y = ys.rbegin(); y != ys.rend(); ++y) {
        const ProfileTable fresh(points, 0.0, 1.0, fit);
        const TableLookup a = used.Lookup(x, *y);
        const TableLookup b = fresh.Lookup(x, *y);
        EXPECT_EQ(a.seconds, b.seconds) << x << "," << *y;
        EXPECT_EQ(a.extrapolated, b.extrapolated) << x << "," << *y;
      }
    }
  }
  EXPECT_TRUE(used.Lookup(8, 3000).extrapolated);  // beyond row 8's 2047
  EXPECT_FALSE(used.Lookup(1, 3000).extrapolated);
}

// A decode step looks up integer contexts through Lookup(AtX, int64_t) and
// FindRemembered: the same bits as the double key, whether the rows
// remember the value or not, on a row and between rows, by both
// interpolations, and for keys the memo does not hold. FindRemembered
// answers exactly where both rows remember the key and the batch size is
// inside the grid.
TEST(ProfileTable, IntegerKeysAreTheBitsOfDoubleKeys) {
  const std::vector<ProfileTable::Point> points = {
      {1, 1, 4e-6}, {1, 1023, 9e-6}, {1, 4095, 30e-6},
      {8, 1, 6e-6}, {8, 1023, 20e-6}, {8, 2047, 41e-6}};
  const auto fit = [](double x, double y) { return 1e-6 * (1 + x) + 1e-8 * y; };
  for (const Interpolation interpolation : {Interpolation::kLogLog, Interpolation::kLinear}) {
    const ProfileTable by_integer(points, 0.0, 1.0, fit, interpolation);
    const ProfileTable by_double(points, 0.0, 1.0, fit, interpolation);
    const std::vector<int64_t> ys = {0, 1, 2, 700, 1023, 2047, 2048, 3000, 4095, 5000, 70000, 200000};
    for (int pass = 0; pass < 2; ++pass) {  // the second pass reads remembered values
      for (double x : {1.0, 3.0, 8.0, 9.0}) {
        const ProfileTable::AtX at = by_integer.At(x);
        for (const int64_t y : ys) {
          const ProfileTable::RememberedAt before = by_integer.Remembering(at);
          ProfileTable::Prefetch(before, y);
          TableLookup remembered;
          const bool found = by_integer.FindRemembered(before, y, remembered);
          const TableLookup a = by_integer.Lookup(at, y);
          const TableLookup b = by_double.Lookup(by_double.At(x), static_cast<double>(y));
          EXPECT_EQ(a.seconds, b.seconds) << x << "," << y << ", pass " << pass;
          EXPECT_EQ(a.extrapolated, b.extrapolated) << x << "," << y << ", pass " << pass;
          // In the grid's x and the memo's keys, once both rows hold the
          // key: row 8 is filled by x = 3's lookups in the first pass,
          // every row by the second pass.
          const bool expected = x <= 8.0 && y < 65536 && (pass == 1 || x == 8.0);
          EXPECT_EQ(found, expected) << x << "," << y << ", pass " << pass;
          if (found) {
            EXPECT_EQ(remembered.seconds, b.seconds) << x << "," << y;
            EXPECT_EQ(remembered.extrapolated, b.extrapolated) << x << "," << y;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace efimsim
