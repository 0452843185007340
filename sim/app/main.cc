// efimsim: discrete-event simulator of LLM serving for multi-round code
// infilling. Exit codes: 0 ok, 2 usage error, 1 bad input or output,
// 3 internal error (a bug: please report it with the command line),
// 128 + the signal when SIGINT (130), SIGTERM (143) or SIGHUP (129) stopped
// the command: it then wrote nothing, and an earlier output at --out is as
// it was (sim/app/interrupt.h).
#include <csignal>
#include <cstring>
#include <iostream>
#include <string>

#include "sim/app/command_table.h"
#include "sim/app/commands.h"
#include "sim/app/interrupt.h"
#include "sim/base/check.h"
#include "sim/base/errors.h"
#include "sim/base/heap_pages.h"

namespace {

// `efimsim --help`: what efimsim is, then every command (command_table.h).
std::string Usage() {
  return "usage: efimsim <command> [options]     (efimsim <command> --help for its options)\n"
         "\n"
         "Simulates LLM serving of code-completion (fill-in-the-middle) traffic on a model of\n"
         "the vLLM v1 engine (or SGLang: --engine sglang), comparing prompt formats and\n"
         "prefix-cache policies.\n"
         "\n" +
         efimsim::cli::CommandsUsage() +
         "\n"
         "With no command, `efimsim compare` runs the EFIM paper's benchmark\n"
         "(16 users x 5 rounds, Llama-3.1-8B on one H100; latency model auto: the serving engine's\n"
         "own kernels measured on that GPU (AIConfigurator's vLLM tables), a calibrated fallback\n"
         "for GPUs without any).\n";
}

int Dispatch(int argc, const char* const* argv) {
  using namespace efimsim::cli;
  if (argc < 2) return RunCompareCommand(1, argv);
  const std::string command = argv[1];
  if (command == "--help" || command == "-h" || command == "help") {
    std::cout << Usage();
    return 0;
  }
  if (command == "--version") {
    std::cout << "efimsim 0.1.0\n";
    return 0;
  }
  // The README's command table (tests/cli/command_table_test.sh compares them).
  if (command == "--commands-markdown") {
    std::cout << CommandsMarkdown();
    return 0;
  }
  const CommandEntry* entry = FindCommand(command);
  if (entry == nullptr) {
    std::string names;
    std::string last;  // a command with subcommands has one entry per subcommand, in a row
    for (const CommandEntry& c : Commands()) {
      if (c.name != last) names += (names.empty() ? "" : ", ") + c.name;
      last = c.name;
    }
    throw efimsim::UsageError("unknown command '" + command + "' (commands: " + names +
                              "; see efimsim --help)");
  }
  // Each command parses argv[1..] (its own name stands where a program name would).
  return entry->run(argc - 1, argv + 1);
}

}  // namespace

int main(int argc, char** argv) {
  // Before the run allocates its tables and pools (sim/base/heap_pages.h).
  efimsim::BackHeapWithHugePages();
  // Before any command stages anything: from here on a signal only raises
  // the flag the commands poll.
  efimsim::cli::InstallInterruptHandler();
  try {
    return Dispatch(argc, argv);
  } catch (const efimsim::Interrupted& interrupted) {
    // What was staged is gone: unwinding removed it on the way here.
    std::cerr << "efimsim: " << interrupted.what() << " by "
              << efimsim::cli::InterruptSignalName() << "; no output files were written\n";
    const int signal_number = efimsim::cli::InterruptSignal();
    return 128 + (signal_number != 0 ? signal_number : SIGINT);
  } catch (const efimsim::UsageError& error) {
    std::cerr << "efimsim: error: " << error.what() << "\n";
    return 2;
  } catch (const efimsim::InputError& error) {
    std::cerr << "efimsim: error: " << error.what() << "\n";
    return 1;
  } catch (const efimsim::OutputError& error) {
    std::cerr << "efimsim: error: " << error.what() << "\n";
    return 1;
  } catch (const efimsim::InternalError& error) {
    std::cerr << "efimsim: " << error.what() << "\n";
    return 3;
  } catch (const std::exception& error) {
    std::cerr << "efimsim: unexpected error: " << error.what() << "\n";
    return 3;
  }
}
