#pragma once
// The efimsim subcommands. Each takes argv after the command name and
// returns the process exit code; errors are thrown (see main.cc). Each
// command's *Rows() gives its command lines (command_rows.h): the options
// its Run* parses, every one a documented row.

#include <vector>

namespace efimsim::cli {

struct CommandRows;  // command_rows.h

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

std::vector<CommandRows> ReplayCommandRows();
std::vector<CommandRows> CompareCommandRows();
std::vector<CommandRows> ModelsCommandRows();
std::vector<CommandRows> PredictCommandRows();
std::vector<CommandRows> ValidateLatencyCommandRows();
std::vector<CommandRows> ConvertCommandRows();
std::vector<CommandRows> TokenizeCommandRows();
std::vector<CommandRows> SweepCommandRows();
std::vector<CommandRows> MergeCommandRows();
std::vector<CommandRows> CapacityCommandRows();
std::vector<CommandRows> ProfileImportCommandRows();
std::vector<CommandRows> ProfileCheckCommandRows();
std::vector<CommandRows> ValidateServingCommandRows();

}  // namespace efimsim::cli
