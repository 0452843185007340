#include "sim/app/interrupt.h"

#include <csignal>

namespace efimsim::cli {
namespace {

// The one process-wide mutable: a signal handler can reach nothing else.
std::atomic<bool> interrupt_requested{false};
static_assert(std::atomic<bool>::is_always_lock_free, "signal-safe flag needs a lock-free atomic");

extern "C" void OnInterrupt(int) {
  interrupt_requested.store(true, std::memory_order_relaxed);
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C terminates at once
}

}  // namespace

const std::atomic<bool>* InstallInterruptHandler() {
  std::signal(SIGINT, OnInterrupt);
  return &interrupt_requested;
}

}  // namespace efimsim::cli
