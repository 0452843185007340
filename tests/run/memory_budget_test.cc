// A run's memory estimate is checked against its budget before anything
// that grows with an option is built (sim/run/memory_budget.h).
#include "sim/run/memory_budget.h"

#include <gtest/gtest.h>

#include "sim/base/errors.h"
#include "sim/run/experiment.h"

namespace efimsim {
namespace {

constexpr double kGib = 1073741824.0;

TEST(MemoryBudget, TheLargestItemIsNamedWithItsOptions) {
  const std::vector<MemoryItem> items = {{"small", "--a 1", 1 * kGib},
                                         {"the big part", "--b 2", 3 * kGib}};
  try {
    CheckMemoryBudget(items, 2 * kGib, 2);
    FAIL() << "4 GiB passed a 2 GiB budget";
  } catch (const UsageError& error) {
    const std::string what = error.what();
    EXPECT_EQ(what.rfind("--b 2: the big part would need about 3.0 GiB (the whole run about 4.0 GiB)", 0), 0u)
        << what;
    EXPECT_NE(what.find("--max-memory-gib 2.0"), std::string::npos) << what;
  }
  EXPECT_NO_THROW(CheckMemoryBudget(items, 4 * kGib, 4));
}

TEST(MemoryBudget, DefaultIsAShareOfThisMachinesMemory) {
  EXPECT_DOUBLE_EQ(MemoryBudgetBytes(1.5), 1.5 * kGib);
  EXPECT_GE(MemoryBudgetBytes(0), kGib);  // at least 1 GiB, whatever sysconf says
}

TEST(MemoryBudget, ARunTooBigIsRefusedBeforeItsPoolExists) {
  // 2^31 - 1 blocks would be ~220 GiB of pool structures: refused at once,
  // by ValidateExperiment too (so a sweep refuses the grid point up front).
  ExperimentConfig config;
  config.documents = "synthetic";
  config.engine.kv_blocks = 2'000'000'000;
  EXPECT_THROW(ValidateExperiment(config), UsageError);
  config.engine.kv_blocks = 100'000;
  config.max_memory_gib = 0.001;  // 1 MiB: even 100,000 blocks (~11 MB) do not fit
  EXPECT_THROW(ValidateExperiment(config), UsageError);
  config.max_memory_gib = 1;
  EXPECT_NO_THROW(ValidateExperiment(config));
}

}  // namespace
}  // namespace efimsim
