#pragma once
// The efimsim subcommands. Each takes argv after the command name and
// returns the process exit code; errors are thrown (see main.cc).

namespace efimsim::cli {

int RunReplayCommand(int argc, const char* const* argv);
int RunCompareCommand(int argc, const char* const* argv);
int RunModelsCommand(int argc, const char* const* argv);
int RunPredictCommand(int argc, const char* const* argv);
int RunValidateLatencyCommand(int argc, const char* const* argv);
int RunConvertCommand(int argc, const char* const* argv);
int RunTokenizeCommand(int argc, const char* const* argv);
int RunSweepCommand(int argc, const char* const* argv);
int RunMergeCommand(int argc, const char* const* argv);
int RunCapacityCommand(int argc, const char* const* argv);
int RunProfileCommand(int argc, const char* const* argv);
int RunValidateServingCommand(int argc, const char* const* argv);

}  // namespace efimsim::cli
