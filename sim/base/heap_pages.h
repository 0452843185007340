#pragma once
// Process-wide heap settings that make memory cheaper to touch, set once at
// the start of main (before the run allocates its tables and pools).
//
// Every first touch of a 4 KiB page is a page fault. On the virtual machines
// efimsim is developed and tested on a fault costs ~11 us (an 8 MiB memset
// of fresh memory: 23 ms), so a 2,000-user replay spent a quarter of its
// time in ~4,800 faults and a one-request run more than half of it. Backed
// by 2 MiB transparent huge pages, the same memory takes one fault per 2 MiB.
// Linux lends such pages to a process that asks (madvise) on most systems
// (/sys/kernel/mm/transparent_hugepage/enabled: "madvise" or "always").
//
// BackHeapWithHugePages (glibc on Linux; elsewhere, and under
// AddressSanitizer, which has its own allocator, it does nothing):
//  - serves allocations of up to 64 MiB from the heap rather than from
//    mappings of their own, keeps up to 128 MiB of freed heap instead of
//    returning it to the kernel (a returned page faults again when reused),
//    and grows the heap by 64 MiB at a time;
//  - grows the heap once now and asks for huge pages over the new part.
// The heap beyond that first 64 MiB keeps ordinary pages. Nothing it does
// changes what a run computes: outputs are byte-identical with or without
// it. Peak RSS can grow by up to 2 MiB, since memory is lent in huge pages.
// Best effort: a refusal by the kernel is ignored.

namespace efimsim {

void BackHeapWithHugePages();

// The same for the calling thread's malloc arena (glibc gives each worker
// thread a heap of its own: a 64 MiB mapping, aligned to its size, which
// the heap pad above makes writable at once). Call at the start of a worker
// thread, after BackHeapWithHugePages in main. Nothing on the main thread,
// nor where the arena is not such a mapping.
void BackThreadHeapWithHugePages();

}  // namespace efimsim
