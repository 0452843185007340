#include "sim/app/interrupt.h"

#include <csignal>

#include "sim/base/errors.h"

namespace efimsim::cli {
namespace {

// The process-wide mutables: a signal handler can reach nothing else.
std::atomic<bool> interrupt_requested{false};
std::atomic<int> first_signal{0};
static_assert(std::atomic<bool>::is_always_lock_free, "signal-safe flag needs a lock-free atomic");
static_assert(std::atomic<int>::is_always_lock_free, "signal-safe flag needs a lock-free atomic");

extern "C" void OnInterrupt(int signal_number) {
  int none = 0;
  first_signal.compare_exchange_strong(none, signal_number, std::memory_order_relaxed);
  interrupt_requested.store(true, std::memory_order_release);
}

}  // namespace

void InstallInterruptHandler() {
  struct sigaction action {};
  action.sa_handler = OnInterrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // reads and writes go on; the flag is polled
  for (const int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
    sigaction(signal_number, &action, nullptr);
  }
}

const std::atomic<bool>* InterruptFlag() { return &interrupt_requested; }

int InterruptSignal() {
  // The handler records the signal before it raises the flag.
  if (!interrupt_requested.load(std::memory_order_acquire)) return 0;
  return first_signal.load(std::memory_order_relaxed);
}

void ThrowIfInterrupted() {
  if (interrupt_requested.load(std::memory_order_relaxed)) throw Interrupted("interrupted");
}

std::string InterruptSignalName() {
  switch (InterruptSignal()) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "a signal";
  }
}

}  // namespace efimsim::cli
