#pragma once
// A command's command line, built from documented rows only: the command's
// own (a CommandParamTable of its config struct, sim/base/command_params.h)
// and the run's (AllParamTables(), sim/run/run_params.h). --help, parsing
// and the test that no command has a hand-written option
// (tests/cli/command_rows_test.cc) all read the CommandRows a command's
// *Rows() function returns. Boost.Program_options stays inside sim/app.

#include <string>
#include <utility>
#include <vector>

#include <boost/program_options.hpp>

#include "sim/base/command_params.h"
#include "sim/base/params.h"

namespace efimsim::cli {

namespace po = boost::program_options;

// An option's old spelling: the command refuses it with `message`, which
// names the new spelling (never a generic "unknown option"). Hidden from --help.
struct RetiredOption {
  std::string name;  // "json"
  std::string message;
};

struct CommandRows {
  CommandRows(std::string command_name, std::string synopsis_text)
      : command(std::move(command_name)), synopsis(std::move(synopsis_text)) {}

  std::string command;   // as typed after `efimsim`: "compare", "models import"
  std::string synopsis;  // --help's text under the usage line
  po::options_description visible;  // every option, in --help's groups
  // The rows of `visible` the command adds itself; every other option of
  // `visible` is a row of AllParamTables(), under the same name and help.
  std::vector<ParamInfo> own_rows;
  po::positional_options_description positional;  // own rows' syntax.positional, in order
  std::vector<RetiredOption> retired;
};

// Adds `info` to `group` as an option spelled as `syntax` says, with
// `default_text` as its default (none shown when empty; none at all when
// required, so that leaving it out is an error), and records it in
// rows.own_rows (and rows.positional). `is_list`: the field takes every value.
void AddCommandRow(CommandRows& rows, po::options_description& group, const ParamInfo& info,
                   const OptionSyntax& syntax, const std::string& default_text, bool is_list);

// Adds every row of `table` to `group` (defaults from a default-constructed
// Config); the caller then adds `group` to rows.visible.
template <class Config>
void AddCommandRows(CommandRows& rows, po::options_description& group,
                    const CommandParamTable<Config>& table) {
  static const Config defaults{};  // static: g++ 12 warns maybe-uninitialized on a local
  for (const CommandParam<Config>& param : table) {
    AddCommandRow(rows, group, param.info, param.syntax, CommandParamText(param, defaults),
                  IsListParam(param));
  }
}

// Adds `table`'s rows as a --help group titled `title`.
template <class Config>
void AddCommandGroup(CommandRows& rows, const std::string& title,
                     const CommandParamTable<Config>& table) {
  po::options_description group(title);
  AddCommandRows(rows, group, table);
  rows.visible.add(group);
}

// A command whose own rows are one --help group: `table` titled `title`.
template <class Config>
CommandRows OwnRows(std::string command, std::string synopsis, const std::string& title,
                    const CommandParamTable<Config>& table) {
  CommandRows rows(std::move(command), std::move(synopsis));
  AddCommandGroup(rows, title, table);
  return rows;
}

// A parsed option's values as text: a list's values, a switch's
// "true"/"false", or the one value.
std::vector<std::string> OptionTexts(const po::variable_value& value);

// Copies every row of `table` that has a (possibly defaulted) value into `config`.
template <class Config>
void ApplyCommandRows(const po::variables_map& values, const CommandParamTable<Config>& table,
                      Config& config) {
  for (const CommandParam<Config>& param : table) {
    const auto it = values.find(param.info.name);
    if (it != values.end()) SetCommandParam(param, OptionTexts(it->second), config);
  }
}

// Parses argv (after the command name) against rows.visible and
// rows.positional; throws UsageError naming the option for unknown or
// retired options, bad syntax, a missing required option, or a positional
// argument the command does not take. Returns false (and prints help) when
// --help was given.
bool ParseCommandLine(const CommandRows& rows, int argc, const char* const* argv,
                      po::variables_map& values);

// ParseCommandLine, then the command's own rows of `table` copied into
// `own`. False: it printed help.
template <class Config>
bool ParseCommandRows(const CommandRows& rows, const CommandParamTable<Config>& table, int argc,
                      const char* const* argv, po::variables_map& values, Config& own) {
  if (!ParseCommandLine(rows, argc, argv, values)) return false;
  ApplyCommandRows(values, table, own);
  return true;
}

}  // namespace efimsim::cli
