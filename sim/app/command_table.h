#pragma once
// The efimsim commands, in the order `efimsim --help` and the README's
// command table list them, each with its one summary: main.cc dispatches
// through this table and prints its help from it, and the README's table
// is this table's markdown (`efimsim --commands-markdown`; a test compares
// them), so the two cannot drift.

#include <string>
#include <vector>

namespace efimsim::cli {

struct CommandRows;  // command_rows.h

struct CommandEntry {
  std::string name;      // what follows `efimsim` ("profile")
  std::string shown_as;  // how the table names it ("profile import")
  // One sentence, markdown (backticks, links); --help prints it as plain text.
  std::string summary;
  int (*run)(int argc, const char* const* argv) = nullptr;
  // Its command lines (a subcommand has its own: models, models import),
  // each built from rows only; what --help prints and the parser reads.
  std::vector<CommandRows> (*rows)() = nullptr;
};

const std::vector<CommandEntry>& Commands();

// The entry named `name`, or null.
const CommandEntry* FindCommand(const std::string& name);

// The "commands:" block of `efimsim --help`: each command with its summary
// as plain text, wrapped at 80 columns.
std::string CommandsUsage();

// The README's command table, byte for byte (header row included).
std::string CommandsMarkdown();

}  // namespace efimsim::cli
