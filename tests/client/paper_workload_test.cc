#include "traces/paper_workload.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "sim/base/errors.h"

namespace efimsim {
namespace {

TEST(PaperLayout, ReproducesPythonArithmetic) {
  // From the paper's artifact formula evaluated in Python 3.
  const PaperRoundLayout a = ComputePaperLayout(3000, 5);
  EXPECT_EQ(a.half, 1500);
  EXPECT_EQ(a.chunk, 214);
  EXPECT_EQ(a.middle_end, (std::vector<int64_t>{428, 642, 857, 1071, 1285}));
  const PaperRoundLayout b = ComputePaperLayout(2049, 10);
  EXPECT_EQ(b.chunk, 85);
  EXPECT_EQ(b.middle_end.back(), 938);
}

TEST(PaperLayout, UsesFloatingPointLikePythonNotExactDivision) {
  // Python: int(119 / 49 * 21) == 50, while 119 * 21 // 49 == 51.
  EXPECT_EQ(ComputePaperLayout(238, 47).middle_end[19], 50);
}

TEST(PaperWorkload, RoundsGrowThePrefixAndKeepTheSuffix) {
  PaperWorkloadConfig config;
  config.users = 3;
  config.rounds = 5;
  const PaperWorkload workload(config);
  for (int64_t user = 0; user < 3; ++user) {
    const TokenSpan doc = workload.document(user);
    EXPECT_GT(doc.size(), 2048u);
    EXPECT_LT(doc.size(), 4096u);
    const PaperRoundLayout layout = ComputePaperLayout(static_cast<int64_t>(doc.size()), 5);
    const TokenVector initial = workload.InitialPrefix(user);
    EXPECT_EQ(static_cast<int64_t>(initial.size()), layout.chunk);
    for (int64_t round = 0; round < 5; ++round) {
      const InfillContext context = workload.Round(user, round);
      EXPECT_EQ(static_cast<int64_t>(context.prefix.size()), layout.middle_end[round]);
      EXPECT_TRUE(std::equal(initial.begin(), initial.end(), context.prefix.begin()));
      EXPECT_EQ(static_cast<int64_t>(context.suffix.size()),
                static_cast<int64_t>(doc.size()) - layout.half);
    }
  }
}

TEST(PaperWorkload, AUsersDocumentDoesNotDependOnHowManyUsersThereAre) {
  PaperWorkloadConfig small, large;
  small.users = 2;
  large.users = 50;
  const PaperWorkload a(small), b(large);
  EXPECT_TRUE(std::ranges::equal(a.document(1), b.document(1)));
}

TEST(PaperWorkload, RejectsImpossibleSettings) {
  PaperWorkloadConfig config;
  config.users = 0;
  EXPECT_THROW(PaperWorkload{config}, UsageError);
  config.users = 1;
  config.doc_min_tokens = 100;
  config.doc_max_tokens = 101;
  EXPECT_THROW(PaperWorkload{config}, UsageError);
}

}  // namespace
}  // namespace efimsim
