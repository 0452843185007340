// efimsim: discrete-event simulator of LLM serving for multi-round code
// infilling. Exit codes: 0 ok, 2 usage error, 1 bad input or output,
// 3 internal error (a bug: please report it with the command line).
#include <cstring>
#include <iostream>
#include <string>

#include "sim/app/commands.h"
#include "sim/base/check.h"
#include "sim/base/errors.h"

namespace {

constexpr const char* kUsage =
    "usage: efimsim <command> [options]     (efimsim <command> --help for its options)\n"
    "\n"
    "Simulates LLM serving of code-completion (fill-in-the-middle) traffic on a model of\n"
    "the vLLM v1 engine (or SGLang: --engine sglang), comparing prompt formats and\n"
    "prefix-cache policies.\n"
    "\n"
    "commands:\n"
    "  compare   run several policies (default baseline,fim,efim) on the same workload,\n"
    "            side by side, with EFIM's gains\n"
    "  replay    run one policy and write summary.json and requests.csv\n"
    "  models    list built-in models and GPUs with derived figures\n"
    "  predict   one step's latency with a per-operator breakdown\n"
    "  validate-latency  a latency model's error against measured step times\n"
    "  validate-serving  a real serving run replayed: TTFT, TPOT, E2E measured vs predicted\n"
    "  profile   import a kernel profile from GPU measurements made outside efimsim\n"
    "  convert   turn a trace (Azure CSV, Mooncake JSONL, TaskTracker CSV, HumanEval\n"
    "            infilling, efimsim JSONL) into efimsim's trace format\n"
    "  tokenize  token counts (or ids) of files under the Llama-3.1 tokenizer\n"
    "  sweep     run a grid (policies x users x any option) on all cores: sweep.csv\n"
    "  merge     join the outputs of sweep shards (--shard I/N) into one sweep\n"
    "  capacity  the most users a replica serves within latency SLOs, and the replicas\n"
    "            and GPUs a target load needs, per policy\n"
    "\n"
    "With no command, `efimsim compare` runs the EFIM paper's benchmark\n"
    "(16 users x 5 rounds, Llama-3.1-8B on one H100; latency model auto: the serving engine's\n"
    "own kernels measured on that GPU (AIConfigurator's vLLM tables), a calibrated fallback\n"
    "for GPUs without any).\n";

int Dispatch(int argc, const char* const* argv) {
  using namespace efimsim::cli;
  if (argc < 2) return RunCompareCommand(1, argv);
  const std::string command = argv[1];
  if (command == "--help" || command == "-h" || command == "help") {
    std::cout << kUsage;
    return 0;
  }
  if (command == "--version") {
    std::cout << "efimsim 0.1.0\n";
    return 0;
  }
  // Each command parses argv[1..] (its own name stands where a program name would).
  const int sub_argc = argc - 1;
  const char* const* sub_argv = argv + 1;
  if (command == "compare") return RunCompareCommand(sub_argc, sub_argv);
  if (command == "replay") return RunReplayCommand(sub_argc, sub_argv);
  if (command == "models") return RunModelsCommand(sub_argc, sub_argv);
  if (command == "predict") return RunPredictCommand(sub_argc, sub_argv);
  if (command == "validate-latency") return RunValidateLatencyCommand(sub_argc, sub_argv);
  if (command == "convert") return RunConvertCommand(sub_argc, sub_argv);
  if (command == "tokenize") return RunTokenizeCommand(sub_argc, sub_argv);
  if (command == "sweep") return RunSweepCommand(sub_argc, sub_argv);
  if (command == "merge") return RunMergeCommand(sub_argc, sub_argv);
  if (command == "capacity") return RunCapacityCommand(sub_argc, sub_argv);
  if (command == "profile") return RunProfileCommand(sub_argc, sub_argv);
  if (command == "validate-serving") return RunValidateServingCommand(sub_argc, sub_argv);
  throw efimsim::UsageError("unknown command '" + command +
                            "' (commands: compare, replay, models, predict, validate-latency, convert, "
                            "tokenize, sweep, merge, capacity, profile, validate-serving; see efimsim --help)");
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Dispatch(argc, argv);
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
