#include "sim/base/heap_pages.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#if defined(__linux__) && defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#define EFIMSIM_HEAP_PAGES 1
#endif

namespace efimsim {
namespace {

// The block that fills the heap below its first huge page; never freed.
// volatile: a block whose pointer is never read may otherwise be elided.
[[maybe_unused]] void* volatile gap_block = nullptr;

}  // namespace

void BackHeapWithHugePages() {
#if defined(EFIMSIM_HEAP_PAGES)
  constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;
  constexpr std::uintptr_t kChunkHeader = 2 * sizeof(std::size_t);  // glibc's
  constexpr int kHeapStep = 64 << 20;
  mallopt(M_MMAP_THRESHOLD, kHeapStep);
  mallopt(M_TRIM_THRESHOLD, 2 * kHeapStep);
  mallopt(M_TOP_PAD, kHeapStep);
  // More than the heap's top has left: the heap grows by it and the pad,
  // and malloc writes the new top's header just past it: that page is
  // touched now, with an ordinary page, so huge pages start after it.
  void* volatile probe = std::malloc(kHugePage);  // volatile: not elided
  if (probe == nullptr) return;
  const auto begin = reinterpret_cast<std::uintptr_t>(probe);
  std::free(probe);
  const auto end = reinterpret_cast<std::uintptr_t>(sbrk(0));
  // Not the heap just grown (another allocator, such as valgrind's): leave it.
  if (begin >= end || end - begin > kHeapStep + 4 * kHugePage) return;
  const std::uintptr_t first = (begin + kHugePage + 4 * kChunkHeader + kHugePage - 1) & ~(kHugePage - 1);
  const std::uintptr_t last = end & ~(kHugePage - 1);
  if (last <= first || madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE) != 0) return;
  // The top starts at `begin` again: a block never freed fills [begin,
  // first), so what the run allocates next lands in huge pages. Untouched
  // but for the page the top's header was on, it costs address space only.
  gap_block = std::malloc(first - begin - kChunkHeader);
#endif
}

void BackThreadHeapWithHugePages() {
#if defined(EFIMSIM_HEAP_PAGES)
  constexpr std::uintptr_t kThreadHeap = std::uintptr_t{64} << 20;  // glibc's HEAP_MAX_SIZE on 64-bit
  void* volatile probe = std::malloc(64);  // volatile: not elided
  if (probe == nullptr) return;
  const auto at = reinterpret_cast<std::uintptr_t>(probe);
  std::free(probe);
  // The main arena's heap ends at the program break; a thread's arena
  // lies in a mapping of its own, far above it.
  if (at < reinterpret_cast<std::uintptr_t>(sbrk(0))) return;
  madvise(reinterpret_cast<void*>(at & ~(kThreadHeap - 1)), kThreadHeap, MADV_HUGEPAGE);
#endif
}

}  // namespace efimsim
