#pragma once
// SIGINT handling for long runs: the first Ctrl-C raises a flag the
// simulator polls, so the command stops cleanly and writes no partial
// output; a second Ctrl-C kills the process as usual.

#include <atomic>

namespace efimsim::cli {

// Installs the handler (once) and returns the flag it raises.
const std::atomic<bool>* InstallInterruptHandler();

}  // namespace efimsim::cli
