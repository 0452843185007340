#pragma once
// Stopping a command from outside: SIGINT (Ctrl-C), SIGTERM (kill, Slurm,
// systemd, timeout) and SIGHUP (a closed terminal) raise one process-wide
// flag and record which signal came first. The handler does nothing else
// (an atomic store: async-signal-safe); the commands poll the flag between
// runs, sweep points and capacity probes, in set-up loops, in long readers
// and writers, and the simulator every few thousand events, and throw
// Interrupted. Unwinding removes what was staged (StagedOutputDir, the
// temporary files of AtomicOutputFile) on the main thread, and main exits
// 128 + the signal (130, 143, 129). Later signals only raise the flag
// again: they cannot cut the clean-up short, so nothing staged is left.

#include <atomic>
#include <string>

namespace efimsim::cli {

// Installs the handler for SIGINT, SIGTERM and SIGHUP (restarting
// interrupted system calls). main calls it first, for every command.
void InstallInterruptHandler();

// The flag the handler raises; never lowered. For ExperimentConfig::interrupt.
const std::atomic<bool>* InterruptFlag();

// The first signal received (SIGINT, SIGTERM or SIGHUP), 0 if none.
int InterruptSignal();

// Throws Interrupted once a signal came. Cheap (one relaxed load): call it
// in loops, between steps, before committing outputs.
void ThrowIfInterrupted();

// "SIGINT", "SIGTERM", "SIGHUP" for InterruptSignal().
std::string InterruptSignalName();

}  // namespace efimsim::cli
