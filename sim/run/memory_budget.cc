#include "sim/run/memory_budget.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "sim/base/errors.h"

namespace efimsim {
namespace {

constexpr double kGib = 1073741824.0;
// The share of physical memory a run may use by default: room for the OS,
// the tokenizer and outputs being written.
constexpr double kDefaultShareOfPhysical = 0.8;

std::string GibText(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", bytes / kGib);
  return text;
}

}  // namespace

double MemoryBudgetBytes(double max_memory_gib) {
  if (max_memory_gib > 0) return max_memory_gib * kGib;
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  const double physical = pages > 0 && page_size > 0
                              ? static_cast<double>(pages) * static_cast<double>(page_size)
                              : 0.0;
  return std::max(kGib, kDefaultShareOfPhysical * physical);
}

void CheckMemoryBudget(const std::vector<MemoryItem>& items, double budget_bytes,
                       double max_memory_gib) {
  double total = 0;
  const MemoryItem* largest = nullptr;
  for (const MemoryItem& item : items) {
    total += item.bytes;
    if (largest == nullptr || item.bytes > largest->bytes) largest = &item;
  }
  if (largest == nullptr || total <= budget_bytes) return;
  const std::string budget =
      max_memory_gib > 0 ? "--max-memory-gib " + GibText(budget_bytes)
                         : GibText(budget_bytes) + " GiB, 80% of this machine's memory "
                                                   "(--max-memory-gib sets it)";
  const std::string in_all =
      total > largest->bytes ? " (the whole run about " + GibText(total) + " GiB)" : "";
  throw UsageError(largest->options + ": " + largest->what + " would need about " +
                   GibText(largest->bytes) + " GiB" + in_all + ", more than a run may use: " +
                   budget + "; an estimate made before anything was allocated");
}

}  // namespace efimsim
