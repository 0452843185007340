#include "traces/paper_workload.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>

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

TEST(PaperWorkload, DocumentsDoNotDependOnTheOrderTheyAreAskedFor) {
  PaperWorkloadConfig config;
  config.users = 8;
  const PaperWorkload a(config), b(config);
  const TokenSpan five = a.document(5);
  const TokenVector first(five.begin(), five.end());
  b.document(3);
  b.document(7);
  EXPECT_TRUE(std::ranges::equal(first, b.document(5)));
  a.document(0);
  EXPECT_TRUE(std::ranges::equal(first, a.document(5)));  // made again, same tokens
}

// A round makes only the part of the head it sends; what it sends must be
// the document's own ids, whichever call came first, and the head and the
// tail must not repeat each other (they come from different seeds).
TEST(PaperWorkload, ARoundSendsTheDocumentsIdsWhicheverCallCameFirst) {
  PaperWorkloadConfig config;
  config.users = 4;
  const PaperWorkload whole(config);
  for (int64_t user = 0; user < 4; ++user) {
    const TokenSpan doc_view = whole.document(user);
    const TokenVector doc(doc_view.begin(), doc_view.end());
    const PaperRoundLayout layout = ComputePaperLayout(static_cast<int64_t>(doc.size()), config.rounds);
    for (int64_t round = config.rounds - 1; round >= 0; --round) {
      const PaperWorkload fresh(config);  // this round is the first thing asked
      const InfillContext context = fresh.Round(user, round);
      EXPECT_TRUE(std::ranges::equal(context.prefix, TokenSpan(doc).first(context.prefix.size())));
      EXPECT_TRUE(std::ranges::equal(context.suffix, TokenSpan(doc).subspan(static_cast<size_t>(layout.half))));
    }
    const PaperWorkload grown(config);  // a short head first, then longer ones
    const TokenVector initial = grown.InitialPrefix(user);
    EXPECT_TRUE(std::ranges::equal(initial, TokenSpan(doc).first(initial.size())));
    for (int64_t round = 0; round < config.rounds; ++round) {
      const InfillContext context = grown.Round(user, round);
      EXPECT_TRUE(std::ranges::equal(context.prefix, TokenSpan(doc).first(context.prefix.size())));
      EXPECT_TRUE(std::ranges::equal(context.suffix, TokenSpan(doc).subspan(static_cast<size_t>(layout.half))));
    }
    EXPECT_FALSE(std::equal(doc.begin(), doc.begin() + 64, doc.begin() + layout.half));
  }
}

// RoundSuffixIfCheap leaves a freshly loaded user's suffix unmade (the
// prefix is made), reports it, and a later Round makes the same ids.
TEST(PaperWorkload, ASuffixLeftUnmadeIsMadeLaterWithTheSameIds) {
  PaperWorkloadConfig config;
  config.users = 3;
  const PaperWorkload whole(config);
  const PaperWorkload lazy(config);
  for (int64_t user = 0; user < config.users; ++user) {
    const TokenSpan doc_view = whole.document(user);
    const TokenVector doc(doc_view.begin(), doc_view.end());
    const int64_t half = whole.layout(user).half;
    const InfillContext unmade = lazy.RoundSuffixIfCheap(user, 2);
    EXPECT_TRUE(unmade.suffix_ids_unspecified);
    EXPECT_EQ(static_cast<int64_t>(unmade.suffix.size()), static_cast<int64_t>(doc.size()) - half);
    EXPECT_TRUE(std::ranges::equal(unmade.prefix, TokenSpan(doc).first(unmade.prefix.size())));
    const InfillContext context = lazy.Round(user, 2);
    EXPECT_TRUE(std::ranges::equal(context.suffix, TokenSpan(doc).subspan(static_cast<size_t>(half))));
    EXPECT_FALSE(context.suffix_ids_unspecified);
    const InfillContext again = lazy.RoundSuffixIfCheap(user, 3);
    EXPECT_FALSE(again.suffix_ids_unspecified);  // the same user, its suffix made by Round
    EXPECT_TRUE(std::ranges::equal(again.suffix, context.suffix));
  }
}

// Issue 25 item 3: documents were built eagerly (~160 GB up front for 10 M
// users, std::bad_alloc); now one document is held at a time.
TEST(PaperWorkload, TenMillionUsersNeedNoMemoryUpFront) {
  PaperWorkloadConfig config;
  config.users = 10000000;
  config.memory_budget_bytes = INT64_MAX;  // the workload alone, not a whole run
  const PaperWorkload workload(config);
  const TokenSpan last = workload.document(config.users - 1);
  EXPECT_GT(last.size(), 2048u);
  EXPECT_LT(last.size(), 4096u);
  EXPECT_EQ(workload.InitialPrefix(config.users - 1).size(),
            static_cast<size_t>(workload.layout(config.users - 1).chunk));
}

TEST(PaperWorkload, RefusesARunThatCannotFitSayingWhatItNeeds) {
  PaperWorkloadConfig config;
  config.users = 10000000;
  config.memory_budget_bytes = int64_t{16} << 30;
  const int64_t needed = PaperWorkloadPeakBytes(config);
  EXPECT_GT(needed, int64_t{32} << 30);  // ~3.9 KB per user
  try {
    const PaperWorkload workload(config);
    ADD_FAILURE() << "no UsageError for " << workload.num_users() << " users";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("--users: 10000000 users would need about"), std::string::npos) << what;
    EXPECT_NE(what.find("users fit"), std::string::npos) << what;
  }
  config.users = 1000;  // ~5 MB
  EXPECT_NO_THROW(PaperWorkload{config});
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
