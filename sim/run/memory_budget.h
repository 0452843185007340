#pragma once
// A run's memory, estimated from its options before anything that grows
// with them is allocated: the engines' KV structures (per replica) and what
// a workload materialises up front. A run whose estimate exceeds its budget
// is refused with a usage error naming the options behind the largest part,
// instead of dying of bad_alloc (exit 3) or swapping for minutes.
//
// The budget: --max-memory-gib, or 80% of this machine's physical memory.
// Estimates are per-item byte costs measured on this build (the RSS growth
// they cause, given beside each constant), so they are approximate; they
// decide only whether a run may start, never any output.

#include <cstdint>
#include <string>
#include <vector>

namespace efimsim {

struct MemoryItem {
  std::string what;     // "the KV cache structures of 4 replicas"
  std::string options;  // the options it grows with: "--kv-blocks 500000000, --replicas 4"
  double bytes = 0;     // double: an estimate may exceed int64 for absurd options
};

// Bytes a run may use: `max_memory_gib` x 2^30 when > 0, else 80% of the
// physical memory (sysconf), at least 1 GiB.
double MemoryBudgetBytes(double max_memory_gib);

// UsageError when the items add up to more than `budget_bytes`, naming
// the largest item's options and the budget's source.
void CheckMemoryBudget(const std::vector<MemoryItem>& items, double budget_bytes,
                       double max_memory_gib);

}  // namespace efimsim
